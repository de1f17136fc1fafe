"""The daemon's pieces that need no daemon: strict JSON, rate-limited logs, open-file
budgets, the CLI's same-home check, Wyoming's reader and timer events."""

from __future__ import annotations

import asyncio
import json
import logging
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemolis.core.announce import Announcement, TimerNotice
from mnemolis.serve.client import (
    daemon_socket,
    expectation,
    mismatch,
    socket_candidates,
)
from mnemolis.serve.listeners import MIN_CAP, RESERVED_FILES, connection_caps
from mnemolis.serve.log_limit import RepeatFilter
from mnemolis.serve.wire import NotJson, dumps, dumps_bytes, loads, lone_surrogate
from mnemolis.serve.wyoming_events import BadEvent, event_bytes, read_event, timer_event


def strict(data: bytes) -> Any:
    """Parse as a strict JSON reader would: no NaN, no Infinity."""

    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} is not JSON")

    return json.loads(data.decode("utf-8"), parse_constant=refuse)


# --------------------------------------------------------------------------- strict JSON


json_like = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and the infinities too
    | st.text(alphabet=st.characters(codec=None)),  # lone surrogates too
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(json_like)
def test_a_reply_is_always_strict_utf8_json(value: Any) -> None:
    """Issue 17, items 1 and 5: whatever a reply holds, it encodes, and as JSON."""
    strict(dumps_bytes(value))
    strict(dumps(value).encode("utf-8"))


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ({"id": math.nan}, b'{"id": null}'),
        ({"id": -math.inf}, b'{"id": null}'),
        ({"t": "a\ud800b"}, '{"t": "a\ufffdb"}'.encode()),
        ({"\udc00": 1}, '{"\ufffd": 1}'.encode()),
        ({"t": "caf\u00e9 \U0001f600"}, '{"t": "caf\u00e9 \U0001f600"}'.encode()),
        ({"p": Path("/x")}, b'{"p": "/x"}'),
    ],
)
def test_what_cannot_be_json_is_written_as_the_nearest_json(value: Any, written: bytes) -> None:
    assert dumps_bytes(value) == written


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"id": NaN}', "NaN is not a JSON number"),
        ('{"id": Infinity}', "Infinity is not a JSON number"),
        ("[-Infinity]", "-Infinity is not a JSON number"),
        ('{"id": 1e400}', "1e400 is too large for a number"),
        ('{"id": -1e999}', "-1e999 is too large for a number"),
        ("{", "Expecting property name"),
    ],
)
def test_non_finite_numbers_are_not_json(text: str, reason: str) -> None:
    with pytest.raises(NotJson, match=reason):
        loads(text)


@pytest.mark.parametrize(
    ("text", "lone"),
    [("\ud800 turn on", True), ("x\udfff", True), ("\U0001f600", False), ("plain", False)],
)
def test_lone_surrogates_are_told_from_characters(text: str, lone: bool) -> None:
    assert lone_surrogate(text) is lone


# --------------------------------------------------------------------------- logs


