"""A wyoming-satellite's --mic-command for the tests: the room's sound at real time.

Arguments are WAV files (16 kHz, 16-bit, mono) and ``silence:SECONDS`` pauses, played
in order on standard output as raw PCM, one 1024-sample chunk at a time at the pace a
microphone keeps; then silence for ever. A first argument ``--after=PATH`` plays
silence until that file exists (the test makes it once the daemon listens). Only the standard library: it runs in the
satellite's own virtual environment."""

import contextlib
import os
import sys
import time
import wave

RATE = 16000
CHUNK = 1024 * 2


def sound(item: str) -> bytes:
    if item.startswith("silence:"):
        return bytes(int(float(item.split(":", 1)[1]) * RATE) * 2)
    with wave.open(item, "rb") as wav:
        assert (wav.getframerate(), wav.getsampwidth(), wav.getnchannels()) == (RATE, 2, 1)
        return wav.readframes(wav.getnframes())


def main() -> None:
    items = sys.argv[1:]
    after = (
        items.pop(0).removeprefix("--after=") if items and items[0].startswith("--after=") else ""
    )
    data = b"".join(sound(item) for item in items)
    out = sys.stdout.buffer
    began = time.monotonic()
    sent = 0
    start = None  # where in the stream the sounds begin
    while True:
        if start is None and (not after or os.path.exists(after)):
            start = sent
        at = sent - start if start is not None else len(data)
        piece = data[at : at + CHUNK] if at < len(data) else b""
        piece = piece.ljust(CHUNK, b"\0")
        out.write(piece)
        out.flush()
        sent += CHUNK
        ahead = began + sent / (RATE * 2) - time.monotonic()
        if ahead > 0:
            time.sleep(ahead)


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        main()
