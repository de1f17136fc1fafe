"""Where a request came from, so that areas, replies and announcements go back there.

Every front-end says it: the CLI (``--room``), HTTP and MQTT (a ``"room"``
field), Hermes (``siteId``, mapped to an area in `sources/serve.yaml`) and
Wyoming (the satellite's context). Understanding reads ``room`` for "the
lights" and "in here"; a timer set from the kitchen rings in the kitchen.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Origin:
    """The requester: front-end, session, area and site."""

    front_end: str = "cli"  # cli | chat | demo | http | mqtt | hermes | wyoming | scheduler
    session: str = "default"
    room: str | None = None  # the area the request was spoken in, when known
    site: str | None = None  # Hermes siteId, Wyoming satellite, MQTT client id

    def with_room(self, room: str | None) -> Origin:
        return replace(self, room=room)

    def to_dict(self) -> dict[str, Any]:
        return {
            "front_end": self.front_end,
            "session": self.session,
            "room": self.room,
            "site": self.site,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Origin:
        def text(key: str) -> str | None:
            value = data.get(key)
            return str(value) if value is not None else None

        return cls(
            front_end=str(data.get("front_end") or "cli"),
            session=str(data.get("session") or "default"),
            room=text("room"),
            site=text("site"),
        )
