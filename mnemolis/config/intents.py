"""Intents and slots: the INTENT_MAP as written in `intents/<lang>/*.yaml`, checked.

An intent names its source (one the source registry knows, or null for a
request Mnemolis recognises but does not serve), its phrases, slots and
examples; a slot says how its values are spoken. An intent with `do:` steps
or only a `say:` reply is a routine (source ``routines``, implied); one with
``source: external`` is handed to other programs over MQTT. Every problem of
an intent is kept (`Problems`), so `mnemolis check` names them all.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnemolis.config import source_kinds as source_registry
from mnemolis.config.problems import Problems
from mnemolis.config.yaml_at import At, ConfigError, as_mapping, as_strings, as_text, lower_words
from mnemolis.core.devices import TYPE_ACTIONS

if TYPE_CHECKING:
    from mnemolis.config.routines import Step

#: How each type is filled: `understand/slots.py`; duration, time and text by
#: `understand/schedule.py` (seconds, a `When`, the words no phrase explains).
SLOT_TYPES = ("list", "number", "device", "room", "place", "topic", "duration", "time", "text")
#: The source of an intent with `do:` or `say:` and no source of its own.
ROUTINES_SOURCE = "routines"
EXTERNAL_SOURCE = "external"
#: Slot types a phrase can capture with ``{slot}``; the others are found by name.
CAPTURED_TYPES = ("list", "number")
#: Every device action some device type has.
ACTIONS = tuple(sorted({a for actions in TYPE_ACTIONS.values() for a in actions}))


@dataclass
class Phrase:
    """A phrase template: words, ``...`` for a short gap, ``(a|b)`` choices,
    ``word?`` optional, ``{slot}`` a captured slot value."""

    text: str
    weight: float = 1.0
    at: At | None = field(default=None, compare=False)  # where it was written


@dataclass
class Example:
    text: str
    intent: str | None
    slots: dict[str, Any] = field(default_factory=dict)
    line: int | None = None
    path: str = ""  # the file it was written in (an owner's example is in the owner's file)


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
    area_means: str | None = None  # the type an area said alone means ("turn off the kitchen")
    name_alone: bool = False  # a device's name said with no phrase is this ("kitchen light")
    values_alone: bool = False  # its list slots' values with no phrase ("a large pepperoni")
    #: kinds its words may mean that it cannot act on ("open the door": a lock's door)
    also_means: list[str] = field(default_factory=list)
    undo: str | None = None  # the intent that puts it back: "turn on the fan for 10 minutes"
    condition: bool = False  # may be the "if" part of a conditional
    avoid: list[Phrase] = field(default_factory=list)  # words that argue against it
    defer: bool = False  # a question frame that yields to a declined domain in the same part
    examples: list[Example] = field(default_factory=list)
    path: str = ""
    line: int | None = None
    say: str | None = None  # the reply of a routine, a reply-only or an external intent
    steps: list[Step] | None = None  # a routine's steps, once read (`routines.load_steps`)
    raw_do: Any = None  # the `do:` list as written, read once every intent is known
    at_do: At | None = None
    at: At | None = field(default=None, compare=False)  # where it is written
    origins: list[Origin] = field(default_factory=list)  # where it was defined and changed

    @property
    def is_routine(self) -> bool:
        return self.source == ROUTINES_SOURCE


@dataclass(frozen=True)
class Origin:
    """One file's part in an intent: where it was defined, extended, overridden."""

    how: str  # defined | extended | overridden | disabled
    path: str
    line: int | None
    shipped: bool

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{self.how} in {where}" + (" (shipped)" if self.shipped else "")


@dataclass
class SlotSpec:
    name: str
    type: str
    values: dict[str, str] = field(default_factory=dict)  # spoken form -> value
    minimum: float | None = None
    maximum: float | None = None
    units: list[str] = field(default_factory=list)  # words that mark a number as this slot
    missing_penalty: float | None = None  # cost when an intent requires it and it is missing
    keeps_times: bool = False  # a text slot whose words may say a time ("we leave in 5 minutes")
    #: A list slot one request may fill with several values ("with ham and olives"): its
    #: values joined by a conjunction stay in one part, as a list. ``several: false``: one
    #: value a request, so a second one joined on is a second request ("today and tomorrow").
    several: bool = True


