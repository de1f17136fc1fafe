"""One pocketsphinx decoder over a compiled model: PCM in, the words it heard out,
each with its class (when it was a name or a value) and its posterior.

Not thread-safe (pocketsphinx is not): the recogniser serialises calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

import pocketsphinx

from mnemolis.voice.recognise.general import model_path
from mnemolis.voice.recognise.grammar import GRAMMAR
from mnemolis.voice.recognise.model import CONTROL, DICTIONARY, LM_NAME, ModelInfo
from mnemolis.voice.recognise.settings import RecogniserSettings

ACOUSTIC_MODEL = "en-us/en-us"
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
    speech_frames: int = 0


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
            "loglevel": "FATAL",
        }
        if self.grammar:
            # a grammar's lattice pass (bestpath) picks paths the grammar does not allow
            self.decoder = pocketsphinx.Decoder(
                **common,
                lm=None,
                fsg=str(folder / GRAMMAR),
                bestpath=False,
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

    def _word(self, token: str) -> tuple[str, str]:
        token = token.split("(", 1)[0]  # "word(2)": its second pronunciation
        member = self.info.members.get(token)
        if member is not None:
            return member[1], member[0]
        return token, ""

    def decode(self, pcm: bytes, nbest: int = 0) -> Decoded:
        d = self.decoder
        d.start_utt()
        d.process_raw(pcm, full_utt=True)
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
