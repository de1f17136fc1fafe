"""One reply from many part answers: in the order asked, short enough to be spoken.

Each step says its own sentences (a conditional says one for the whole
block). The reply keeps them in the order the person asked, says a fact
only once even when two parts found it, capitalises every sentence, and
stays under `max_chars`: every step's first sentence is kept before any
step's second, and whenever a sentence is left out (a long routine's reply
as much as a compound request's) the reply ends by saying there is more.
The structured result keeps everything regardless.
"""

from __future__ import annotations

from collections.abc import Sequence

from mnemolis.core.sentences import as_sentence, fact_key, split_sentences
from mnemolis.runtime.answer import Answer, StepResult
from mnemolis.runtime.settings import AssistantSettings


def _fits(chosen: list[list[str]], extra: str, limit: int) -> bool:
    used = sum(len(s) + 1 for step in chosen for s in step)
    return used + len(extra) <= limit


def spoken(steps: Sequence[StepResult], max_chars: int, truncated: str) -> str:
    """The reply to say: each step's sentences in order, each fact once, within ``max_chars``."""
    seen: set[str] = set()
    per_step: list[list[str]] = []
    for step in steps:
        sentences = []
        for sentence in split_sentences(step.text):
            key = fact_key(sentence)
            if key and key not in seen:
                seen.add(key)
                sentences.append(as_sentence(sentence))
        per_step.append(sentences)
    if sum(len(s) + 1 for step in per_step for s in step) <= max_chars:
        return " ".join(s for step in per_step for s in step)
    more = as_sentence(truncated)  # something is left out, and the reply says so
    budget = max_chars - len(more) - 1
    chosen: list[list[str]] = [[] for _ in per_step]
    for i, sentences in enumerate(per_step):  # first every step's first sentence ...
        if sentences and _fits(chosen, sentences[0], budget):
            chosen[i].append(sentences[0])
    for i, sentences in enumerate(per_step):  # ... then more of each, in order
        if not chosen[i]:
            continue
        for sentence in sentences[1:]:
            if not _fits(chosen, sentence, budget):
                break
            chosen[i].append(sentence)
    return " ".join([*(s for step in chosen for s in step), more])


def merge(
    query: str,
    steps: Sequence[StepResult],
    settings: AssistantSettings,
    ms: float = 0.0,
    notes: Sequence[str] = (),
    session: str = "default",
    empty: str = "",
) -> Answer:
    """The `Answer` for ``query``: the spoken reply and every part's result."""
    text = spoken(steps, settings.max_chars, settings.replies.say("truncated"))
    return Answer(
        query=query,
        text=text or as_sentence(empty),
        parts=[part for step in steps for part in step.parts],
        ms=ms,
        notes=list(notes),
        session=session,
    )
