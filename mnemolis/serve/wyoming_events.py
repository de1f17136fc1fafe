"""Wyoming events on the wire, read and written defensively.

The `wyoming` package's reader trusts ``data_length`` and ``payload_length``
whatever they say and waits for them forever; its writer fails on a lone
surrogate (a JSON ``"\\ud800"`` in a context it echoes). Here an event is
read with bounded sizes, strict JSON (no ``NaN``; at most `wire.MAX_DEPTH`
deep) and a deadline from its first byte (an idle connection may wait; a
begun event must arrive whole within ``timeout_s``), and written with the
encoder that cannot fail. The wire format is the package's: a JSON header
line with ``version``, ``data_length`` and ``payload_length``, then the
data, then the payload.

`timer_event` turns a timer's notices and its ringing into the protocol's
timer events (``timer-started``, ``-updated``, ``-cancelled``,
``-finished``) for a satellite.
"""

from __future__ import annotations

import asyncio
from typing import Any

from wyoming.event import Event
from wyoming.info import (
    AsrModel,
    AsrProgram,
    Attribution,
    HandleModel,
    HandleProgram,
    Info,
    TtsProgram,
    TtsVoice,
)
from wyoming.timer import TimerCancelled, TimerFinished, TimerStarted, TimerUpdated
from wyoming.version import __version__ as wyoming_version

from mnemolis import __version__
from mnemolis.core.announce import Announcement, TimerNotice
from mnemolis.serve.wire import NotJson, dumps_bytes, loads

DESCRIPTION = "Mnemolis: compound home requests, offline encyclopedia, weather and clock"


class BadEvent(Exception):
    """An event that breaks the protocol, the size limits or the deadline."""

    def __init__(self, message: str, code: str = "bad_event") -> None:
        super().__init__(message)
        self.code = code


def _json(data: bytes, what: str) -> Any:
    try:
        return loads(data)
    except UnicodeDecodeError as exc:
        raise BadEvent(f"{what} is not UTF-8") from exc
    except NotJson as exc:
        said = str(exc)
        shown = any(words in said for words in ("JSON number", "too large", "nested"))
        detail = f" ({said})" if shown else ""
        raise BadEvent(f"{what} is not JSON{detail}") from exc


async def read_event(
    reader: asyncio.StreamReader, max_bytes: int, timeout_s: float
) -> Event | None:
    """The next event, None at the end of the stream; `BadEvent` when it is malformed,
    too large, or not whole ``timeout_s`` after its first byte. The header line is
    bounded by the reader's own limit."""
    while True:
        first = await reader.read(1)  # no deadline: a satellite may stay idle for hours
        if not first:
            return None
        if first.strip():
            break
    try:
        async with asyncio.timeout(timeout_s):
            return await _rest_of_event(first, reader, max_bytes)
    except TimeoutError:
        raise BadEvent(
            f"an event did not arrive whole within {timeout_s:g} s of its first byte", "timeout"
        ) from None


async def _rest_of_event(first: bytes, reader: asyncio.StreamReader, max_bytes: int) -> Event:
    try:
        line = first + await reader.readline()
    except ValueError as exc:  # the line is over the reader's limit
        raise BadEvent("an event header is too long") from exc
    if not line.endswith(b"\n"):
        raise asyncio.IncompleteReadError(line, None)
    header = _json(line, "an event header")
    if not isinstance(header, dict) or not isinstance(header.get("type"), str):
        raise BadEvent("an event has no type")
    data = header.get("data") or {}
    data_length = header.get("data_length") or 0
    payload_length = header.get("payload_length") or 0
    if not isinstance(data, dict):
        raise BadEvent("an event's data is not an object")
    for length in (data_length, payload_length):
        if isinstance(length, bool) or not isinstance(length, int) or length < 0:
            raise BadEvent("an event's length is not a number")
    if data_length + payload_length > max_bytes:
        raise BadEvent(f"an event is over {max_bytes} bytes")
    if data_length:
        extra = _json(await reader.readexactly(data_length), "an event's data")
        if not isinstance(extra, dict):
            raise BadEvent("an event's data is not an object")
        data.update(extra)
    payload = await reader.readexactly(payload_length) if payload_length else None
    return Event(type=header["type"], data=data, payload=payload)


def event_bytes(event: Event) -> bytes:
    """The event as the package writes it, with strict JSON that cannot fail."""
    header: dict[str, Any] = {"type": event.type, "version": wyoming_version}
    data = dumps_bytes(event.data) if event.data else b""
    if data:
        header["data_length"] = len(data)
    if event.payload:
        header["payload_length"] = len(event.payload)
    return dumps_bytes(header) + b"\n" + data + (event.payload or b"")


async def write_event(writer: asyncio.StreamWriter, event: Event) -> None:
    writer.write(event_bytes(event))  # one write: events of two tasks never interleave
    await writer.drain()


def _about(name: str, description: str) -> dict[str, Any]:
    """What every program, model and voice of ours says about itself."""
    attribution = Attribution(name="Mnemolis", url="")
    return {
        "name": name,
        "attribution": attribution,
        "installed": True,
        "description": description,
        "version": __version__,
    }


def service_info(language: str, asr: bool = False, tts: bool = False) -> Info:
    """What ``describe`` answers: one handle program with one model for the language, and
    the recogniser (``asr``) and voice (``tts``) when they are offered."""
    model = f"mnemolis-{language}"
    intents = HandleModel(
        **_about(model, "the intents of the configuration directory"), languages=[language]
    )
    info = Info(
        handle=[
            HandleProgram(
                **_about("mnemolis", DESCRIPTION), models=[intents], supports_home_control=True
            )
        ]
    )
    if asr:
        what = "the requests of this configuration (its intents, names and values)"
        heard = AsrModel(**_about(model, what), languages=[language])
        about = _about("mnemolis", "Mnemolis's recogniser, personalised from its configuration")
        info.asr = [AsrProgram(**about, models=[heard])]
    if tts:
        voice = TtsVoice(**_about(model, "the voice of sources/voice.yaml"), languages=[language])
        info.tts = [TtsProgram(**_about("mnemolis", "Mnemolis's voice"), voices=[voice])]
    return info


def _seconds(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return max(0, round(value))


def timer_event(said: Announcement | TimerNotice) -> Event | None:
    """The Wyoming timer event of a timer notice (started, updated, cancelled) or of a
    timer that rang (finished); None for anything else.

    A notice's ``data``: ``total_seconds``, ``seconds_left``, ``name``, ``is_active``."""
    if said.kind != "timer":
        return None
    ident = said.id
    if isinstance(said, Announcement):
        return TimerFinished(id=ident).event()
    data = said.data
    if said.event == "started":
        total = _seconds(data.get("total_seconds"))
        if total is None:
            return None
        hours, rest = divmod(total, 3600)
        name = data.get("name")
        return TimerStarted(
            id=ident,
            total_seconds=total,
            name=name if isinstance(name, str) else None,
            start_hours=hours or None,
            start_minutes=rest // 60 or None,
            start_seconds=rest % 60 or None,
        ).event()
    if said.event == "updated":
        left = _seconds(data.get("seconds_left", data.get("total_seconds")))
        if left is None:
            return None
        active = bool(data.get("is_active", True))
        return TimerUpdated(id=ident, is_active=active, total_seconds=left).event()
    if said.event == "cancelled":
        return TimerCancelled(id=ident).event()
    return None
