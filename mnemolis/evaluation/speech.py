"""`mnemolis eval` over audio: rows with an ``audio`` path are heard first, and what
was heard is understood and scored like typed text.

Beside the usual figures (intent, entities, values, fully right), the speech
ones: word error rate and exact transcripts against the row's ``text``
(both normalised the way understanding normalises: numbers, contractions,
case), rejections (in-scope rows heard as nothing, and out-of-scope rows
that were), and the latency of each stage (recognise, understand).
"""

from __future__ import annotations

import re
import wave
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mnemolis.config import Config
from mnemolis.core.devices import READ_ACTION, DeviceRegistry
from mnemolis.core.heard import Heard
from mnemolis.evaluation.compare import RowResult
from mnemolis.evaluation.datasets import DataError, Row
from mnemolis.evaluation.metrics import percentile
from mnemolis.voice.recognise.spoken import number_words
from mnemolis.voice.stages import Audio, AudioFormat

_WORDS = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)*")


def read_wav(path: str) -> Audio:
    """A WAV file as it is; the recogniser converts it (any rate, width, channels)."""
    try:
        with wave.open(path, "rb") as w:
            fmt = AudioFormat(w.getframerate(), w.getsampwidth(), w.getnchannels())
            return Audio(w.readframes(w.getnframes()), fmt)
    except (OSError, EOFError, wave.Error) as exc:
        raise DataError(path, None, f"cannot read the audio: {exc}") from None


def hear(rows: Sequence[Row], transcribe: Callable[[Audio], Heard]) -> list[Heard | None]:
    """What was heard of each row with audio (None for a typed row)."""
    return [transcribe(read_wav(row.audio)) if row.audio else None for row in rows]


def words(text: str, normalize: Callable[[str], str]) -> list[str]:
    """The words as scored: normalised as understanding does, numbers in words (the
    normaliser leaves "one hour" as it is and writes "1 hour" in digits)."""
    found = _WORDS.findall(normalize(text).lower()) if text else []
    return [w for t in found for w in (number_words(int(t)) if t.isdecimal() else [t])]


def word_errors(ref: Sequence[str], hyp: Sequence[str]) -> int:
    """Substitutions + deletions + insertions (Levenshtein over words)."""
    prev = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        cur = [i] + [0] * len(hyp)
        for j, h in enumerate(hyp, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r != h))
        prev = cur
    return prev[-1]


@dataclass
class SpeechSummary:
    """What the recogniser did over the rows with audio."""

    rows: int = 0
    words: int = 0
    errors: int = 0
    exact: int = 0
    #: in-scope rows heard as nothing (a request lost) / out-of-scope rows heard as nothing
    rejected_in_scope: int = 0
    rejected_out_of_scope: int = 0
    out_of_scope: int = 0
    #: out-of-scope rows whose heard text acted on a device (the one thing never to do)
    acted_out_of_scope: int = 0
    recognise_p50_ms: float = 0.0
    recognise_p95_ms: float = 0.0
    understand_p50_ms: float = 0.0
    understand_p95_ms: float = 0.0
    heard: list[dict[str, object]] = field(default_factory=list)

    @property
    def wer(self) -> float:
        return self.errors / self.words if self.words else 0.0

    @property
    def exact_rate(self) -> float:
        return self.exact / self.rows if self.rows else 0.0


def _in_scope(row: Row) -> bool:
    return any(p.source is not None or not p.source_known for p in row.parts)


def summarise_speech(
    results: Sequence[RowResult],
    heard: Sequence[Heard | None],
    normalize: Callable[[str], str],
    acts: Callable[[RowResult], bool],
    timing: bool = True,
) -> SpeechSummary:
    s = SpeechSummary()
    recognise: list[float] = []
    understand: list[float] = []
    for result, h in zip(results, heard, strict=True):
        if h is None:
            continue
        row = result.row
        s.rows += 1
        ref, hyp = words(row.text, normalize), words(h.text, normalize)
        errors = word_errors(ref, hyp)
        s.words += len(ref)
        s.errors += errors
        s.exact += errors == 0
        scope = _in_scope(row)
        if not scope:
            s.out_of_scope += 1
            s.acted_out_of_scope += acts(result)
        if not h.text:
            if scope:
                s.rejected_in_scope += 1
            else:
                s.rejected_out_of_scope += 1
        recognise.append(h.ms.get("recognise", 0.0))
        understand.append(result.ms)
        s.heard.append(
            {"line": row.line, "file": row.file, "said": row.text, **h.to_dict(), "errors": errors}
        )
    if timing and recognise:
        s.recognise_p50_ms = percentile(recognise, 50)
        s.recognise_p95_ms = percentile(recognise, 95)
        s.understand_p50_ms = percentile(understand, 50)
        s.understand_p95_ms = percentile(understand, 95)
    return s


def speech_lines(s: SpeechSummary, timing: bool = True) -> list[str]:
    if not s.rows:
        return []
    lines = [
        f"speech: {s.rows} rows with audio",
        f"  word error rate      {s.wer:.3f}  ({s.errors} errors in {s.words} words)",
        f"  exact transcripts    {s.exact_rate:.3f}  ({s.exact}/{s.rows})",
        f"  rejected, in scope   {s.rejected_in_scope}/{s.rows - s.out_of_scope}",
    ]
    if s.out_of_scope:
        lines += [
            f"  rejected, out of scope {s.rejected_out_of_scope}/{s.out_of_scope}",
            f"  out of scope that acted on a device {s.acted_out_of_scope}/{s.out_of_scope}",
        ]
    if timing:
        lines += [
            f"  recognise  p50 {s.recognise_p50_ms:.0f} ms  p95 {s.recognise_p95_ms:.0f} ms",
            f"  understand p50 {s.understand_p50_ms:.2f} ms  p95 {s.understand_p95_ms:.2f} ms",
        ]
    worst = sorted((h for h in s.heard if h["errors"]), key=lambda h: -int(str(h["errors"])))
    for h in worst[:5]:
        heard = repr(h["text"]) if h["text"] else f"nothing ({h['rejected']})"
        lines.append(f"  said {h['said']!r}, heard {heard}")
    return lines


def acts_on_device(config: Config) -> Callable[[RowResult], bool]:
    """Whether a row's plan acts on a device: a part of an intent with a device action
    that changes it (reading a state is no act: a question never acts)."""

    def acts(result: RowResult) -> bool:
        for part in result.predicted:
            spec = config.intent(part.intent)
            if spec is None or spec.source != "mqtt":
                continue
            if spec.action is not None and spec.action != READ_ACTION:
                return True
        return False

    return acts


def recogniser_for(config: Config, registry: DeviceRegistry) -> Callable[[Audio], Heard]:
    """The embedded recogniser for this configuration and home, loaded (compiled or
    from the cache in the state directory), as a synchronous call."""
    from mnemolis.voice.recognise import create_recogniser

    recogniser = create_recogniser(config, registry=registry)
    recogniser.wait_ready()
    return recogniser.transcribe_now
