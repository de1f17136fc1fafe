"""Whether a compiled grammar can say a sentence at all: a grammar hears only its
sentences, so the share of a home's requests it can say is the ceiling of what speech
gets right (`bench/recogniser.py --sections sayable`), and a sentence it cannot say is
one to add to `data/sentences.yaml` or to the owner's examples."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from mnemolis.voice.recognise.grammar import GRAMMAR
from mnemolis.voice.recognise.vocabulary import GARBAGE


@dataclass
class Fsg:
    """A compiled grammar read back: transitions by state (``""``: no word)."""

    start: int = 0
    final: int = 0
    arcs: dict[int, list[tuple[int, tuple[str, ...]]]] = field(
        default_factory=lambda: defaultdict(list)
    )

    @classmethod
    def read(cls, folder: Path) -> Fsg:
        fsg = cls()
        for line in (folder / GRAMMAR).read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "START_STATE":
                fsg.start = int(parts[1])
            elif parts[0] == "FINAL_STATE":
                fsg.final = int(parts[1])
            elif parts[0] == "TRANSITION":
                token = parts[4] if len(parts) > 4 else ""
                if not token.startswith(f"{GARBAGE}:"):  # speech that is no request
                    fsg.arcs[int(parts[1])].append((int(parts[2]), _words(token)))
        return fsg

    def says(self, words: list[str]) -> bool:
        """Whether some way from the start to the end says exactly ``words``."""
        seen: set[tuple[int, int]] = set()
        todo = [(self.start, 0)]
        while todo:
            state, i = todo.pop()
            if (state, i) in seen:
                continue
            seen.add((state, i))
            if state == self.final and i == len(words):
                return True
            for nxt, said in self.arcs.get(state, ()):
                if words[i : i + len(said)] == list(said):
                    todo.append((nxt, i + len(said)))
        return False


def _words(token: str) -> tuple[str, ...]:
    """A transition's words: a class member (``device:kitchen_light``) says its name's."""
    if not token:
        return ()
    token = token.split("(", 1)[0]
    if ":" in token:
        return tuple(token.split(":", 1)[1].split("_"))
    return (token,)
