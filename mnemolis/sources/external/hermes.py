"""Rhasspy's Hermes intent message: what `hermes/intent/<intentName>` carries.

The shape is rhasspy-hermes' ``NluIntent`` (``rhasspyhermes/nlu.py`` and
``intent.py``, Rhasspy 2.5): ``input``, ``intent`` with ``intentName`` and
``confidenceScore``, ``slots`` (each ``entity``, ``slotName``, ``rawValue``,
``value`` as ``{"kind", "value"}``, ``confidence``), ``siteId``,
``sessionId``, plus the optional ``id``, ``customData``, ``asrTokens``,
``asrConfidence``, ``rawInput``, ``wakewordId`` and ``lang``. Rhasspy apps and
Node-RED flows written for Rhasspy read it as it is.
"""

from __future__ import annotations

from typing import Any


def _slot(name: str, value: Any) -> dict[str, Any]:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    shown = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
    return {
        "entity": name,
        "slotName": name,
        "rawValue": shown,
        "value": {"kind": "Number" if number else "Unknown", "value": value},
        "confidence": 1.0,
    }


def intent_message(
    name: str,
    text: str,
    slots: dict[str, Any],
    confidence: float,
    site: str,
    session: str,
    request_id: str,
    language: str,
) -> dict[str, Any]:
    """The JSON object of one recognised intent, as Rhasspy sends it."""
    return {
        "input": text,
        "intent": {"intentName": name, "confidenceScore": round(confidence, 3)},
        "slots": [_slot(k, v) for k, v in slots.items() if v is not None],
        "id": request_id,
        "siteId": site,
        "sessionId": session,
        "customData": None,
        "asrTokens": [],
        "asrConfidence": None,
        "rawInput": text,
        "wakewordId": None,
        "lang": language,
    }
