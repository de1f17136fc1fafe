"""Intents and slots: the INTENT_MAP as written in `intents/<lang>/*.yaml`, checked.

An intent names its source (one the source registry knows, or null for a
request Mnemolis recognises but does not serve), its phrases, slots and
examples; a slot says how its values are spoken.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mnemolis.config.yaml_at import At, as_mapping, as_strings, lower_words
from mnemolis.devices import TYPE_ACTIONS
from mnemolis.sources import registry as source_registry

#: How each type is filled: `understand/slots.py`; duration, time and text by
#: `understand/schedule.py` (seconds, a `When`, the words no phrase explains).
SLOT_TYPES = ("list", "number", "device", "room", "place", "topic", "duration", "time", "text")


@dataclass
class Phrase:
    """A phrase template: words, ``...`` for a short gap, ``(a|b)`` choices,
    ``word?`` optional, ``{slot}`` a captured slot value."""

    text: str
    weight: float = 1.0


@dataclass
class Example:
    text: str
    intent: str | None
    slots: dict[str, Any] = field(default_factory=dict)
    line: int | None = None


@dataclass
class IntentSpec:
    name: str
    source: str | None
    phrases: list[Phrase]
    slots: list[str] = field(default_factory=list)
    requires: list[str] = field(default_factory=list)
    priority: int = 50
    device_types: list[str] = field(default_factory=list)
    action: str | None = None  # the device action an mqtt intent performs
    implies: str | None = None  # the device type meant when none is named ("dim a bit")
    condition: bool = False  # may be the "if" part of a conditional
    avoid: list[Phrase] = field(default_factory=list)  # words that argue against it
    defer: bool = False  # a question frame that yields to a declined domain in the same part
    examples: list[Example] = field(default_factory=list)
    path: str = ""
    line: int | None = None


@dataclass
class SlotSpec:
    name: str
    type: str
    values: dict[str, str] = field(default_factory=dict)  # spoken form -> value
    minimum: float | None = None
    maximum: float | None = None
    units: list[str] = field(default_factory=list)  # words that mark a number as this slot
    missing_penalty: float | None = None  # cost when an intent requires it and it is missing


def _load_phrases(value: Any, at: At) -> list[Phrase]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise at.error("phrases must be a list")
    phrases: list[Phrase] = []
    seen: set[str] = set()
    for i, item in enumerate(value):
        if isinstance(item, str):
            phrases.append(Phrase(" ".join(item.split())))
        elif isinstance(item, dict) and isinstance(item.get("text"), str):
            weight = item.get("weight", 1.0)
            if not isinstance(weight, int | float) or not 0 < weight <= 2:
                raise (at / i / "weight").error("a phrase weight must be a number in (0, 2]")
            phrases.append(Phrase(" ".join(item["text"].split()), float(weight)))
        else:
            raise (at / i).error("a phrase must be a string or {text: ..., weight: ...}")
        if not phrases[-1].text:
            raise (at / i).error("a phrase must not be empty")
        if phrases[-1].text.lower() in seen:
            raise (at / i).error(f"phrase {phrases[-1].text!r} is listed twice")
        seen.add(phrases[-1].text.lower())
    return phrases


def load_intent(name: str, data: Any, at: At, slots: dict[str, SlotSpec]) -> IntentSpec:
    data = as_mapping(data, at, f"intent {name!r}")
    allowed = {
        "source",
        "phrases",
        "slots",
        "requires",
        "priority",
        "examples",
        "device_types",
        "action",
        "condition",
        "description",
        "avoid",
        "defer",
        "implies",
    }
    for key in data:
        if key not in allowed:
            raise (at / key).error(f"intent {name!r}: unknown key {key!r}")
    if "source" not in data:
        raise at.error(f"intent {name!r} has no source ({source_registry.expected()})")
    source = data["source"]
    if source is not None and source not in source_registry.names():
        raise (at / "source").error(
            f"intent {name!r}: unknown source {source!r} (expected {source_registry.expected()})"
        )
    phrases = _load_phrases(data.get("phrases"), at / "phrases")
    avoid = _load_phrases(data.get("avoid"), at / "avoid")
    if not phrases:
        raise at.error(f"intent {name!r} has no phrases")
    slot_names = as_strings(data.get("slots"), at / "slots", "slots")
    requires = as_strings(data.get("requires"), at / "requires", "requires")
    for i, slot in enumerate(slot_names):
        if slot not in slots:
            raise (at / "slots" / i).error(f"intent {name!r}: unknown slot {slot!r}")
    for i, slot in enumerate(requires):
        if slot not in slot_names:
            raise (at / "requires" / i).error(
                f"intent {name!r}: required slot {slot!r} is not in its slots"
            )
    priority = data.get("priority", 50)
    if not isinstance(priority, int) or isinstance(priority, bool):
        raise (at / "priority").error(f"intent {name!r}: priority must be an integer")
    device_types = as_strings(data.get("device_types"), at / "device_types", "device_types")
    for i, dtype in enumerate(device_types):
        if dtype not in TYPE_ACTIONS:
            raise (at / "device_types" / i).error(f"intent {name!r}: unknown device type {dtype!r}")
    implies = data.get("implies")
    if implies is not None and implies not in device_types:
        raise (at / "implies").error(
            f"intent {name!r}: implies {implies!r}, which is not one of its device_types"
        )
    action = data.get("action")
    if action is not None and not isinstance(action, str):
        raise (at / "action").error(f"intent {name!r}: action must be a string")
    for phrase_i, phrase in enumerate(phrases):
        for word in phrase.text.split():
            if word.startswith("{"):
                slot = word.strip("{}?")
                if slot not in slot_names:
                    raise (at / "phrases" / phrase_i).error(
                        f"intent {name!r}: phrase {phrase.text!r} captures {slot!r}, "
                        "which is not one of its slots"
                    )
    examples = []
    raw_examples = data.get("examples") or []
    if not isinstance(raw_examples, list):
        raise (at / "examples").error(f"intent {name!r}: examples must be a list")
    for i, ex in enumerate(raw_examples):
        ex_at = at / "examples" / i
        if isinstance(ex, str):
            examples.append(Example(ex, name, {}, ex_at.line()))
        elif isinstance(ex, dict) and isinstance(ex.get("text"), str):
            ex_slots = as_mapping(ex.get("slots"), ex_at / "slots", "example slots")
            intent = ex.get("intent", name)
            examples.append(Example(ex["text"], intent, ex_slots, ex_at.line()))
        else:
            raise ex_at.error("an example must be a string or {text: ..., slots: {...}}")
    return IntentSpec(
        name=name,
        source=source,
        phrases=phrases,
        slots=slot_names,
        requires=requires,
        priority=priority,
        device_types=device_types,
        action=action,
        implies=implies,
        condition=bool(data.get("condition", False)),
        avoid=avoid,
        defer=bool(data.get("defer", False)),
        examples=examples,
        path=str(at.path),
        line=at.line(),
    )


def load_slot(name: str, data: Any, at: At) -> SlotSpec:
    data = as_mapping(data, at, f"slot {name!r}")
    kind = data.get("type", "list")
    if kind not in SLOT_TYPES:
        raise (at / "type").error(
            f"slot {name!r}: unknown type {kind!r} (expected one of {', '.join(SLOT_TYPES)})"
        )
    values: dict[str, str] = {}
    raw = data.get("values")
    if isinstance(raw, list):
        values = {" ".join(str(v).lower().split()): str(v).lower() for v in raw}
    elif isinstance(raw, dict):
        for value, spoken in raw.items():
            for form in lower_words(spoken, at / "values" / value, "spoken forms"):
                values[form] = str(value).lower()
            values.setdefault(str(value).lower().replace("_", " "), str(value).lower())
    elif raw is not None:
        raise (at / "values").error(f"slot {name!r}: values must be a list or a mapping")
    if kind == "list" and not values:
        raise at.error(f"slot {name!r}: a list slot needs values")
    spec = SlotSpec(name=name, type=kind, values=values)
    for key in ("min", "max"):
        if key in data:
            if not isinstance(data[key], int | float):
                raise (at / key).error(f"slot {name!r}: {key} must be a number")
            setattr(spec, "minimum" if key == "min" else "maximum", float(data[key]))
    spec.units = lower_words(data.get("units"), at / "units", "units")
    if "missing_penalty" in data:
        value = data["missing_penalty"]
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 1:
            raise (at / "missing_penalty").error(
                f"slot {name!r}: missing_penalty must be in [0, 1]"
            )
        spec.missing_penalty = float(value)
    return spec
