"""What a machine client sends and gets back, shared by the HTTP and MQTT front-ends.

A request is JSON ``{"text", "session", "id", "room"}`` (MQTT also takes
plain text). Reading one never raises: it gives an `AskRequest` or a
`BadRequest` with a sentence and the HTTP status that fits. JSON is read
strictly (`wire.loads`: no ``NaN``, no overflowing numbers) and a text holding
a lone surrogate is refused before anything is done. Answers and errors go
back as JSON with the request's ``id`` echoed, so a client that sends many
requests at once can tell the answers apart.
"""

from __future__ import annotations

import hmac
import math
from dataclasses import dataclass, field
from typing import Any

from mnemolis.runtime.answer import Answer
from mnemolis.serve.wire import NotJson, clean_text, dumps_bytes, loads, lone_surrogate

#: JSON types an ``id`` may have (echoed as it came).
Id = str | int | float | None
MAX_ID_CHARS = 200
MAX_ROOM_CHARS = 100


@dataclass(frozen=True)
class AskRequest:
    text: str
    session: str
    id: Id = None
    token: str | None = None
    room: str | None = None
    named_session: bool = False  # the client named its session (else the default was used)
    fields: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)  # all of it


@dataclass(frozen=True)
class BadRequest:
    """Why a request cannot be answered: a short code, a sentence, an HTTP status."""

    code: str
    message: str
    status: int = 400
    id: Id = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": self.message, "code": self.code}
        if self.id is not None:
            out["id"] = self.id
        return out


def read_json_request(
    body: bytes, default_session: str, max_text_chars: int
) -> AskRequest | BadRequest:
    """A JSON body: an object with a non-empty ``text``; ``session`` and ``id`` optional."""
    if not body.strip():
        return BadRequest(
            "empty", 'The request is empty: send JSON like {"text": "what time is it"}'
        )
    try:
        data = loads(body)
    except UnicodeDecodeError:
        return BadRequest("encoding", "The request is not UTF-8 text")
    except NotJson as exc:
        return BadRequest("invalid_json", f"The request is not valid JSON ({exc})")
    if not isinstance(data, dict):
        return BadRequest("invalid_json", 'The request must be a JSON object like {"text": "..."}')
    ident = data.get("id")
    if isinstance(ident, bool) or not isinstance(ident, str | int | float | None):
        return BadRequest("invalid_id", "The id must be a string or a number")
    if isinstance(ident, float) and not math.isfinite(ident):
        return BadRequest("invalid_id", "The id must be a finite number")
    if isinstance(ident, str):
        if len(ident) > MAX_ID_CHARS:
            return BadRequest("invalid_id", f"The id must be at most {MAX_ID_CHARS} characters")
        ident = clean_text(ident)
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        return BadRequest("missing_text", 'The request has no "text" to answer', id=ident)
    if len(text) > max_text_chars:
        return BadRequest(
            "too_long", f"The text is longer than {max_text_chars} characters", 413, ident
        )
    if lone_surrogate(text):
        return BadRequest("encoding", LONE_SURROGATE, id=ident)
    named = "session" in data
    session = data.get("session", default_session)
    if not isinstance(session, str) or not session.strip():
        return BadRequest("invalid_session", "The session must be a non-empty string", id=ident)
    room = data.get("room")
    if room is not None and (not isinstance(room, str) or len(room) > MAX_ROOM_CHARS):
        message = f"The room must be a name of at most {MAX_ROOM_CHARS} characters"
        return BadRequest("invalid_room", message, id=ident)
    token = data.get("token")
    return AskRequest(
        text,
        clean_text(session),
        ident,
        token if isinstance(token, str) else None,
        " ".join(clean_text(room).lower().split()) or None if isinstance(room, str) else None,
        named,
        data,
    )


def read_plain_request(
    body: bytes, default_session: str, max_text_chars: int
) -> AskRequest | BadRequest:
    """Plain UTF-8 text, the whole payload one request."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return BadRequest("encoding", "The request is not UTF-8 text")
    if not text.strip():
        return BadRequest("empty", "The request is empty: send the text to answer")
    if len(text) > max_text_chars:
        return BadRequest("too_long", f"The text is longer than {max_text_chars} characters", 413)
    return AskRequest(text.strip(), default_session)


#: Why a text with a lone surrogate (a JSON ``"\\ud800"`` escape) is refused.
LONE_SURROGATE = (
    "The text holds a lone UTF-16 surrogate (an escape such as \\ud800), which is not a "
    "character; nothing was done"
)


def token_matches(given: str | None, expected: str) -> bool:
    """Constant-time comparison, so the time taken tells nothing about the token."""
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def answer_payload(answer: Answer, session: str, ident: Id = None) -> dict[str, Any]:
    """The answer's structured result, with the session and the request's id."""
    out = answer.to_dict()
    out["session"] = session
    if ident is not None:
        out["id"] = ident
    return out


def to_json(payload: dict[str, Any]) -> bytes:
    """Strict JSON bytes of a reply; never raises (see `wire.dumps_bytes`)."""
    return dumps_bytes(payload)
