"""The decoder in a process of its own (``process: true`` in the ``recogniser:`` block).

pocketsphinx holds Python's lock while it decodes, so in the listening process the
event loop that reads the microphone and finds the end of speech waited for it (and
for the scheduler, when the decoding thread was preempted holding the lock). In its
own process the decoder takes the other core and the event loop never waits: a
piece of a request is handed over a pipe and the call returns at once; only the end
of a request (and a whole request) waits for the answer.

`ProcessDecoder` has `ModelDecoder`'s calls. A child that dies is a `StageError`
naming its exit status, never a reading: nothing is acted on, and the recogniser
starts a new one (`alive`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from mnemolis.voice.recognise.decoder import Decoded, ModelDecoder
from mnemolis.voice.recognise.model import ModelInfo
from mnemolis.voice.recognise.settings import RecogniserSettings
from mnemolis.voice.stages import StageError

OK = "ok"
ERROR = "error"
#: Calls answered with the result (the rest are streamed: their error waits for `end`).
ANSWERED = ("load", "decode", "end")


class ProcessDecoder:
    """`ModelDecoder`'s calls, answered by a decoder in a child process."""

    def __init__(
        self, folder: Path, info: ModelInfo, settings: RecogniserSettings | None = None
    ) -> None:
        self.info = info
        to_child, from_parent = os.pipe()
        to_parent, from_child = os.pipe()
        self.process = subprocess.Popen(
            [sys.executable, "-m", __name__, str(to_child), str(from_child)],
            pass_fds=(to_child, from_child),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        os.close(to_child)
        os.close(from_child)
        self._send = Connection(from_parent, readable=False)
        self._recv = Connection(to_parent, writable=False)
        self._call("load", folder, info, settings or RecogniserSettings())

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def _stopped(self) -> StageError:
        try:
            status = self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            status = None
        return StageError(f"the recogniser's decoder process stopped (exit status {status})")

    def _post(self, *message: object) -> None:
        try:
            self._send.send(message)
        except OSError as exc:  # BrokenPipeError: the child is gone
            raise self._stopped() from exc

    def _call(self, *message: object) -> Any:
        self._post(*message)
        try:
            status, value = self._recv.recv()
        except (EOFError, OSError) as exc:
            raise self._stopped() from exc
        if status == ERROR:
            raise RuntimeError(str(value))
        return value

    def decode(self, pcm: bytes, nbest: int = 0) -> Decoded:
        result: Decoded = self._call("decode", pcm, nbest)
        return result

    def start(self, head: bytes) -> None:
        self._post("start", head)

    def feed(self, pcm: bytes) -> None:
        self._post("feed", pcm)

    def end(self, nbest: int = 0) -> Decoded:
        result: Decoded = self._call("end", nbest)
        return result

    def close(self) -> None:
        """Stop the child (it ends when its pipe closes; killed if it does not)."""
        for conn in (self._send, self._recv):
            conn.close()
        try:
            self.process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def serve(receive: Connection, send: Connection) -> None:
    """The child: one `ModelDecoder`, its calls answered in order until the pipe closes.
    An error in a streamed call (``start``, ``feed``) is kept and answers ``end``."""
    decoder: ModelDecoder | None = None
    failed: str | None = None
    while True:
        try:
            op, *args = receive.recv()
        except (EOFError, OSError):
            return
        try:
            if op == "load":
                decoder = ModelDecoder(*args)
                send.send((OK, None))
                continue
            if decoder is None:
                raise RuntimeError("no model is loaded")
            if op == "start":
                failed = None
                decoder.start(*args)
            elif op == "feed":
                if failed is None:
                    decoder.feed(*args)
            elif op == "decode":
                send.send((OK, decoder.decode(*args)))
            elif op == "end":
                if failed is not None:
                    failed, reason = None, failed
                    decoder.end()
                    raise RuntimeError(reason)
                send.send((OK, decoder.end(*args)))
        except Exception as exc:
            if op in ANSWERED:
                send.send((ERROR, f"{type(exc).__name__}: {exc}"))
            else:
                failed = failed or f"{type(exc).__name__}: {exc}"


if __name__ == "__main__":
    serve(
        Connection(int(sys.argv[1]), writable=False),
        Connection(int(sys.argv[2]), readable=False),
    )