def closest(word: str, choices: tuple[str, ...] | list[str]) -> str:
    """ " (turn_of -> turn_off?)" when one of ``choices`` is close, else ""."""
    near = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" ({word} -> {near[0]}?)" if near else ""


def load_phrases(value: Any, at: At, problems: Problems) -> list[Phrase]:
    if value is None:
        return []
    if not isinstance(value, list):
        problems.add(at.error("phrases must be a list"))
        return []
    phrases: list[Phrase] = []
    seen: set[str] = set()
    for i, item in enumerate(value):
        try:  # (a thousand phrases: a plain try is cheaper than `problems.each()`)
            phrase = _phrase(item, at / i)
            if phrase.text.lower() in seen:
                raise (at / i).error(f"phrase {phrase.text!r} is listed twice")
        except ConfigError as error:
            problems.add(error)
            continue
        seen.add(phrase.text.lower())
        phrases.append(phrase)
    return phrases


def _phrase(item: Any, at: At) -> Phrase:
    if isinstance(item, bool):
        item = as_text(item, at, "a phrase")
    if isinstance(item, str):
        phrase = Phrase(" ".join(item.split()), 1.0, at)
    elif isinstance(item, dict) and isinstance(item.get("text"), str):
        weight = item.get("weight", 1.0)
        if isinstance(weight, bool) or not isinstance(weight, int | float) or not 0 < weight <= 2:
            raise (at / "weight").error("a phrase weight must be a number in (0, 2]")
        phrase = Phrase(" ".join(item["text"].split()), float(weight), at)
    else:
        raise at.error("a phrase must be a string or {text: ..., weight: ...}")
    if not phrase.text:
        raise at.error("a phrase must not be empty")
    for word in phrase.text.split():
        if ("(" in word) != (")" in word):
            raise at.error(
                f"phrase {phrase.text!r}: a choice (a|b) is of single words; write a phrase "
                "for each choice of several words"
            )
    return phrase


def load_examples(raw: Any, name: str, at: At, problems: Problems) -> list[Example]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.add(at.error(f"intent {name!r}: examples must be a list"))
        return []
    examples = []
    for i, ex in enumerate(raw):
        ex_at = at / i
        with problems.each():
            if isinstance(ex, str):
                examples.append(Example(ex, name, {}, ex_at.line(), str(at.path)))
            elif isinstance(ex, dict) and isinstance(ex.get("text"), str):
                ex_slots = as_mapping(ex.get("slots"), ex_at / "slots", "example slots")
                intent = ex.get("intent", name)
                examples.append(Example(ex["text"], intent, ex_slots, ex_at.line(), str(at.path)))
            else:
                raise ex_at.error("an example must be a string or {text: ..., slots: {...}}")
    return examples


#: Keys of an intent as `load_intent` reads them.
INTENT_KEYS = (
    "source",
    "area_means",
    "name_alone",
    "values_alone",
    "also_means",
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
    "do",
    "say",
    "undo",
)


def _source(name: str, data: dict[str, Any], at: At) -> str | None:
    routine = "do" in data or "say" in data
    if "source" not in data:
        if routine:
            return ROUTINES_SOURCE
        raise at.error(
            f"intent {name!r} has no source ({source_registry.expected()}), "
            "and no do: steps or say: reply"
        )
    source = data["source"]
    if source is not None and source not in source_registry.names():
        hint = closest(str(source), source_registry.names())
        raise (at / "source").error(
            f"intent {name!r}: unknown source {source!r}{hint} "
            f"(expected {source_registry.expected()})"
        )
    if routine and source not in (ROUTINES_SOURCE, EXTERNAL_SOURCE):
        raise (at / "source").error(
            f"intent {name!r}: do: and say: belong to a routine (no source) or to "
            f"source {EXTERNAL_SOURCE}, not to source {source!r}"
        )
    if source == EXTERNAL_SOURCE and (not name or any(c in name for c in "/+#\x00 ")):
        raise at.error(
            f"intent {name!r}: an external intent's name is the end of its MQTT topic, "
            "so it holds no /, +, # or spaces"
        )
    if "do" in data and source == EXTERNAL_SOURCE:
        raise (at / "do").error(
            f"intent {name!r}: an external intent is carried out elsewhere; it has no do: steps"
        )
    return source  # type: ignore[no-any-return]


