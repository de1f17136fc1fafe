"""The listening half of a pipeline, driven by chunks: wake word, then one request.

Pure and synchronous: `feed` takes a chunk of pipeline audio and returns the
events it caused. It never reads a device, so the same code serves a
microphone, a WAV file and a Wyoming satellite's `AudioChunk`s; one
`Listener` a stream, any number in one process. After a question
("Do you want me to open the garage door?") `listen_now` listens again
without the wake word.
"""

from __future__ import annotations

from mnemolis.voice.events import Event, NothingSaid, SpeechEnded, SpeechStarted, TooLong, Woke
from mnemolis.voice.settings import VoiceSettings
from mnemolis.voice.stages import Audio, EndOfSpeech, WakeWord

WINDOW_BYTES = 320  # the end-of-speech detector's window: 10 ms of pipeline audio


class Listener:
    """Waits for the wake word (or is told to listen now), then collects one request."""

    def __init__(
        self, wake: WakeWord | None, endpoint: EndOfSpeech, settings: VoiceSettings
    ) -> None:
        self.wake = wake
        self.endpoint = endpoint
        self.settings = settings
        self.at_s = 0.0  # stream time
        self.listening = wake is None
        self._request: list[bytes] = []
        self._since = 0.0  # when listening started
        self._was_started = False
        self._unheard = b""  # part of a window for `hear_only`

    def listen_now(self) -> None:
        """Listen for a request without the wake word (a follow-up turn)."""
        self.endpoint.reset()
        self.listening = True
        self._request = []
        self._since = self.at_s
        self._was_started = False

    @property
    def in_request(self) -> bool:
        """Speech has started and the request is still being said."""
        return self.listening and self._was_started

    @property
    def request_bytes(self) -> int:
        """How much sound the request being listened to holds so far."""
        return sum(len(piece) for piece in self._request)

    def request_since(self, offset: int) -> bytes:
        """The request's sound after its first ``offset`` bytes (to stream it as it
        comes): only the pieces past ``offset`` are joined."""
        tail: list[bytes] = []
        end = sum(len(piece) for piece in self._request)
        for piece in reversed(self._request):
            if end <= offset:
                break
            tail.append(piece[max(0, offset - (end - len(piece))) :])
            end -= len(piece)
        return b"".join(reversed(tail))

    def wait_for_wake_word(self) -> None:
        if self.wake is None:  # no wake word: always listening
            self.listen_now()
            return
        self.wake.reset()
        self.listening = False
        self._request = []

    def finish(self) -> SpeechEnded | None:
        """The stream ended: the request being said, if one had started."""
        if not (self.listening and self.endpoint.started):
            return None
        ended = SpeechEnded(self.at_s, Audio(b"".join(self._request)))
        self.wait_for_wake_word()
        return ended

    def hear_only(self, chunk: Audio) -> None:
        """Sound that is no request (the assistant's own voice, dropped while it answers)
        still goes through the end-of-speech detector before a follow-up: its neural
        detector holds on to what it heard last, and after such a gap it took the end of
        the last request for the start of the next. (Not while waiting for the wake word:
        that would triple what a stream costs, 0.3 ms a 10 ms window.)"""
        window = getattr(self.endpoint, "window", None)
        if window is None:
            return
        data = self._unheard + chunk.pcm
        usable = len(data) - len(data) % WINDOW_BYTES
        self._unheard = data[usable:]
        for start in range(0, usable, WINDOW_BYTES):
            window(data[start : start + WINDOW_BYTES])

    def feed(self, chunk: Audio) -> list[Event]:
        self.at_s += chunk.seconds
        if not self.listening:
            assert self.wake is not None
            name = self.wake.process(chunk)
            if name is None:
                return []
            self.listen_now()
            return [Woke(name, self.at_s)]
        self._request.append(chunk.pcm)
        events: list[Event] = []
        ended = self.endpoint.process(chunk)
        if self.endpoint.started and not self._was_started:
            self._was_started = True
            events.append(SpeechStarted(self.at_s))
        waited = self.at_s - self._since
        if ended:
            events.append(SpeechEnded(self.at_s, Audio(b"".join(self._request))))
        elif not self.endpoint.started and waited >= self.settings.speech.start_timeout_s:
            events.append(NothingSaid(self.at_s))
        elif waited >= self.settings.limits.max_request_s:
            events.append(TooLong(self.at_s, waited))
        else:
            return events
        self.wait_for_wake_word()
        return events
