"""A satellite's microphone (or a client's audio) as it arrives: checked, metered,
converted.

Each ``audio-chunk`` names its own rate, width and channels (wyoming-satellite
sends them without an ``audio-start``); a format the pipeline cannot convert
is refused once per stream with a sentence in the log, and its audio is not
heard. A satellite sending sound faster than real time (more than `FLOOD_RATIO`
times, after a `BURST_S` allowance for the seconds a VAD satellite buffers
before it starts) is cut off: it is broken, or it is not a satellite.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from wyoming.audio import AudioStart

if TYPE_CHECKING:
    from wyoming.event import Event

    from mnemolis.voice.audio import Converter
    from mnemolis.voice.stages import Audio, AudioFormat

log = logging.getLogger(__name__)

RATES = (8000, 192000)
WIDTHS = (1, 2, 3, 4)
MAX_CHANNELS = 8
FLOOD_RATIO = 1.5
BURST_S = 5.0


class CutOff(Exception):
    """A satellite the daemon stops listening to, and why (sent to it as an ``error``)."""

    def __init__(self, message: str, code: str = "cut_off") -> None:
        super().__init__(message)
        self.code = code


def _whole(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


class AudioIn:
    """One satellite's stream: its format's converter and how much it has sent."""

    def __init__(self, real_time: bool = True) -> None:
        self.real_time = real_time  # a microphone: faster than real time is a flood
        self._converter: Converter | None = None
        self._format: AudioFormat | None = None
        self._refused: tuple[Any, ...] | None = None
        self._began = time.monotonic()
        self._received_s = 0.0

    def restart(self) -> None:
        """A new connection or run: the meter starts again."""
        self._began = time.monotonic()
        self._received_s = 0.0

    def start(self, event: Event) -> None:
        """``audio-start``: its format is checked like a chunk's (nothing else to do)."""
        start = AudioStart.from_event(event) if _known(event) else None
        if start is not None:
            self._usable((start.rate, start.width, start.channels))

    def chunk(self, event: Event) -> Audio | None:
        """The chunk in the pipeline's format; None when its format is not usable.
        `CutOff` when the satellite sends faster than real time."""
        data = event.data
        shape = (data.get("rate"), data.get("width"), data.get("channels"))
        fmt = self._usable(shape)
        if fmt is None:
            return None
        pcm = event.payload or b""
        if self.real_time:
            self._meter(len(pcm) / fmt.bytes_per_second)
        if self._converter is None or self._format != fmt:
            from mnemolis.voice.audio import Converter

            self._converter, self._format = Converter(fmt), fmt
        return self._converter.convert(pcm)

    def _usable(self, shape: tuple[Any, ...]) -> AudioFormat | None:
        from mnemolis.voice.stages import AudioFormat

        rate, width, channels = shape
        if (
            _whole(rate, *RATES)
            and width in WIDTHS
            and _whole(width, 1, 4)
            and _whole(channels, 1, MAX_CHANNELS)
        ):
            return AudioFormat(rate, width, channels)
        if self._refused != shape:
            self._refused = shape
            log.warning(
                "a satellite sent audio the pipeline cannot use (rate %r, width %r, channels %r): "
                "it is not heard; rates %d-%d Hz, 8 to 32 bits, 1 to %d channels are",
                rate,
                width,
                channels,
                RATES[0],
                RATES[1],
                MAX_CHANNELS,
            )
        return None

    def _meter(self, seconds: float) -> None:
        self._received_s += seconds
        elapsed = time.monotonic() - self._began
        if self._received_s > elapsed * FLOOD_RATIO + BURST_S:
            raise CutOff(
                f"it sent {self._received_s:.1f} s of audio in {elapsed:.1f} s, faster than "
                "real time: a microphone cannot do that",
                "flood",
            )


def _known(event: Event) -> bool:
    data = event.data
    return all(key in data for key in ("rate", "width", "channels"))
