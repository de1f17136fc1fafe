"""Whether a device is online: Home Assistant's availability topics, payloads and modes.

A device may name several availability topics (``availability``, a list, or
the single ``availability_topic``), each with its payloads and template;
``availability_mode`` says how they combine: ``all`` (every one available,
the default), ``any``, or ``latest`` (the last message decides), as
``homeassistant/components/mqtt/entity.py`` combines them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt.announced import BadConfig, check_subscription
from mnemolis.sources.mqtt.templates import ENGINE, TemplateError, check

MAX_TOPICS = 8
MODES = ("all", "any", "latest")


@dataclass(frozen=True)
class Spec:
    """One availability topic and what its payloads mean."""

    topic: str
    available: str = "online"
    not_available: str = "offline"
    template: str | None = None


def read_config(config: dict[str, Any], max_topic_chars: int) -> list[dict[str, Any]]:
    """The availability entries of a discovery config, checked; `BadConfig` otherwise."""
    items: list[Any] = []
    if config.get("availability_topic") is not None:
        items.append(
            {
                "topic": config["availability_topic"],
                "payload_available": config.get("payload_available"),
                "payload_not_available": config.get("payload_not_available"),
                "value_template": config.get("availability_template"),
            }
        )
    listed = config.get("availability")
    if isinstance(listed, list):
        items.extend(listed)
    elif listed is not None:
        raise BadConfig("availability must be a list")
    specs = []
    for item in items[:MAX_TOPICS]:
        if not isinstance(item, dict):
            raise BadConfig("an availability entry must be a mapping")
        template = item.get("value_template")
        if template is not None:
            try:
                check(template)
            except TemplateError as exc:
                raise BadConfig(f"availability template: {exc}") from None
        specs.append(
            {
                "topic": check_subscription(item.get("topic"), max_topic_chars),
                "available": str(
                    item.get("payload_available") or config.get("payload_available") or "online"
                ),
                "not_available": str(
                    item.get("payload_not_available")
                    or config.get("payload_not_available")
                    or "offline"
                ),
                "template": template,
            }
        )
    return specs


def mode_of(config: dict[str, Any]) -> str:
    mode = config.get("availability_mode", "all")
    if mode not in MODES:
        raise BadConfig("availability_mode must be all, any or latest")
    return str(mode)


def specs(device: Device) -> list[Spec]:
    """Each availability topic of a device, wherever it came from."""
    listed = device.extra.get("availability")
    if isinstance(listed, list) and listed:
        return [
            Spec(
                str(s["topic"]),
                str(s.get("available") or "online"),
                str(s.get("not_available") or "offline"),
                s.get("template") if isinstance(s.get("template"), str) else None,
            )
            for s in listed
            if isinstance(s, dict) and isinstance(s.get("topic"), str)
        ]
    topic = device.topics.get("availability")
    if not topic:
        return []
    return [
        Spec(
            topic,
            str(device.payloads.get("available") or "online"),
            str(device.payloads.get("not_available") or "offline"),
        )
    ]


def decode(spec: Spec, payload: bytes, device_id: str | None = None) -> bool:
    """ "online" / {"state": "offline"} -> True / False; ValueError otherwise. With the
    ``device_id``, a template that breaks a bound is disabled for that device."""
    text = payload.decode("utf-8", errors="replace")
    if spec.template is not None:
        owner = (device_id, "availability_template") if device_id is not None else None
        try:
            word = ENGINE.render_value(spec.template, text, owner=owner)
        except TemplateError as exc:
            raise ValueError(f"availability template: {exc}") from None
    elif text.strip().startswith("{"):
        try:
            body = json.loads(text)
        except ValueError:
            body = None
        word = str(body.get("state", "")) if isinstance(body, dict) else text.strip()
    else:
        word = text.strip()
    if word == spec.available or word.lower() == spec.available.lower():
        return True
    if word == spec.not_available or word.lower() == spec.not_available.lower():
        return False
    raise ValueError(f"{word[:40]!r} is neither available nor not available")