def load_intent(name: str, data: Any, at: At, slots: dict[str, SlotSpec]) -> IntentSpec:
    """One intent, checked; every problem found is raised together (`ConfigErrors`)."""
    problems = Problems()
    data = as_mapping(data, at, f"intent {name!r}")
    for key in data:
        if key not in INTENT_KEYS:
            problems.add(
                (at / key).error(
                    f"intent {name!r}: unknown key {key!r}{closest(str(key), INTENT_KEYS)}"
                )
            )
    source: str | None = None
    with problems.each():
        source = _source(name, data, at)
    phrases = load_phrases(data.get("phrases"), at / "phrases", problems)
    avoid = load_phrases(data.get("avoid"), at / "avoid", problems)
    if not phrases and "phrases" not in data:
        problems.add(at.error(f"intent {name!r} has no phrases"))
    slot_names: list[str] = []
    requires: list[str] = []
    with problems.each():
        slot_names = as_strings(data.get("slots"), at / "slots", "slots")
    with problems.each():
        requires = as_strings(data.get("requires"), at / "requires", "requires")
    for i, slot in enumerate(slot_names):
        if slot not in slots:
            problems.add(
                (at / "slots" / i).error(
                    f"intent {name!r}: unknown slot {slot!r}{closest(slot, tuple(slots))}"
                )
            )
    for i, slot in enumerate(requires):
        if slot not in slot_names:
            problems.add(
                (at / "requires" / i).error(
                    f"intent {name!r}: required slot {slot!r} is not in its slots"
                )
            )
    priority = data.get("priority", 50)
    if not isinstance(priority, int) or isinstance(priority, bool):
        problems.add((at / "priority").error(f"intent {name!r}: priority must be an integer"))
        priority = 50
    device_types: list[str] = []
    with problems.each():
        device_types = as_strings(data.get("device_types"), at / "device_types", "device_types")
    for i, dtype in enumerate(device_types):
        if dtype not in TYPE_ACTIONS:
            problems.add(
                (at / "device_types" / i).error(
                    f"intent {name!r}: unknown device type {dtype!r}"
                    f"{closest(dtype, tuple(TYPE_ACTIONS))}"
                )
            )
    implies = data.get("implies")
    if implies is not None and implies not in device_types:
        problems.add(
            (at / "implies").error(
                f"intent {name!r}: implies {implies!r}, which is not one of its device_types"
            )
        )
    area_means = data.get("area_means")
    if area_means is not None and area_means not in device_types:
        problems.add(
            (at / "area_means").error(
                f"intent {name!r}: area_means {area_means!r}, which is not one of its device_types"
            )
        )
    also_means: list[str] = []
    with problems.each():
        also_means = as_strings(data.get("also_means"), at / "also_means", "also_means")
    for i, dtype in enumerate(also_means):
        if dtype not in TYPE_ACTIONS:
            problems.add((at / "also_means" / i).error(f"intent {name!r}: unknown type {dtype!r}"))
    action = _action(name, data.get("action"), device_types, at / "action", problems)
    for phrase in phrases:
        if "{" in phrase.text:
            with problems.each():
                _check_captures(name, phrase, slot_names, slots)
    examples = load_examples(data.get("examples"), name, at / "examples", problems)
    say = None
    if "say" in data:
        with problems.each():
            say = as_text(data["say"], at / "say", f"intent {name!r}: say")
    undo = data.get("undo")
    if undo is not None and not isinstance(undo, str):
        problems.add((at / "undo").error(f"intent {name!r}: undo must name an intent"))
        undo = None
    problems.raise_any()
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
        area_means=area_means,
        name_alone=bool(data.get("name_alone", False)),
        values_alone=bool(data.get("values_alone", False)),
        also_means=also_means,
        undo=undo,
        condition=bool(data.get("condition", False)),
        avoid=avoid,
        defer=bool(data.get("defer", False)),
        examples=examples,
        path=str(at.path),
        line=at.line(),
        say=say,
        raw_do=data.get("do"),
        at_do=at / "do" if "do" in data else None,
        at=at,
    )


