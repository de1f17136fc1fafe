"""One pocketsphinx decoder over a compiled model: PCM in, the words it heard out,
each with its class (when it was a name or a value) and its posterior.

Not thread-safe (pocketsphinx is not): the recogniser serialises calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Protocol

import pocketsphinx

from mnemolis.voice.recognise.coverage import FrameEnergy, covered
from mnemolis.voice.recognise.general import model_path
from mnemolis.voice.recognise.grammar import GRAMMAR
from mnemolis.voice.recognise.model import CONTROL, DICTIONARY, LM_NAME, ModelInfo
from mnemolis.voice.recognise.settings import RecogniserSettings

ACOUSTIC_MODEL = "en-us/en-us"
#: A keyword search used only to measure a request's cepstral mean (`start`): it costs
#: next to nothing, where the grammar's search would decode the frames once more.
PROBE = "cepstral_mean_probe"
#: A stream is decoded this much at a time (0.1 s of 16 kHz 16-bit).
FEED_BYTES = 3200
#: Words the decoder puts in for silence and noise.
_FILLERS = ("<s>", "</s>", "<sil>", "(NULL)")


@dataclass(frozen=True)
class Word:
    """A word heard: its text, the class it belongs to ("" for a plain word)."""

    text: str
    cls: str
    posterior: float
    start: int = 0  # frames (10 ms)
    end: int = 0


@dataclass
class Decoded:
    words: list[Word] = field(default_factory=list)
    #: whole readings, best first: each a list of (text, class)
    nbest: list[list[tuple[str, str]]] = field(default_factory=list)
    frames: int = 0
    #: the share of the loud frames inside the words heard (`coverage.covered`)
    covered: float = 1.0


class Decoding(Protocol):
    """A decoder over a compiled model: `ModelDecoder`, or `worker.ProcessDecoder`."""

    info: ModelInfo

    def decode(self, pcm: bytes, nbest: int = 0) -> Decoded: ...
    def start(self, head: bytes) -> None: ...
    def feed(self, pcm: bytes) -> None: ...
    def end(self, nbest: int = 0) -> Decoded: ...
    def alive(self) -> bool: ...
    def close(self) -> None: ...


class ModelDecoder:
    """pocketsphinx loaded with the compiled model (0.1 s: the dictionary is cut)."""

    def __init__(
        self, folder: Path, info: ModelInfo, settings: RecogniserSettings | None = None
    ) -> None:
        settings = settings or RecogniserSettings()
        self.info = info
        self.grammar = (folder / GRAMMAR).is_file()
        common: dict[str, object] = {
            "hmm": str(model_path(ACOUSTIC_MODEL)),
            "dict": str(folder / DICTIONARY),
            "lw": settings.language_weight,
            "silprob": settings.silence_prob,
            "loglevel": "FATAL",
        }
        if self.grammar:
            # a grammar's lattice pass (bestpath) picks paths the grammar does not allow
            self.decoder = pocketsphinx.Decoder(
                **common,
                lm=None,
                fsg=str(folder / GRAMMAR),
                bestpath=False,
                # written into the grammar when it was built (`loadable`): pocketsphinx's
                # own pass scans every transition once per such word
                fsgusealtpron=not info.alternates,
                beam=settings.beam,
                pbeam=settings.beam,
                wbeam=settings.word_beam,
                maxhmmpf=settings.max_hmms,
            )
        else:
            self.decoder = pocketsphinx.Decoder(
                **common,
                lm=None,
                lmctl=str(folder / CONTROL),
                lmname=LM_NAME,
                # the second (flat) pass lets the class model's many members outscore
                # the request that was said, and doubles the time: the tree pass and
                # the lattice (posteriors, n-best) are enough
                fwdflat=False,
            )
        self.search = self.decoder.current_search()
        self.energy = FrameEnergy()  # the request's frames, to tell how much words cover
        self.decoder.add_keyphrase(PROBE, _any_word(folder / DICTIONARY))

    def alive(self) -> bool:
        return True

    def close(self) -> None:
        """Nothing to stop: pocketsphinx frees it with the object."""

    def _word(self, token: str) -> tuple[str, str]:
        token = token.split("(", 1)[0]  # "word(2)": its second pronunciation
        member = self.info.members.get(token)
        if member is not None:
            return member[1], member[0]
        return token, ""

    def decode(self, pcm: bytes, nbest: int = 0) -> Decoded:
        """One whole request at once: its cepstral mean is its own (batch)."""
        self.decoder.reinit_feat()  # a stream leaves the features in live mode
        self.energy = FrameEnergy()
        self.energy.add(pcm)
        self.decoder.start_utt()
        self.decoder.process_raw(pcm, full_utt=True)
        return self.end(nbest)

    def start(self, head: bytes) -> None:
        """A request that will come in pieces (`feed` them from its start, then `end`),
        normalised by the cepstral mean of ``head``, its beginning.

        A whole request is normalised by its own mean; pieces are normalised live, by a
        mean fixed before they come (pocketsphinx's `cmn live`), by default the last
        requests' running mean. Recordings differ in level (the mean's first term, the
        log energy, went from 59 to 69 over the recorded set) and that lost 5 of 16
        recorded requests heard right; the mean of the request's own first second kept
        all but 2 or 3 (docs/voice-recogniser.md, "Streaming")."""
        d = self.decoder
        d.activate_search(PROBE)
        d.reinit_feat()  # batch: the mean of exactly these frames
        d.start_utt()
        d.process_raw(head, no_search=True, full_utt=True)
        mean = d.get_cmn()
        d.end_utt()
        d.activate_search(self.search)
        d.set_cmn(mean)
        self.energy = FrameEnergy()
        d.start_utt()

    def feed(self, pcm: bytes) -> None:
        """Search the frames of this piece now, so that little is left at the end: 0.1 s
        at a time, since pocketsphinx holds Python's lock while it decodes, and the event
        loop reading the microphone waits for it."""
        self.energy.add(pcm)
        for start in range(0, len(pcm), FEED_BYTES):
            self.decoder.process_raw(
                pcm[start : start + FEED_BYTES], no_search=False, full_utt=False
            )

    def end(self, nbest: int = 0) -> Decoded:
        """The request is over: the last frames, and what was heard."""
        d = self.decoder
        d.end_utt()
        out = Decoded(frames=d.n_frames())
        if d.hyp() is None:
            return out
        for seg in d.seg():
            token = seg.word
            if not token or token in _FILLERS or token.startswith(("[", "+")):
                continue
            text, cls = self._word(token)
            out.words.append(Word(text, cls, float(seg.prob), seg.start_frame, seg.end_frame))
        out.covered = covered(self.energy.db(), ((w.start, w.end) for w in out.words))
        if nbest and not self.grammar:  # a grammar's lattice n-best takes minutes
            seen: set[str] = set()
            for hyp in islice(d.nbest(), nbest * 8):
                if hyp is None or not hyp.hypstr:
                    continue
                reading = [self._word(t) for t in hyp.hypstr.split() if t not in _FILLERS]
                key = " ".join(t for t, _ in reading)
                if key and key not in seen:
                    seen.add(key)
                    out.nbest.append(reading)
                if len(out.nbest) > nbest:
                    break
        return out


def _any_word(dictionary: Path) -> str:
    """A word the dictionary has (the probe's keyword; it is never reported)."""
    with dictionary.open(encoding="utf-8") as lines:
        for line in lines:
            if line.split():
                return line.split()[0]
    raise ValueError(f"{dictionary} is empty")
