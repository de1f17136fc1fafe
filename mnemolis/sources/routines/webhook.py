"""A routine's `call:` step: one HTTP request to a webhook written in YAML.

Home Assistant webhooks (``POST /api/webhook/<id>``) and Node-RED ``http in``
nodes take a JSON body and answer 200; anything else than a 2xx answer, a
refused connection or a deadline passed is a failed step with the reason. The
address is always the configured one, never built from what was said. The
standard library's client runs in a thread, under the step's deadline.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

USER_AGENT = "mnemolis-routine/1"


@dataclass(frozen=True)
class WebhookAnswer:
    ok: bool
    status: int | None  # the HTTP status, None when no answer came
    reason: str  # "" when ok, else what went wrong
    body: str = ""  # the start of what the webhook answered


def _request(
    url: str, method: str, body: bytes | None, headers: dict[str, str], timeout_s: float, limit: int
) -> WebhookAnswer:
    request = urllib.request.Request(url, data=body, method=method)
    request.add_header("User-Agent", USER_AGENT)
    for name, value in headers.items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            text = response.read(limit).decode("utf-8", "replace")
            return WebhookAnswer(True, response.status, "", text)
    except urllib.error.HTTPError as exc:
        return WebhookAnswer(False, exc.code, f"HTTP {exc.code} {exc.reason}")
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError):
            return WebhookAnswer(False, None, f"no answer within {timeout_s:g} s")
        text = getattr(reason, "strerror", None) or str(reason)
        return WebhookAnswer(False, None, str(text).lower())
    except TimeoutError:
        return WebhookAnswer(False, None, f"no answer within {timeout_s:g} s")
    except (OSError, ValueError) as exc:
        return WebhookAnswer(False, None, str(exc) or type(exc).__name__)


async def call_webhook(
    url: str,
    method: str,
    payload: Any,
    body: str | None,
    headers: dict[str, str],
    timeout_s: float,
    limit: int = 65536,
) -> WebhookAnswer:
    """Send the request within ``timeout_s``; never raises for a webhook that fails."""
    data: bytes | None = None
    sent = dict(headers)
    if payload is not None:
        data = json.dumps(payload, ensure_ascii=False).encode()
        sent.setdefault("Content-Type", "application/json")
    elif body is not None:
        data = body.encode()
        sent.setdefault("Content-Type", "text/plain; charset=utf-8")
    elif method in ("POST", "PUT", "PATCH"):
        data = b""
    try:
        return await asyncio.wait_for(
            asyncio.to_thread(_request, url, method, data, sent, timeout_s, limit),
            timeout_s + 0.5,
        )
    except TimeoutError:
        return WebhookAnswer(False, None, f"no answer within {timeout_s:g} s")