def record(message: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord("mnemolis.serve", logging.WARNING, __file__, 1, message, args, None)


def test_a_repeated_line_is_let_through_five_times_a_window_then_counted() -> None:
    """Issue 17, item 2: tens of thousands of identical lines a minute become a few."""
    now = [0.0]
    repeat = RepeatFilter(burst=5, window_s=60.0, clock=lambda: now[0])
    flood = [
        repeat.filter(record("accept failed: %s", "too many open files")) for _ in range(10_000)
    ]
    assert flood.count(True) == 5
    other = record("accept failed: %s", "something else")
    assert repeat.filter(other), "a different line is not held back"
    now[0] = 61.0
    later = record("accept failed: %s", "too many open files")
    assert repeat.filter(later)
    assert later.getMessage() == (
        "accept failed: too many open files (and 9995 more like it in the 60 s before)"
    )


# --------------------------------------------------------------------------- open files


@pytest.mark.parametrize(
    ("configured", "listeners", "limit", "cap"),
    [
        (256, 3, 65_536, 256),  # the unit's limit: the configured cap
        (512, 3, 1024, (1024 - RESERVED_FILES) // 3),  # `ulimit -n 1024`: all fit under it
        (1000, 1, 1024, 1024 - RESERVED_FILES),
        (256, 3, 100, MIN_CAP),  # a tiny limit still lets a few in
    ],
)
def test_connection_caps_stay_under_the_open_file_limit(
    configured: int, listeners: int, limit: int, cap: int
) -> None:
    assert connection_caps(configured, listeners, limit) == cap
    if limit > RESERVED_FILES + MIN_CAP * listeners:
        assert cap * listeners + RESERVED_FILES <= limit


# --------------------------------------------------------------------------- the CLI's way in


def test_the_cli_finds_the_socket_the_daemon_opens_under_the_unit() -> None:
    unit = {"RUNTIME_DIRECTORY": "/run/mnemolis"}
    assert daemon_socket(unit) == Path("/run/mnemolis/mnemolis.sock")
    assert Path("/run/mnemolis/mnemolis.sock") in socket_candidates({})  # a user's shell
    assert daemon_socket({}) is None  # no runtime directory: HTTP only
    assert daemon_socket({"XDG_RUNTIME_DIR": "/run/user/1000"}) == Path(
        "/run/user/1000/mnemolis/mnemolis.sock"
    )
    explicit = {"MNEMOLIS_SOCKET": "/tmp/m.sock", "RUNTIME_DIRECTORY": "/run/mnemolis"}
    assert daemon_socket(explicit) == Path("/tmp/m.sock")
    assert socket_candidates(explicit) == [Path("/tmp/m.sock")]


@pytest.mark.parametrize(
    ("client_env", "daemon_env", "client_dir", "why"),
    [
        ({}, {"MNEMOLIS_CACHE": "/var/cache/mnemolis"}, "home", None),
        ({"MNEMOLIS_SOCKET": "/s", "MNEMOLIS_TOKEN": "t"}, {}, "home", None),
        ({"MNEMOLIS_MQTT_URL": "mqtt://a:1"}, {"MNEMOLIS_MQTT_URL": "mqtt://a:1"}, "home", None),
        (
            {"MNEMOLIS_MQTT_URL": "mqtt://a:1"},
            {"MNEMOLIS_MQTT_URL": "mqtt://b:1"},
            "home",
            "another $MNEMOLIS_MQTT_URL",
        ),
        ({"MNEMOLIS_KIWIX": "/x.zim"}, {}, "home", "another $MNEMOLIS_KIWIX"),
        ({}, {}, "elsewhere", "serves the configuration"),
    ],
)
def test_a_daemon_serves_the_cli_only_for_the_same_home(
    tmp_path: Path,
    client_env: dict[str, str],
    daemon_env: dict[str, str],
    client_dir: str,
    why: str | None,
) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "elsewhere").mkdir()
    expect = json.loads(json.dumps(expectation(tmp_path / client_dir, client_env)))
    got = mismatch(expect, tmp_path / "home", daemon_env)
    assert (got is None) if why is None else (got is not None and why in got)


# --------------------------------------------------------------------------- Wyoming


def read(data: bytes, timeout_s: float = 5.0, max_bytes: int = 1000) -> Any:
    async def go() -> Any:
        reader = asyncio.StreamReader(limit=max_bytes)
        reader.feed_data(data)
        if not data.endswith(b"!"):
            reader.feed_eof()
        return await read_event(reader, max_bytes, timeout_s)

    return asyncio.run(go())


def test_a_begun_event_must_arrive_whole_within_the_deadline() -> None:
    """Issue 17, item 3: a header promising 10 bytes of data, then 3, is not held forever."""
    with pytest.raises(BadEvent, match=r"did not arrive whole within 0\.2 s") as raised:
        read(b'{"type": "transcript", "data_length": 10}\nabc!', timeout_s=0.2)
    assert raised.value.code == "timeout"


def test_an_idle_connection_has_no_deadline_until_its_first_byte() -> None:
    async def go() -> Any:
        reader = asyncio.StreamReader()
        reading = asyncio.create_task(read_event(reader, 1000, 0.1))
        await asyncio.sleep(0.3)  # longer than the deadline, idle: still waiting
        assert not reading.done()
        reader.feed_data(b'{"type": "ping"}\n')
        return await reading

    event = asyncio.run(go())
    assert event.type == "ping"


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (
            b'{"type": "transcript", "data": {"text": "hi", "context": {"id": NaN}}}\n',
            "not JSON (NaN is not a JSON number)",
        ),
        (b'{"type": "transcript", "data_length": 9}\n{"n": 1e400}', "data is not JSON"),
        (b'{"type": 5}\n', "an event has no type"),
        (b'{"type": "x", "data_length": 2000}\n', "an event is over 1000 bytes"),
    ],
)
def test_bad_events_are_refused_with_a_reason(data: bytes, error: str) -> None:
    with pytest.raises(BadEvent, match=error.replace("(", r"\(").replace(")", r"\)")):
        read(data)


def test_an_event_with_a_lone_surrogate_is_still_written() -> None:
    """Issue 17, item 1: a Wyoming conversation_id of "\\ud800" echoed back."""
    from wyoming.handle import Handled

    written = event_bytes(Handled(text="ok", context={"conversation_id": "\ud800"}).event())
    header, _, data = written.partition(b"\n")
    assert strict(header)["data_length"] == len(data)
    assert strict(data) == {"text": "ok", "context": {"conversation_id": "\ufffd"}}


def timer(event: str | None, **data: Any) -> Announcement | TimerNotice:
    """A timer's notice, or (``finished``, None) the timer ringing."""
    if event in (None, "finished"):
        return Announcement("Your timer is done", "timer", "t1", data=data)
    assert event is not None
    return TimerNotice(event, "t1", data=data)


@pytest.mark.parametrize(
    ("announcement", "wire"),
    [
        (
            timer("started", total_seconds=5430, seconds_left=5430, name="pasta"),
            (
                "timer-started",
                {
                    "id": "t1",
                    "total_seconds": 5430,
                    "name": "pasta",
                    "start_hours": 1,
                    "start_minutes": 30,
                    "start_seconds": 30,
                },
            ),
        ),
        (
            timer("started", total_seconds=300),
            ("timer-started", {"id": "t1", "total_seconds": 300, "start_minutes": 5}),
        ),
        (
            timer("updated", total_seconds=300, seconds_left=120, is_active=False),
            ("timer-updated", {"id": "t1", "is_active": False, "total_seconds": 120}),
        ),
        (timer("cancelled"), ("timer-cancelled", {"id": "t1"})),
        (timer("finished"), ("timer-finished", {"id": "t1"})),
        (timer(None), ("timer-finished", {"id": "t1"})),  # a timer that rang
        (Announcement("Call mom", "reminder", "r1"), None),  # not a timer event
        (timer("started"), None),  # no duration: nothing to tell a satellite
    ],
)
def test_timer_announcements_as_wyoming_timer_events(
    announcement: Announcement | TimerNotice, wire: tuple[str, dict[str, Any]] | None
) -> None:
    event = timer_event(announcement)
    assert (None if event is None else (event.type, event.data)) == wire
