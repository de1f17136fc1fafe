"""The music source: the house's own players, over the MPD protocol.

A part goes to the player of the area it names, else to the player of the
area it was spoken in (`Request.origin.room`), else to the first player; the
command is carried out and checked on the player's own status
(`commands`). A player that is down, or that refuses, is an answer with an
error status and a sentence saying so, never an exception. The library's
names that hold a conjunction ("Simon & Garfunkel") are offered to
understanding (`NameSource`), so "play simon and garfunkel and turn off the
lights" splits only once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mnemolis.config import Config, ConfigError
from mnemolis.core.devices import DeviceRegistry
from mnemolis.core.plan import Part
from mnemolis.sources.base import Evaluation, Finding, PartAnswer, Request, Status, Truth
from mnemolis.sources.music.commands import COMMANDS, Reply, Turn
from mnemolis.sources.music.library import Library
from mnemolis.sources.music.mpd_link import MpdLink, PlayerDown, PlayerRefused
from mnemolis.sources.music.muted import MuteMemory
from mnemolis.sources.music.request import spoken_words, strip_area
from mnemolis.sources.music.settings import MusicSettings, PlayerSettings, load_music_settings

log = logging.getLogger(__name__)

SOURCE = "music"
#: How long start-up waits for each player's names (a down player must not delay it).
START_NAMES_S = 1.0


class MusicSource:
    name = SOURCE

    def __init__(
        self,
        config: Config,
        registry: DeviceRegistry,
        state_dir: Path,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.registry = registry
        self.problem: str | None = None
        self.settings: MusicSettings | None = None
        try:
            self.settings = load_music_settings(config, environ)
        except ConfigError as exc:
            self.problem = str(exc)
        players = self.settings.players if self.settings else ()
        timeout = self.settings.timeout_s if self.settings else 3.0
        cutoff = self.settings.match_cutoff if self.settings else 82.0
        self.links = {p.name: MpdLink(p, timeout) for p in players}
        self.libraries = {p.name: Library(cutoff) for p in players}
        self.muted = MuteMemory(state_dir)
        self._protected: set[str] = set()
        self._versions: list[int] = []  # of the libraries the protected names come from
        known = registry.rooms()
        for area in self.settings.areas if self.settings else []:
            if area not in known:  # "in the studio": an area only a player is in is a room too
                registry.add_room(area)

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        """Read each player's names for understanding; a player that is down is skipped."""

        async def names(player: str) -> None:
            try:
                await asyncio.wait_for(
                    self.links[player].call(self.libraries[player].refresh), START_NAMES_S
                )
            except (PlayerDown, PlayerRefused, TimeoutError) as exc:
                log.info("music: the %s player's names are not read yet (%s)", player, exc)

        await asyncio.gather(*(names(p) for p in self.links))
        self._update_protected()

    async def close(self) -> None:
        for link in self.links.values():
            await asyncio.to_thread(link.close)

    def is_name(self, text: str) -> bool:
        """A library name with a conjunction in it ("simon and garfunkel")."""
        return text in self._protected

    def _update_protected(self) -> None:
        versions = [library.version for library in self.libraries.values()]
        if versions == self._versions:
            return
        self._versions = versions
        names: set[str] = set()
        for library in self.libraries.values():
            names |= library.protected()
        self._protected = names

    # ------------------------------------------------------------------ answering

    def _reply(
        self, text: str, status: Status, data: dict[str, Any] | None = None, **prov: Any
    ) -> PartAnswer:
        return PartAnswer(text, status, SOURCE, data or {}, dict(prov))

    def areas(self) -> list[str]:
        """Every spoken name of an area: the registry's rooms and aliases, the players'."""
        forms: set[str] = set()
        for room, aliases in self.registry.rooms().items():
            forms.update((room, *aliases))
        if self.settings:
            forms.update(self.settings.areas)
        return sorted(forms)

    def player_for(self, part: Part, request: Request) -> PlayerSettings | str:
        """The player meant, or the key of the reason there is none."""
        assert self.settings is not None
        if not self.settings.players:
            return "no_player"
        room = part.slots.get("room")
        if isinstance(room, str) and self._names_area(part):
            return self.settings.player_for(room) or "no_player_in"
        return self.settings.player_for(request.room) or self.settings.players[0]

    def _names_area(self, part: Part) -> bool:
        """A room slot counts as the place to play unless it is part of what to play: "play
        hall and oates" names a band, "play jazz in the hall" a room."""
        if part.intent != "music.play" or self.settings is None:
            return True
        words = spoken_words(part.text)
        return strip_area(words, self.areas(), self.settings.words) != words

    async def answer(self, part: Part, request: Request) -> PartAnswer:
        if self.settings is None:
            return self._reply(f"the music source is not set up: {self.problem}", Status.ERROR)
        replies = self.settings.replies
        command = COMMANDS.get(part.intent or "")
        if command is None:
            return self._reply(f"the music source does not know {part.intent}", Status.ERROR)
        player = self.player_for(part, request)
        if player == "no_player":
            return self._reply(
                replies.say("no_player"), Status.OUT_OF_SCOPE, {"reason": "no_player"}
            )
        if isinstance(player, str):
            named = [f"in the {p.areas[0] if p.areas else p.name}" for p in self.settings.players]
            text = replies.say(
                "no_player_in", area=part.slots.get("room"), players=replies.names(named)
            )
            return self._reply(
                text, Status.ERROR, {"reason": player, "room": part.slots.get("room")}
            )
        turn = Turn(
            part, player, self.settings, self.libraries[player.name], self.muted, self.areas()
        )
        link = self.links[player.name]
        prov = {"player": player.name, "address": player.address}
        data: dict[str, Any] = {"player": player.name}
        try:
            reply: Reply = await link.call(lambda client: command(client, turn))
        except PlayerDown as exc:
            text = replies.say(
                "down", player=player.name, address=player.address, reason=exc.reason
            )
            return self._reply(text, Status.ERROR, {**data, "reason": exc.reason}, **prov)
        except PlayerRefused as exc:
            text = replies.say("refused", player=player.name, reason=exc.reason)
            return self._reply(
                text, Status.ERROR, {**data, "reason": exc.reason, "code": exc.code}, **prov
            )
        self._update_protected()
        data.update(reply.data)
        if reply.after is not None:
            data.update(reply.after.to_dict())
            prov["confirmed_by"] = "mpd status"
        return self._reply(reply.text, reply.status, data, **prov)

    async def evaluate(self, part: Part, request: Request) -> Evaluation:
        """ "if the music is playing ...": true while the player plays."""
        answer = await self.answer(
            Part(part.text, "music.state", SOURCE, dict(part.slots)), request
        )
        if answer.status is not Status.OK:
            return Evaluation(Truth.UNKNOWN, answer.text, answer.data)
        truth = Truth.TRUE if answer.data.get("state") == "play" else Truth.FALSE
        return Evaluation(truth, answer.text, answer.data)

    async def diagnose(self) -> list[Finding]:
        from mnemolis.sources.music.doctor import diagnose

        return await diagnose(self)
