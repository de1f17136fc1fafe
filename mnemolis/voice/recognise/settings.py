"""The ``recogniser:`` block of ``sources/voice.yaml``, checked into typed settings.

::

    recogniser:
      engine: pocketsphinx        # the embedded recogniser (a Wyoming URI: another engine)
      model: grammar              # grammar (only the known sentences) or ngram (freer, weaker)
      reject_below: 0.35          # below this, nothing was heard ("not sure what you said")
      free_words: 0               # common English words for free text (0: off; see the docs)
      garbage: 0.05               # the model's share for speech that is no request (0: off)
      min_coverage: 0.7           # words heard over less of the speech than this: no request
      compound: 0.05              # how likely "... and" goes on to another request (0: off)
      names_limit: 2000           # at most this many titles / music names / list items each
      alternatives: 3             # other readings to carry
      pronunciations: pronunciations.yaml   # the owner's, in the configuration directory
      process: false              # decode in a child process (the event loop never waits)

A wrong value names its file and line, as every setting does. When to ask back ("Did
you say ...?") is the assistant's: ``heard.ask_back_below`` in ``sources/assistant.yaml``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from mnemolis.config import At, Config, as_mapping
from mnemolis.voice.recognise.pronounce import PRONUNCIATIONS_FILE

ENGINES = ("pocketsphinx",)
MODELS = ("grammar", "ngram")


@dataclass(frozen=True)
class RecogniserSettings:
    engine: str = "pocketsphinx"
    #: grammar: only the sentences the configuration knows (docs/voice-recogniser.md);
    #: ngram: a class trigram over them, freer and measured far weaker
    model: str = "grammar"
    #: below this confidence the recogniser says it heard nothing sure
    reject_below: float = 0.35
    #: common English words for free text: 0 (off) by default, measured to swallow the
    #: requests in this engine (docs/voice-recogniser.md)
    free_words: int = 0
    #: the share of speech that is no request, heard as garbage words (0: off)
    garbage: float = 0.05
    #: the words heard must lie over at least this share of the loud frames, or the
    #: speech was more than the request heard (`coverage.py`; 0: off)
    min_coverage: float = 0.7
    #: how many common words (none a request uses) speech that is no request is heard as
    garbage_words: int = 300
    names_limit: int = 2000
    alternatives: int = 3
    pronunciations: str = PRONUNCIATIONS_FILE
    #: the language model's back-off mass (higher: more freedom beyond the examples)
    discount: float = 0.2
    #: pocketsphinx's language weight (``lw``)
    language_weight: float = 6.5
    #: the grammar's search beams: wider than pocketsphinx's defaults (1e-48, 7e-29),
    #: which drop the request said in a grammar of a few thousand sentences
    beam: float = 1e-80
    word_beam: float = 1e-60
    #: how likely a pause is between two words (pocketsphinx's ``silprob``, 0.005 by
    #: default): people pause inside a request, synthesised voices do not. 0.2 heard
    #: 19 of the 31 recordings exactly (WER 0.220) where 0.005 heard 17 (0.295), and
    #: lost 3 of 120 espeak-ng renders (bench/RESULTS.md, "The recogniser, stop 33")
    silence_prob: float = 0.2
    #: at most this many HMMs active a frame (pocketsphinx's ``maxhmmpf``, 30000 by
    #: default): 15000 heard the recordings word for word as 30000 did; 10000 and 7000
    #: heard as many exactly but more words wrong, 5000 lost one
    max_hmms: int = 15000
    #: speech shorter than this is no request ("silence")
    min_speech_ms: int = 150
    #: how likely a request goes on to another after "and" ("turn off the lights and
    #: lock the door"), beside ending there (0: one request an utterance)
    compound: float = 0.05
    #: a request heard while it is said waits for this much speech (after what came
    #: before speech started) to take its cepstral mean from, then decodes as it comes;
    #: 0 normalises it by the last requests' mean (measured worse: docs, "Streaming")
    stream_lookahead_s: float = 1.0
    #: decode in a process of its own (`worker`): the event loop reading the microphone
    #: never waits for pocketsphinx, which holds Python's lock while it decodes
    process: bool = False


_RANGES: dict[str, tuple[float, float]] = {
    "reject_below": (0.0, 1.0),
    "free_words": (0, 50000),
    "garbage": (0.0, 0.9),
    "min_coverage": (0.0, 1.0),
    "garbage_words": (0, 5000),
    "names_limit": (0, 100000),
    "alternatives": (0, 20),
    "discount": (0.05, 0.95),
    "language_weight": (1.0, 30.0),
    "min_speech_ms": (0, 5000),
    "beam": (1e-200, 1e-10),
    "word_beam": (1e-200, 1e-10),
    "max_hmms": (100, 100000),
    "silence_prob": (1e-6, 0.9),
    "compound": (0.0, 0.9),
    "stream_lookahead_s": (0.0, 10.0),
}


def load_recogniser_settings(data: Any, at: At) -> RecogniserSettings:
    """The ``recogniser:`` mapping (absent: the defaults)."""
    raw = as_mapping(data, at, "recogniser")
    known = {f.name: f for f in fields(RecogniserSettings)}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        k_at = at / key
        if key == "ask_below":  # it never asked anything back: the assistant does
            raise k_at.error(
                "ask_below is not the recogniser's: the assistant asks back below "
                "heard.ask_back_below in sources/assistant.yaml"
            )
        if key not in known:
            raise k_at.error(f"unknown setting {key!r} (known: {', '.join(sorted(known))})")
        default = getattr(RecogniserSettings(), key)
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise k_at.error(f"{key}: true or false")
            values[key] = value
            continue
        if isinstance(default, str):
            if not isinstance(value, str) or not value.strip():
                raise k_at.error(f"{key}: a non-empty text")
            if key == "engine" and value not in ENGINES:
                raise k_at.error(f"engine: {value!r} is not one of {', '.join(ENGINES)}")
            if key == "model" and value not in MODELS:
                raise k_at.error(f"model: {value!r} is not one of {', '.join(MODELS)}")
            values[key] = value.strip()
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise k_at.error(f"{key}: a number")
        low, high = _RANGES[key]
        if not low <= value <= high:
            raise k_at.error(f"{key}: {value} is not between {low:g} and {high:g}")
        if isinstance(default, int) and not float(value).is_integer():
            raise k_at.error(f"{key}: a whole number")
        values[key] = type(default)(value)
    return RecogniserSettings(**values)


def recogniser_settings(config: Config) -> RecogniserSettings:
    """The settings in the configuration's ``sources/voice.yaml`` (defaults without one)."""
    voice = config.sources.get("voice") or {}
    at = At(config.source_path("voice"))
    return load_recogniser_settings(
        as_mapping(voice, at, "the file").get("recogniser"), at / "recogniser"
    )
