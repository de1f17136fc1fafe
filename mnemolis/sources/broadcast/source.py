"""Says a message now, to the whole house or to one area, through the `Announcer`.

The message is what was said (the ``broadcast_message`` slot) and only ever a
payload: the front-ends put it in the JSON of ``mnemolis/say``, the text of
``hermes/tts/say`` and the ``/events`` stream, never in a topic. Where it is
said is the announcement's ``origin.room`` (None: every area), so the daemon's
router (`serve.announcements`) needs no other field.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from typing import Any

from mnemolis.config import At, Config, ConfigError, as_mapping
from mnemolis.config.bundled import bundled_source_yaml, fill, merged
from mnemolis.core.announce import Announcement, Announcer
from mnemolis.core.origin import Origin
from mnemolis.core.plan import Part
from mnemolis.sources.base import Evaluation, Finding, Level, PartAnswer, Request, Status, Truth

log = logging.getLogger(__name__)

SOURCE = "broadcast"
KIND = "broadcast"
MESSAGE = "broadcast_message"


@dataclass(frozen=True)
class BroadcastSettings:
    """`sources/broadcast.yaml`: the longest message, and the sentences said."""

    max_chars: int = 300
    replies: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_config(cls, config: Config) -> BroadcastSettings:
        at = At(config.root / "sources" / f"{SOURCE}.yaml")
        raw = as_mapping(config.sources.get(SOURCE), at, "the file")
        defaults = bundled_source_yaml(SOURCE)
        limit = raw.get("max_chars", defaults.get("max_chars", 300))
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 10_000:
            raise (at / "max_chars").error(f"max_chars must be from 1 to 10000, not {limit!r}")
        replies = merged(raw.get("replies"), defaults.get("replies") or {})
        if not isinstance(replies, dict):
            raise (at / "replies").error("replies must be a mapping")
        return cls(max_chars=limit, replies={str(k): str(v) for k, v in replies.items()})


class BroadcastSource:
    """Implements `Source` and `Diagnosable`."""

    name = SOURCE

    def __init__(self, config: Config, announcer: Announcer, one_shot: bool = False) -> None:
        self.announcer = announcer
        self.one_shot = one_shot
        self.problem: str | None = None
        self.settings = BroadcastSettings()
        try:
            self.settings = BroadcastSettings.from_config(config)
        except ConfigError as exc:
            self.problem = str(exc)
            log.error("the broadcast source is misconfigured: %s", exc)

    async def start(self) -> None:
        """Nothing to open: the announcer is the daemon's (or the chat's)."""

    async def close(self) -> None:
        """Nothing kept: a broadcast is said at once."""

    def reply(self, key: str, status: Status, data: dict[str, Any], **fields: Any) -> PartAnswer:
        text = fill(self.settings.replies.get(key, key), **fields)
        return PartAnswer(text, status, SOURCE, data)

    async def answer(self, part: Part, request: Request) -> PartAnswer:
        message = " ".join(str(part.slots.get(MESSAGE) or "").split())
        room = part.slots.get("room")
        area = room if isinstance(room, str) and room else None
        if self.problem is not None:
            return PartAnswer(self.problem, Status.ERROR, SOURCE, {"reason": "config"})
        if not message:
            return self.reply("no_message", Status.DECLINED, {"reason": "no_message"})
        limit = self.settings.max_chars
        if len(message) > limit:
            return self.reply("too_long", Status.DECLINED, {"reason": "too_long"}, limit=limit)
        if self.one_shot:  # nothing outlives `mnemolis ask` to say it through
            key = "one_shot_demo" if request.origin.front_end == "demo" else "one_shot"
            return self.reply(key, Status.DECLINED, {"reason": "one_shot"})
        said = Announcement(
            text=message,
            kind=KIND,
            id=f"broadcast-{uuid.uuid4().hex[:12]}",
            origin=Origin(front_end=SOURCE, session=request.origin.session, room=area),
            data={"area": area, "from_room": request.origin.room},
        )
        data: dict[str, Any] = {"message": message, "area": area, "id": said.id}
        if not self.announcer.announce(said):
            return self.reply(
                "unheard", Status.ERROR, {**data, "reason": "unheard"}, message=message
            )
        if area is None:
            return self.reply("done_everywhere", Status.DONE, data, message=message)
        spoken = area.replace("_", " ")
        return self.reply("done_area", Status.DONE, data, message=message, area=spoken)

    async def evaluate(self, part: Part, request: Request) -> Evaluation:
        return Evaluation(Truth.UNKNOWN, "A broadcast is not a condition")

    async def diagnose(self) -> list[Finding]:
        if self.problem is not None:
            return [Finding(SOURCE, Level.BROKEN, self.problem, "fix sources/broadcast.yaml")]
        return [Finding(SOURCE, Level.OK, f"{self.announcer.listening} announcement listeners")]
