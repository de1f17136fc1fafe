"""Whose conversation: each front-end keys its clients' sessions by its own name.

A client names a session ("kitchen"); the daemon keeps it as
``<front-end>:kitchen`` (`runtime.conversation.scoped`), so the same name on
MQTT and on HTTP are two conversations, and no request can reach a Hermes
site's or a Wyoming satellite's conversation by naming it. The keys:

* HTTP on TCP: ``http:<session>`` (``http:http`` when none is named);
  on the CLI's unix socket: ``local:<session>``;
* MQTT: ``mqtt:<session>``, ``mqtt:mqtt:<response topic>``, ``mqtt:mqtt``;
* Hermes: ``hermes:<siteId>`` (its confirmations bound to the ``sessionId``);
* Wyoming: ``wyoming:conversation:<id>``, ``wyoming:satellite:<id>``,
  ``wyoming:device:<id>``, else ``wyoming:connection:<random>``.

Timers, lists and routines keep the key, so "cancel that" and a paused
routine's yes stay in the conversation that set them. What goes back to a
client (an answer's ``session``, an announcement's) is the session as its
client named it (`as_named`); the announcement's ``front_end`` says whose.
"""

from __future__ import annotations

from typing import Any

from mnemolis.core.announce import Announcement, TimerNotice
from mnemolis.runtime.conversation import SCOPE, scoped

HTTP = "http"
LOCAL = "local"  # the CLI's unix socket
MQTT = "mqtt"
HERMES = "hermes"
WYOMING = "wyoming"
NAMESPACES = frozenset({HTTP, LOCAL, MQTT, HERMES, WYOMING})


def as_named(key: str) -> str:
    """The session as its client named it: a key without its front-end's name (any
    other session as it is)."""
    namespace, separator, named = key.partition(SCOPE)
    return named if separator and namespace in NAMESPACES else key


def announcement_payload(announcement: Announcement | TimerNotice) -> dict[str, Any]:
    """An announcement (or a timer's silent notice) as a client reads it: ``{"text",
    "kind", "id", "session", ...}`` with the session as its requester named it."""
    payload = announcement.to_dict()
    payload["session"] = as_named(announcement.origin.session)
    return payload


__all__ = ["HERMES", "HTTP", "LOCAL", "MQTT", "WYOMING", "as_named", "scoped"]
