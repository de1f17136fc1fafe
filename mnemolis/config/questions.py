"""Questions and device classes: the words that make a part a question, and the
words people use for each binary-sensor and sensor device class.

Both live in YAML (``questions:`` and ``device_classes:`` of an intents file,
shipped in `intents/en/device_questions.yaml` and `intents/en/device_classes.yaml`)
so an owner can read and extend them. Understanding uses the first to keep a
question from ever acting, the second to find "the humidity in the bedroom" or
"is CO detected" by what a sensor measures rather than by its name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mnemolis.config.problems import Problems
from mnemolis.config.yaml_at import At, ConfigError, as_mapping, as_text, lower_words

#: The domains whose entities carry a Home Assistant device class people ask by.
CLASS_DOMAINS = ("binary_sensor", "sensor")


@dataclass
class QuestionWords:
    """What makes a part a question, and what a question may ask about."""

    frames: list[str] = field(default_factory=list)  # "is", "how many", "did i leave"
    not_questions: list[str] = field(default_factory=list)  # "is it possible to", "how about"
    skip: list[str] = field(default_factory=list)  # words before a frame: "hey", "so"
    generic_nouns: list[str] = field(default_factory=list)  # "anything", "devices"
    set_intents: list[str] = field(default_factory=list)  # the device slot lists the set
    read_actions: list[str] = field(default_factory=list)  # actions that change nothing
    # "is the window open" asked in a room: its window; "is there a leak": any
    definite: list[str] = field(default_factory=list)  # "the", "my"
    # "how many kilometres": a unit after these asks a quantity, not a count of devices
    count_frames: list[str] = field(default_factory=list)  # "how many", "number of"
    #: phrases that need no device because they mean every device the intent acts on
    #: ("lock up": every lock), by intent
    every_device: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class DeviceClass:
    """One device class of one domain and the words people say for it."""

    domain: str  # binary_sensor | sensor
    name: str  # Home Assistant's device class: carbon_monoxide, humidity ...
    words: list[str] = field(default_factory=list)  # what names the class in a request
    phrases: list[str] = field(default_factory=list)  # words strong enough to route a part
    on: list[str] = field(default_factory=list)  # a binary sensor's "on" in words: detected
    off: list[str] = field(default_factory=list)  # ... and its "off": clear
    units: list[str] = field(default_factory=list)  # a sensor's units: "%", "hPa"
    also: list[str] = field(default_factory=list)  # other types that answer it: climate
    aliases: list[str] = field(default_factory=list)  # other names of the class: co2

    def covers(self, device_class: str | None) -> bool:
        """True when a device announced with ``device_class`` is of this class."""
        return device_class is not None and (
            device_class == self.name or device_class in self.aliases
        )


@dataclass
class DeviceClasses:
    """Every device class people ask by, and the intent their phrases route to."""

    intent: str | None = None  # class words ("humidity", "leak") are phrases of it
    state_intent: str | None = None  # "is ... <state word>" ("is ... wet") are phrases of it
    classes: list[DeviceClass] = field(default_factory=list)

    def of(self, domain: str) -> dict[str, DeviceClass]:
        return {c.name: c for c in self.classes if c.domain == domain}


def load_questions(data: Any, at: At, into: QuestionWords) -> None:
    """Read a ``questions:`` mapping; lists extend what earlier files said."""
    data = as_mapping(data, at, "questions")
    known = set(QuestionWords.__dataclass_fields__)
    for key, value in data.items():
        if key == "every_device":
            table = as_mapping(value, at / key, "questions.every_device")
            for intent, phrases in table.items():
                words = lower_words(phrases, at / key / intent, f"every_device.{intent}")
                into.every_device.setdefault(str(intent), []).extend(words)
            continue
        if key not in known:
            raise (at / key).error(
                f"questions: unknown key {key!r} (expected one of {', '.join(sorted(known))})"
            )
        words = lower_words(value, at / key, f"questions.{key}")
        getattr(into, key).extend(w for w in words if w not in getattr(into, key))


def load_device_classes(data: Any, at: At, into: DeviceClasses, problems: Problems) -> None:
    """Read a ``device_classes:`` mapping: ``intent`` and one table per domain."""
    data = as_mapping(data, at, "device_classes")
    for key, value in data.items():
        with problems.each():
            if key in ("intent", "state_intent"):
                setattr(into, key, as_text(value, at / key, f"device_classes.{key}"))
                continue
            if key not in CLASS_DOMAINS:
                raise (at / key).error(
                    f"device_classes: unknown key {key!r} "
                    f"(expected intent, state_intent or one of {', '.join(CLASS_DOMAINS)})"
                )
            table = as_mapping(value, at / key, f"device_classes.{key}")
            for name, raw in table.items():
                with problems.each():
                    into.classes.append(_device_class(key, str(name), raw, at / key / name))


_CLASS_KEYS = ("words", "phrases", "on", "off", "units", "also", "aliases")


def _device_class(domain: str, name: str, raw: Any, at: At) -> DeviceClass:
    raw = as_mapping(raw, at, f"device class {name!r}")
    for key in raw:
        if key not in _CLASS_KEYS:
            raise (at / key).error(
                f"device class {name!r}: unknown key {key!r} "
                f"(expected one of {', '.join(_CLASS_KEYS)})"
            )
    lists = {k: lower_words(raw.get(k), at / k, f"{name}.{k}") for k in _CLASS_KEYS}
    if domain == "sensor" and (lists["on"] or lists["off"]):
        raise at.error(f"device class {name!r}: a sensor has no on and off words")
    unknown = [p for p in lists["phrases"] if p not in lists["words"]]
    if unknown:
        raise (at / "phrases").error(
            f"device class {name!r}: phrases must also be words ({', '.join(unknown)})"
        )
    return DeviceClass(domain, name, **lists)


def check_intent(classes: DeviceClasses, intents: dict[str, Any], at: At) -> None:
    """The intents the class phrases route to must exist."""
    for key in ("intent", "state_intent"):
        name = getattr(classes, key)
        if name is not None and name not in intents:
            raise (at / key).error(f"device_classes.{key}: no intent {name!r}")


def read_questions(
    docs: list[tuple[Any, dict[str, Any]]], intents: dict[str, Any], problems: Problems
) -> tuple[QuestionWords, DeviceClasses]:
    """The ``questions:`` and ``device_classes:`` of every intents file, in file order;
    each class phrase becomes a phrase of the intent ``device_classes.intent`` names."""
    from mnemolis.config.intents import Phrase

    questions, classes = QuestionWords(), DeviceClasses()
    for file, data in docs:
        at = At(file.path)
        if "questions" in data:
            with problems.each():
                load_questions(data["questions"], at / "questions", questions)
        if "device_classes" in data:
            with problems.each():
                load_device_classes(
                    data["device_classes"], at / "device_classes", classes, problems
                )
                check_intent(classes, intents, at / "device_classes")
    for intent in questions.every_device:
        if intent not in intents:
            problems.add(
                ConfigError(
                    str(docs[-1][0].path) if docs else "",
                    None,
                    f"questions.every_device: no intent {intent!r}",
                )
            )
    spec = intents.get(classes.intent) if classes.intent else None
    if spec is not None:
        _add(spec, [p for dc in classes.classes for p in dc.phrases], 1.0, Phrase)
    spec = intents.get(classes.state_intent) if classes.state_intent else None
    if spec is not None:
        # a class's own phrase ("motion", "leak") routes to the reading already
        named = {w for dc in classes.classes for w in dc.phrases}
        words = [w for dc in classes.classes for w in (*dc.on, *dc.off) if w not in named]
        _add(spec, [f"{verb} ... {w}" for w in words for verb in ("is", "are")], 0.9, Phrase)
    return questions, classes


def _add(spec: Any, phrases: list[str], weight: float, phrase: Any) -> None:
    have = {p.text for p in spec.phrases}
    for text in phrases:
        if text not in have:
            have.add(text)
            spec.phrases.append(phrase(text, weight))