def _action(
    name: str, action: Any, device_types: list[str], at: At, problems: Problems
) -> str | None:
    """The device action an intent performs: a known one, that its device types can do."""
    if action is None:
        return None
    if not isinstance(action, str):
        problems.add(at.error(f"intent {name!r}: action must be a string"))
        return None
    if action not in ACTIONS:
        problems.add(
            at.error(f"intent {name!r}: unknown action {action!r}{closest(action, ACTIONS)}")
        )
        return None
    able = [t for t in device_types if t in TYPE_ACTIONS and action in TYPE_ACTIONS[t]]
    if device_types and not able:
        problems.add(
            at.error(
                f"intent {name!r}: none of its device_types ({', '.join(device_types)}) "
                f"can {action}"
            )
        )
    return action


def _check_captures(
    name: str, phrase: Phrase, slot_names: list[str], slots: dict[str, SlotSpec]
) -> None:
    """A ``{slot}`` in a phrase must be the intent's, and of a type a phrase can capture."""
    at = phrase.at or At(Path(""))
    for word in phrase.text.split():
        if not word.startswith("{"):
            continue
        slot = word.strip("{}?")
        if slot not in slot_names:
            raise at.error(
                f"intent {name!r}: phrase {phrase.text!r} captures {slot!r}, "
                "which is not one of its slots"
            )
        spec = slots.get(slot)
        if spec is not None and spec.type not in CAPTURED_TYPES:
            raise at.error(
                f"intent {name!r}: phrase {phrase.text!r} cannot capture {{{slot}}}: a "
                f"{spec.type} slot is found wherever it is said, so leave it out of the phrase "
                "and keep it in slots:"
            )


#: Keys of a slot as `load_slot` reads them.
SLOT_KEYS = ("type", "values", "min", "max", "units", "missing_penalty", "keeps_times", "several")


def load_slot(name: str, data: Any, at: At) -> SlotSpec:
    data = as_mapping(data, at, f"slot {name!r}")
    for key in data:
        if key not in SLOT_KEYS:
            raise (at / key).error(
                f"slot {name!r}: unknown key {key!r}{closest(str(key), SLOT_KEYS)}"
            )
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
            if isinstance(value, bool):
                word = as_text(value, at / "values" / str(value).lower(), f"slot {name!r}: a value")
                values[word] = word
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
    if "keeps_times" in data:
        if not isinstance(data["keeps_times"], bool):
            raise (at / "keeps_times").error(f"slot {name!r}: keeps_times must be true or false")
        spec.keeps_times = data["keeps_times"]
    if "several" in data:
        if not isinstance(data["several"], bool):
            raise (at / "several").error(f"slot {name!r}: several must be true or false")
        if kind != "list":
            raise (at / "several").error(
                f"slot {name!r}: several is for a list slot (a {kind} slot takes one value)"
            )
        spec.several = data["several"]
    elif kind != "list":
        spec.several = False
    return spec


def check_undos(intents: dict[str, IntentSpec], problems: Problems) -> None:
    """An intent's ``undo`` names another action of the same source and device types."""
    for spec in intents.values():
        if spec.undo is None:
            continue
        at = (spec.at or At(Path(spec.path))) / "undo"
        other = intents.get(spec.undo)
        if other is None:
            problems.add(
                at.error(
                    f"intent {spec.name!r}: undo names {spec.undo!r}, which is no intent"
                    f"{closest(spec.undo, tuple(intents))}"
                )
            )
        elif other.action is None or other.source != spec.source or spec.action is None:
            problems.add(
                at.error(
                    f"intent {spec.name!r}: undo {spec.undo!r} must be a device action of the "
                    "same source, as this intent must be"
                )
            )
