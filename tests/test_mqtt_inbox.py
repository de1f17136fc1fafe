"""The discovery inbox: announcements handled off paho's thread, the latest per topic, bounded."""

from __future__ import annotations

import threading

from mnemolis.sources.mqtt.discovery.inbox import Inbox


def test_the_latest_payload_per_topic_is_handled_on_the_inbox_thread() -> None:
    handled: list[tuple[str, bytes, str]] = []
    gate = threading.Event()

    def handle(topic: str, payload: bytes) -> None:
        gate.wait(5.0)
        handled.append((topic, payload, threading.current_thread().name))

    inbox = Inbox(handle)
    try:
        inbox.put("a", b"first")  # taken at once by the worker, which waits at the gate
        for payload in (b"1", b"2", b"3"):
            inbox.put("b", payload)  # replaced while waiting: only the last is read
        inbox.put("c", b"x")
        gate.set()
        assert inbox.wait_idle(5.0)
    finally:
        inbox.close()
    assert [(t, p) for t, p, _ in handled] == [("a", b"first"), ("b", b"3"), ("c", b"x")]
    assert {name for _, _, name in handled} == {"mnemolis-discovery"}


def test_what_waits_is_bounded_and_a_replacement_is_never_refused() -> None:
    gate, taken = threading.Event(), threading.Event()

    def handle(_topic: str, _payload: bytes) -> None:
        taken.set()
        gate.wait(5.0)

    inbox = Inbox(handle, topics=3, size=100)
    try:
        assert inbox.put("busy", b"")
        assert taken.wait(5.0)  # the worker holds it: nothing else is read meanwhile
        assert inbox.wait_idle(0.0) is False
        assert all(inbox.put(t, b"x" * 10) for t in ("a", "b", "c"))
        assert inbox.put("d", b"x") is False  # a fourth topic: refused
        assert inbox.put("a", b"y" * 20)  # the same topic again: it replaces
        assert inbox.put("b", b"z" * 90) is False  # over 100 bytes waiting: refused
        assert inbox.refused == 2
    finally:
        gate.set()
        inbox.close()


def test_one_bad_announcement_does_not_stop_the_others() -> None:
    seen: list[str] = []

    def handle(topic: str, _payload: bytes) -> None:
        if topic == "bad":
            raise RuntimeError("a parser bug")
        seen.append(topic)

    inbox = Inbox(handle)
    try:
        inbox.put("bad", b"")
        inbox.put("good", b"")
        assert inbox.wait_idle(5.0)
    finally:
        inbox.close()
    assert seen == ["good"]
