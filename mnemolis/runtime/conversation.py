"""Conversations: what one person's session remembers between turns.

A conversation holds understanding's `Context` (last devices, intents, and
the part waiting for the answer to a clarifying question), the actions
waiting for a yes ("Do you want me to unlock the front door?") and when each
was asked, so an old question expires. Conversations are keyed by session
id, forgotten after `session_idle_s` without a turn, and bounded in number.
Each has its own lock: turns of one session run one after the other, turns
of different sessions run concurrently.

Whose conversation it is. A daemon's front-ends key every session by their
own name (`scoped`: ``mqtt:kitchen``, ``hermes:kitchen-pi``), so a client of
one front-end can never name, continue or confirm in another's conversation,
whatever session it names. Within a key several clients may take turns (a
Hermes site, plain-text MQTT); each turn says which client takes it
(`Conversation.turn_of`), and the actions waiting for a yes that another
client asked are dropped: a yes counts only from the client that was asked.
"""

from __future__ import annotations

import asyncio
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from mnemolis.core.plan import Part
from mnemolis.runtime.doubt import Doubted
from mnemolis.runtime.settings import AssistantSettings
from mnemolis.understand.context import Context

_WORDS = re.compile(r"[\w']+")
#: Between a front-end's name and the session its client named.
SCOPE = ":"


def scoped(front_end: str, session: str) -> str:
    """The key of ``session`` as named on ``front_end``: ``front_end:session``. One
    key per pair (front-end names hold no ``:``), and no client of one front-end can
    write another's."""
    if not front_end or SCOPE in front_end:
        raise ValueError(f"a front-end name without {SCOPE!r}, not {front_end!r}")
    return f"{front_end}{SCOPE}{session}"


@dataclass
class Waiting:
    """An action a source will carry out only after a yes."""

    part: Part
    asked_at: float


@dataclass
class Conversation:
    session: str
    last_turn: float
    context: Context = field(default_factory=Context)
    waiting: list[Waiting] = field(default_factory=list)
    doubted: Doubted | None = None  # a plan heard with doubt, asked back ("Did you say ...?")
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    client: str | None = None  # who took the last turn (see the module's docstring)

    def take_waiting(self) -> list[Waiting]:
        waiting, self.waiting = self.waiting, []
        return waiting

    def turn_of(self, client: str) -> list[Waiting]:
        """``client`` takes this turn: the actions another client left waiting for a yes
        are dropped, and returned (none when the last turn was its own), and so is a
        plan it was asked back about ("Did you say ...?")."""
        last, self.client = self.client, client
        if last == client:
            return []
        self.doubted = None
        return self.take_waiting()


class Conversations:
    """Every live conversation, by session id."""

    def __init__(self, settings: AssistantSettings, clock: Callable[[], float]) -> None:
        self.settings = settings
        self.clock = clock
        self._live: OrderedDict[str, Conversation] = OrderedDict()

    def __len__(self) -> int:
        return len(self._live)

    def get(self, session: str) -> Conversation:
        """The session's conversation, a new one when it was idle too long or never seen."""
        now = self.clock()
        self._expire(now)
        conversation = self._live.get(session)
        if conversation is None:
            conversation = Conversation(session, now)
            self._live[session] = conversation
            while len(self._live) > self.settings.max_sessions:
                self._live.popitem(last=False)
        self._live.move_to_end(session)
        conversation.last_turn = now
        return conversation

    def forget(self, session: str) -> None:
        self._live.pop(session, None)

    def _expire(self, now: float) -> None:
        idle = self.settings.session_idle_s
        while self._live:
            oldest = next(iter(self._live.values()))
            if now - oldest.last_turn <= idle or oldest.lock.locked():
                break
            self._live.popitem(last=False)

    def expired(self, waiting: Waiting | Doubted) -> bool:
        return self.clock() - waiting.asked_at > self.settings.confirm_expiry_s


class YesNo:
    """Reads a turn made only of yes words ("yeah, go ahead") or only of no words."""

    def __init__(self, yes_words: Iterable[str], no_words: Iterable[str]) -> None:
        self.phrases: dict[tuple[str, ...], bool] = {}
        for words, meaning in ((yes_words, True), (no_words, False)):
            for phrase in words:
                key = tuple(_WORDS.findall(phrase.lower()))
                if key:
                    self.phrases[key] = meaning
        self.longest = max((len(k) for k in self.phrases), default=0)

    def read(self, text: str) -> bool | None:
        """True for yes, False for no, None for anything else (a new request)."""
        words = _WORDS.findall(text.lower())
        meanings: set[bool] = set()
        i = 0
        while i < len(words):
            for size in range(min(self.longest, len(words) - i), 0, -1):
                meaning = self.phrases.get(tuple(words[i : i + size]))
                if meaning is not None:
                    meanings.add(meaning)
                    i += size
                    break
            else:
                return None
        return meanings.pop() if len(meanings) == 1 else None
