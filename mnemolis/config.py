"""Load and validate `intents/` and `sources/`, naming the file and line of every error.

YAML is always read with the safe loader (`safe_load`, in its C build when
PyYAML has one: the same safe constructor, ten times faster at start-up).
When a value is wrong, the file is composed once more (still with the safe
loader) to find the line of the offending key, so an owner sees
``intents/en/devices.yaml:12: ...``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mnemolis.devices import TYPE_ACTIONS, Device
from mnemolis.plan import SOURCES

SLOT_TYPES = ("list", "number", "device", "room", "place", "topic")


_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """``yaml.safe_load``, with the C safe loader when available."""
    return yaml.load(text, Loader=_SAFE_LOADER)


class ConfigError(Exception):
    """A configuration problem, located at a file and line."""

    def __init__(self, path: Path | str, line: int | None, reason: str) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {reason}")


# --------------------------------------------------------------------------- types


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


@dataclass
class Language:
    """Words that shape understanding, kept in YAML so owners can read them."""

    code: str = "en"
    max_query_chars: int = 500
    wake_words: list[str] = field(default_factory=list)
    politeness: list[str] = field(default_factory=list)
    polite_openers: list[str] = field(default_factory=list)
    contractions: dict[str, str] = field(default_factory=dict)
    numbers: dict[str, int] = field(default_factory=dict)
    multipliers: dict[str, int] = field(default_factory=dict)
    ordinals: dict[str, int] = field(default_factory=dict)
    months: list[str] = field(default_factory=list)
    conjunctions: list[str] = field(default_factory=list)
    strong_conjunctions: list[str] = field(default_factory=list)
    no_split: list[str] = field(default_factory=list)
    fixed_pairs: list[str] = field(default_factory=list)
    stop_words: set[str] = field(default_factory=set)
    filler_words: set[str] = field(default_factory=set)
    colloquial_questions: list[str] = field(default_factory=list)
    question_words: set[str] = field(default_factory=set)
    clause_starts: set[str] = field(default_factory=set)
    condition_leads: dict[str, str] = field(default_factory=dict)
    condition_trailing: list[str] = field(default_factory=list)
    condition_then: list[str] = field(default_factory=list)
    condition_else: list[str] = field(default_factory=list)
    condition_questions: list[str] = field(default_factory=list)
    condition_report: list[str] = field(default_factory=list)
    pronouns: set[str] = field(default_factory=set)
    plural_pronouns: set[str] = field(default_factory=set)
    subject_pronouns: set[str] = field(default_factory=set)
    determiners: set[str] = field(default_factory=set)
    prepositions: set[str] = field(default_factory=set)
    place_prepositions: set[str] = field(default_factory=set)
    all_words: set[str] = field(default_factory=set)
    ellipsis_openers: list[str] = field(default_factory=list)
    topic_framing: list[str] = field(default_factory=list)
    yes_words: set[str] = field(default_factory=set)
    no_words: set[str] = field(default_factory=set)
    lemma_overrides: dict[str, str] = field(default_factory=dict)
    routing: dict[str, float] = field(default_factory=dict)
    replies: dict[str, str] = field(default_factory=dict)


@dataclass
class Config:
    root: Path
    language: Language
    intents: dict[str, IntentSpec]
    slots: dict[str, SlotSpec]
    device_nouns: dict[str, list[str]]
    device_states: dict[str, list[str]]
    devices: list[Device]
    rooms: dict[str, list[str]]
    sources: dict[str, dict[str, Any]]
    files: list[Path] = field(default_factory=list)

    def intent(self, name: str | None) -> IntentSpec | None:
        return self.intents.get(name) if name else None


# --------------------------------------------------------------------------- locating


def _read_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(path, None, f"cannot read: {exc.strerror or exc}") from exc
    try:
        return safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(path, line, f"invalid YAML: {problem}") from exc


_COMPOSED: dict[tuple[str, float], Any] = {}


def _composed(path: Path) -> Any:
    """The node tree of a file, composed once (safe loader; only for line numbers)."""
    try:
        key = (str(path), path.stat().st_mtime)
        if key not in _COMPOSED:
            _COMPOSED[key] = yaml.compose(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
        return _COMPOSED[key]
    except (OSError, yaml.YAMLError):
        return None


def _line_of(path: Path, keys: tuple[Any, ...]) -> int | None:
    """The 1-based line of the node at ``keys``, or of its nearest ancestor."""
    node = _composed(path)
    if node is None:
        return None
    line = None
    for key in keys:
        if node is None:
            break
        line = node.start_mark.line + 1
        nxt = None
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if k.value == str(key):
                    nxt = v
                    line = k.start_mark.line + 1
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            nxt = node.value[key]
        node = nxt
    if node is not None and line is None:
        line = node.start_mark.line + 1
    return line


@dataclass
class _At:
    """A position in one YAML file, for errors that name file and line."""

    path: Path
    keys: tuple[Any, ...] = ()

    def __truediv__(self, key: Any) -> _At:
        return _At(self.path, (*self.keys, key))

    def error(self, reason: str) -> ConfigError:
        return ConfigError(self.path, _line_of(self.path, self.keys), reason)

    def line(self) -> int | None:
        return _line_of(self.path, self.keys)


def _mapping(value: Any, at: _At, what: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise at.error(f"{what} must be a mapping, not {type(value).__name__}")
    return value


def _strings(value: Any, at: _At, what: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        raise at.error(f"{what} must be a list of strings")
    out = []
    for i, item in enumerate(value):
        if isinstance(item, bool):
            raise (at / i).error(
                f"{what}: YAML reads on/off/yes/no as true/false; write it in quotes"
            )
        if not isinstance(item, str | int | float):
            raise (at / i).error(f"{what} must hold strings, not {type(item).__name__}")
        out.append(str(item))
    return out


def _lower_words(value: Any, at: _At, what: str) -> list[str]:
    return [" ".join(s.lower().split()) for s in _strings(value, at, what)]


# --------------------------------------------------------------------------- language

_LANGUAGE_LISTS = {
    "wake_words": "wake_words",
    "politeness": "politeness",
    "polite_openers": "polite_openers",
    "conjunctions": "conjunctions",
    "strong_conjunctions": "strong_conjunctions",
    "no_split": "no_split",
    "fixed_pairs": "fixed_pairs",
    "colloquial_questions": "colloquial_questions",
    "ellipsis_openers": "ellipsis_openers",
    "months": "months",
    "topic_framing": "topic_framing",
}
_LANGUAGE_SETS = {
    "stop_words": "stop_words",
    "filler_words": "filler_words",
    "question_words": "question_words",
    "clause_starts": "clause_starts",
    "pronouns": "pronouns",
    "plural_pronouns": "plural_pronouns",
    "subject_pronouns": "subject_pronouns",
    "determiners": "determiners",
    "prepositions": "prepositions",
    "place_prepositions": "place_prepositions",
    "all_words": "all_words",
    "yes_words": "yes_words",
    "no_words": "no_words",
}


def _load_language(data: dict[str, Any], at: _At) -> Language:
    lang = Language(code=str(data.get("language", "en")))
    known = (
        set(_LANGUAGE_LISTS)
        | set(_LANGUAGE_SETS)
        | {
            "language",
            "max_query_chars",
            "contractions",
            "numbers",
            "multipliers",
            "ordinals",
            "conditions",
            "lemma_overrides",
            "routing",
            "replies",
        }
    )
    for key in data:
        if key not in known:
            raise (at / key).error(f"unknown key {key!r} in the language file")
    for key, attr in _LANGUAGE_LISTS.items():
        setattr(lang, attr, _lower_words(data.get(key), at / key, key))
    for key, attr in _LANGUAGE_SETS.items():
        setattr(lang, attr, set(_lower_words(data.get(key), at / key, key)))
    limit = data.get("max_query_chars", lang.max_query_chars)
    if not isinstance(limit, int) or limit < 20:
        raise (at / "max_query_chars").error("max_query_chars must be an integer >= 20")
    lang.max_query_chars = limit
    for key in ("contractions", "lemma_overrides"):
        table = _mapping(data.get(key), at / key, key)
        setattr(lang, key, {str(k).lower(): str(v).lower() for k, v in table.items()})
    for key in ("numbers", "multipliers", "ordinals"):
        table = _mapping(data.get(key), at / key, key)
        for word, value in table.items():
            if not isinstance(value, int) or isinstance(value, bool):
                raise (at / key / word).error(f"{key}: {word!r} must map to an integer")
        setattr(lang, key, {str(k).lower(): int(v) for k, v in table.items()})
    cond = _mapping(data.get("conditions"), at / "conditions", "conditions")
    leads = _mapping(cond.get("leading"), at / "conditions" / "leading", "conditions.leading")
    for word, kind in leads.items():
        if kind not in ("if", "unless", "when"):
            raise (at / "conditions" / "leading" / word).error(
                f"condition word {word!r} must map to if, unless or when, not {kind!r}"
            )
    lang.condition_leads = {" ".join(str(k).lower().split()): str(v) for k, v in leads.items()}
    c = at / "conditions"
    lang.condition_trailing = _lower_words(cond.get("trailing"), c / "trailing", "trailing")
    lang.condition_then = _lower_words(cond.get("then"), c / "then", "then")
    lang.condition_else = _lower_words(cond.get("else"), c / "else", "else")
    lang.condition_questions = _lower_words(cond.get("questions"), c / "questions", "questions")
    lang.condition_report = _lower_words(cond.get("report"), c / "report", "report")
    routing = _mapping(data.get("routing"), at / "routing", "routing")
    for key, value in routing.items():
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise (at / "routing" / key).error(f"routing.{key} must be a number")
    lang.routing = {str(k): float(v) for k, v in routing.items()}
    replies = _mapping(data.get("replies"), at / "replies", "replies")
    lang.replies = {"empty": "", "which": "{options}?", "option": "{name}", "or": " or "}
    lang.replies.update({str(k): str(v) for k, v in replies.items()})
    return lang


# --------------------------------------------------------------------------- intents


def _load_phrases(value: Any, at: _At) -> list[Phrase]:
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


def _load_intent(name: str, data: Any, at: _At, slots: dict[str, SlotSpec]) -> IntentSpec:
    data = _mapping(data, at, f"intent {name!r}")
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
        raise at.error(f"intent {name!r} has no source (one of {', '.join(SOURCES)} or null)")
    source = data["source"]
    if source is not None and source not in SOURCES:
        raise (at / "source").error(
            f"intent {name!r}: unknown source {source!r} (expected one of "
            f"{', '.join(SOURCES)} or null)"
        )
    phrases = _load_phrases(data.get("phrases"), at / "phrases")
    avoid = _load_phrases(data.get("avoid"), at / "avoid")
    if not phrases:
        raise at.error(f"intent {name!r} has no phrases")
    slot_names = _strings(data.get("slots"), at / "slots", "slots")
    requires = _strings(data.get("requires"), at / "requires", "requires")
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
    device_types = _strings(data.get("device_types"), at / "device_types", "device_types")
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
            ex_slots = _mapping(ex.get("slots"), ex_at / "slots", "example slots")
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


def _load_slot(name: str, data: Any, at: _At) -> SlotSpec:
    data = _mapping(data, at, f"slot {name!r}")
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
            for form in _lower_words(spoken, at / "values" / value, "spoken forms"):
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
    spec.units = _lower_words(data.get("units"), at / "units", "units")
    if "missing_penalty" in data:
        value = data["missing_penalty"]
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 1:
            raise (at / "missing_penalty").error(
                f"slot {name!r}: missing_penalty must be in [0, 1]"
            )
        spec.missing_penalty = float(value)
    return spec


# --------------------------------------------------------------------------- devices


def _load_devices(data: dict[str, Any], at: _At) -> tuple[list[Device], dict[str, list[str]]]:
    devices: list[Device] = []
    seen: dict[str, int] = {}
    raw_devices = data.get("devices") or []
    if not isinstance(raw_devices, list):
        raise (at / "devices").error("devices must be a list")
    for i, raw in enumerate(raw_devices):
        d_at = at / "devices" / i
        raw = _mapping(raw, d_at, "a device")
        name = raw.get("name")
        if not isinstance(name, str) or not name.strip():
            raise d_at.error("a device needs a name")
        dtype = raw.get("type")
        if dtype not in TYPE_ACTIONS:
            raise (d_at / "type").error(
                f"device {name!r}: unknown type {dtype!r} (expected one of "
                f"{', '.join(TYPE_ACTIONS)})"
            )
        allow = raw.get("allow")
        device = Device(
            name=name,
            type=dtype,
            room=raw.get("room"),
            aliases=_strings(raw.get("aliases"), d_at / "aliases", "aliases"),
            features=_strings(raw.get("features"), d_at / "features", "features"),
            id=str(raw.get("id") or ""),
            topics={str(k): str(v) for k, v in _mapping(raw.get("topics"), d_at, "topics").items()},
            payloads=_mapping(raw.get("payloads"), d_at / "payloads", "payloads"),
            schema=str(raw.get("schema", "default")),
            confirm=_strings(raw.get("confirm"), d_at / "confirm", "confirm")
            if not isinstance(raw.get("confirm"), bool)
            else (["unlock", "open"] if raw.get("confirm") else []),
            allow=None if allow is None else _strings(allow, d_at / "allow", "allow"),
            unit=raw.get("unit"),
            device_class=raw.get("device_class"),
        )
        for n in device.names:
            if n in seen:
                raise d_at.error(f"device name {n!r} is already used by device #{seen[n] + 1}")
            seen[n] = i
        devices.append(device)
    rooms: dict[str, list[str]] = {}
    raw_rooms = data.get("rooms") or []
    if isinstance(raw_rooms, dict):
        raw_rooms = [{"name": k, "aliases": v} for k, v in raw_rooms.items()]
    for i, room in enumerate(raw_rooms):
        r_at = at / "rooms" / i
        if isinstance(room, str):
            rooms[" ".join(room.lower().split())] = []
        elif isinstance(room, dict) and isinstance(room.get("name"), str):
            rooms[" ".join(room["name"].lower().split())] = _lower_words(
                room.get("aliases"), r_at / "aliases", "aliases"
            )
        else:
            raise r_at.error("a room must be a name or {name: ..., aliases: [...]}")
    for device in devices:
        if device.room and device.room not in rooms:
            rooms[device.room] = []
    return devices, rooms


# --------------------------------------------------------------------------- entry points


def _yaml_files(folder: Path) -> Iterator[Path]:
    if folder.is_dir():
        yield from sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml"))


def bundled_config_dir() -> Path:
    """The defaults shipped with Mnemolis (the checkout, or share/mnemolis)."""
    checkout = Path(__file__).resolve().parent.parent
    if (checkout / "intents").is_dir():
        return checkout
    return Path(sys.prefix) / "share" / "mnemolis"


#: The system-wide configuration of an installed daemon (see packaging/).
ETC_CONFIG_DIR = Path("/etc/mnemolis")
CONFIG_ENV = "MNEMOLIS_CONFIG"


def find_config_dir(
    explicit: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
    etc: Path = ETC_CONFIG_DIR,
) -> Path:
    """``--config``, then ``$MNEMOLIS_CONFIG``, then ``/etc/mnemolis`` (when it holds
    ``intents/``), then the defaults."""
    if explicit:
        return Path(explicit)
    env = (os.environ if environ is None else environ).get(CONFIG_ENV)
    if env:
        return Path(env)
    if (etc / "intents").is_dir():
        return etc
    return bundled_config_dir()


def load_config(root: str | os.PathLike[str] | None = None, language: str = "en") -> Config:
    """Read and validate a config directory holding ``intents/`` and ``sources/``."""
    base = find_config_dir(root)
    intent_dir = base / "intents" / language
    if not intent_dir.is_dir():
        raise ConfigError(intent_dir, None, "no intents directory for this language")
    files: list[Path] = []
    lang_data: dict[str, Any] | None = None
    lang_path: Path | None = None
    intent_docs: list[tuple[Path, dict[str, Any]]] = []
    for path in _yaml_files(intent_dir):
        files.append(path)
        data = _mapping(_read_yaml(path), _At(path), "the file")
        if path.stem == "language":
            lang_data, lang_path = data, path
        else:
            intent_docs.append((path, data))
    if lang_data is None or lang_path is None:
        raise ConfigError(intent_dir, None, "missing language.yaml")
    lang = _load_language(lang_data, _At(lang_path))

    slots: dict[str, SlotSpec] = {}
    device_nouns: dict[str, list[str]] = {}
    device_states: dict[str, list[str]] = {}
    for path, data in intent_docs:
        at = _At(path)
        for key in data:
            if key not in ("intents", "slots", "device_types", "language"):
                raise (at / key).error(f"unknown top-level key {key!r}")
        for name, raw in _mapping(data.get("slots"), at / "slots", "slots").items():
            if name in slots:
                raise (at / "slots" / name).error(f"slot {name!r} is defined twice")
            slots[name] = _load_slot(name, raw, at / "slots" / name)
        types = _mapping(data.get("device_types"), at / "device_types", "device_types")
        for dtype, raw in types.items():
            if dtype not in TYPE_ACTIONS:
                raise (at / "device_types" / dtype).error(f"unknown device type {dtype!r}")
            raw = _mapping(raw, at / "device_types" / dtype, "a device type")
            t_at = at / "device_types" / dtype
            device_nouns.setdefault(dtype, []).extend(
                _lower_words(raw.get("nouns"), t_at / "nouns", "nouns")
            )
            device_states.setdefault(dtype, []).extend(
                _lower_words(raw.get("states"), t_at / "states", "states")
            )
    intents: dict[str, IntentSpec] = {}
    for path, data in intent_docs:
        at = _At(path)
        for name, raw in _mapping(data.get("intents"), at / "intents", "intents").items():
            if name in intents:
                raise (at / "intents" / name).error(
                    f"intent {name!r} is already defined in {intents[name].path}"
                )
            intents[name] = _load_intent(str(name), raw, at / "intents" / name, slots)
    if not intents:
        raise ConfigError(intent_dir, None, "no intents defined")

    sources: dict[str, dict[str, Any]] = {}
    devices: list[Device] = []
    rooms: dict[str, list[str]] = {}
    for path in _yaml_files(base / "sources"):
        files.append(path)
        data = _mapping(_read_yaml(path), _At(path), "the file")
        sources[path.stem] = data
        if path.stem == "mqtt":
            devices, rooms = _load_devices(data, _At(path))
    return Config(
        root=base,
        language=lang,
        intents=intents,
        slots=slots,
        device_nouns=device_nouns,
        device_states=device_states,
        devices=devices,
        rooms=rooms,
        sources=sources,
        files=files,
    )
