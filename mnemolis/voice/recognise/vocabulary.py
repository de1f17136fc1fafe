"""What can be said to this home: sentence templates with [class] slots, and the
classes' members, gathered from the loaded configuration.

The recogniser's language model is compiled from this and nothing else, so what
it can hear is what the configuration understands: the intents' examples and
phrases (the owner's too, and their routines), every slot's spoken values, the
home's device, area and floor names with their aliases, and the names the
sources keep (list items, music, encyclopedia titles). A class member stands
wherever its class does ("turn on the [device]" for every device), which is
what keeps the model small and lets a name never said in an example be heard.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mnemolis.config import Config
from mnemolis.core.devices import Device, DeviceRegistry
from mnemolis.core.package_data import load_package_yaml
from mnemolis.voice.recognise.spoken import number_words, spoken_words

#: Classes every home has, in the order a span is claimed (a device's name before
#: the area word inside it).
NAME_CLASSES = ("device", "area", "floor")
#: Free text (any common English word) and what is heard when nothing known was
#: said (the same words, told apart).
FREE = "free"
GARBAGE = "garbage"
#: the states a question asks about ("is the door open"): the `state` slot's words
STATE = "slot.state"
#: Open-ended names the sources keep: their words may still be garbage (a request
#: naming one is said with words of a sentence, which garbage never has).
KEPT_NAMES = ("item", "music", "title")
NUMBER = "number"
#: Sentence start and end, as the language model writes them.
EDGES = ("<s>", "</s>")
#: Numbers heard as one value: 0..100, then round ones (kelvin, years are rare).
NUMBERS = (*range(101), *range(200, 1001, 100), *range(1500, 10001, 500))


@dataclass(frozen=True)
class Template:
    """A sentence (``whole``) or a fragment of one: words and ``[class]`` tokens."""

    tokens: tuple[str, ...]
    weight: float = 1.0
    whole: bool = True


@dataclass
class Vocabulary:
    """Templates and classes; a class member is its spoken words -> the text to give back."""

    templates: list[Template] = field(default_factory=list)
    classes: dict[str, dict[tuple[str, ...], str]] = field(default_factory=dict)
    #: relative weights of members (default 1), e.g. a common word over a rare one
    weights: dict[str, dict[tuple[str, ...], float]] = field(default_factory=dict)

    def add_member(self, cls: str, words: Iterable[str], display: str, weight: float = 1.0) -> None:
        key = tuple(words)
        if not key:
            return
        members = self.classes.setdefault(cls, {})
        if key not in members:
            members[key] = display
            if weight != 1.0:
                self.weights.setdefault(cls, {})[key] = weight

    def add(self, tokens: Iterable[str], weight: float = 1.0, whole: bool = True) -> None:
        toks = tuple(tokens)
        if toks and weight > 0:
            self.templates.append(Template(toks, weight, whole))

    def words(self) -> set[str]:
        """Every plain word of the templates and every word of a class member."""
        out = {
            t for tpl in self.templates for t in tpl.tokens if not is_class(t) and t not in EDGES
        }
        for members in self.classes.values():
            for key in members:
                out.update(key)
        return out

    def digest(self, *extra: Any) -> str:
        """A key for the compiled model: the same vocabulary, the same model."""
        h = hashlib.sha256()
        for tpl in sorted(self.templates, key=lambda t: (t.tokens, t.weight, t.whole)):
            h.update(json.dumps([tpl.tokens, round(tpl.weight, 6), tpl.whole]).encode())
        for cls in sorted(self.classes):
            members = self.classes[cls]
            weights = self.weights.get(cls, {})
            for key in sorted(members):
                h.update(json.dumps([cls, key, members[key], weights.get(key, 1.0)]).encode())
        h.update(json.dumps(extra, sort_keys=True, default=str).encode())
        return h.hexdigest()[:24]


def is_class(token: str) -> bool:
    return len(token) > 2 and token[0] == "[" and token[-1] == "]"


def class_token(name: str) -> str:
    return f"[{name}]"


def home_names(vocab: Vocabulary, config: Config, registry: DeviceRegistry | None) -> None:
    """The device, area and floor names (with aliases) and the nouns of the device
    types this home has."""
    devices = _devices(config, registry)
    _device_members(vocab, "device", devices)
    rooms: Mapping[str, list[str]] = registry.rooms() if registry is not None else config.rooms
    for room, aliases in rooms.items():
        for name in (room, *aliases):
            vocab.add_member("area", spoken_words(name), name)
    floors = registry.floors() if registry is not None else {f.name: f for f in config.floor_specs}
    for floor in floors.values():
        for name in (floor.name, *floor.aliases):
            vocab.add_member("floor", spoken_words(name), name)
    present = {device.type for device in devices}
    for dtype, nouns in config.device_nouns.items():
        if dtype not in present:  # every noun heard is one more way to mishear
            continue
        for noun in nouns:
            vocab.add_member("noun", spoken_words(noun), noun)
    sensed(vocab, config, devices)


def sensed(vocab: Vocabulary, config: Config, devices: Iterable[Device]) -> None:
    """What the home's sensors are asked by (`device_classes.yaml`): a class's words are
    nouns ("are any windows open", "which leak sensors are wet") and a binary sensor's
    on and off words are states ("is co detected", "are the smoke detectors clear")."""
    for dclass in config.device_classes.classes:
        if not any(d.type == dclass.domain and dclass.covers(d.device_class) for d in devices):
            continue
        for word in dclass.words:
            vocab.add_member("noun", spoken_words(word), word)
        for word in (*dclass.on, *dclass.off):
            vocab.add_member(STATE, spoken_words(word), word)


def _devices(config: Config, registry: DeviceRegistry | None) -> list[Device]:
    return registry.devices() if registry is not None else list(config.devices)


def _device_members(vocab: Vocabulary, cls: str, devices: Iterable[Device]) -> None:
    for device in devices:
        for name in device.names:
            vocab.add_member(cls, spoken_words(name), name)


#: The classes a command narrows to the devices that can obey it (`patterns.type_rules`).
TYPED = ("device", "noun")


def typed_classes(seqs: Iterable[Iterable[str]]) -> set[str]:
    """The classes of devices or nouns of some types (``[device.cover+lock]``) these
    token sequences name."""
    found = set()
    for seq in seqs:
        for tok in seq:
            if is_class(tok) and "." in tok and tok[1:-1].split(".", 1)[0] in TYPED:
                found.add(tok[1:-1])
    return found


def action_classes(
    vocab: Vocabulary, config: Config, registry: DeviceRegistry | None, wanted: Iterable[str]
) -> None:
    """Each class of ``wanted`` filled: the devices (or the nouns) of its types, those
    that can do what a command said (`patterns.typed_class`), so a command names only
    what can obey it."""
    devices = _devices(config, registry)
    present = {d.type for d in devices}
    for cls in sorted(wanted):
        base, _, named = cls.partition(".")
        types = set(named.split("+"))
        if base == "device":
            _device_members(vocab, cls, (d for d in devices if d.type in types))
        else:
            for dtype in sorted(types & present):
                for noun in config.device_nouns.get(dtype, ()):
                    vocab.add_member(cls, spoken_words(noun), noun)


def numbers(vocab: Vocabulary) -> None:
    for n in NUMBERS:
        vocab.add_member(NUMBER, number_words(n), " ".join(number_words(n)))


def slot_values(vocab: Vocabulary, config: Config) -> None:
    """Each list, place or number slot's spoken forms ("half", "warm white"), a class
    of its own."""
    for slot in config.slots.values():
        # a number slot's words ("half", "the highest") are a class of their own too
        if slot.type not in ("list", "place", "number") or not slot.values:
            continue
        cls = "location" if slot.type == "place" else f"slot.{slot.name}"
        for form in slot.values:
            words = spoken_words(form)
            if words:
                vocab.add_member(cls, words, " ".join(words))
    for form in config.slots["list_name"].values if "list_name" in config.slots else ():
        vocab.add_member("list", spoken_words(form), form)


def source_names(vocab: Vocabulary, names: Mapping[str, Iterable[str]], limit: int) -> None:
    """Names the sources keep ("item", "music", "title", "list"), at most ``limit`` each."""
    for cls, values in names.items():
        kept = 0
        for value in values:
            words = spoken_words(value)
            if not words or len(words) > 8:
                continue
            vocab.add_member(cls, words, " ".join(words))
            kept += 1
            if kept >= limit:
                break


def common_items(vocab: Vocabulary) -> None:
    """What people put on lists (`data/items.yaml`), beside the home's own items: an
    empty list's first "add apples to the shopping list" can be heard too."""
    data = load_package_yaml("mnemolis.voice.recognise", "items")
    for item in data.get("items") or []:
        words = spoken_words(str(item))
        if words:
            vocab.add_member("item", words, " ".join(words))


def free_words(vocab: Vocabulary, words: Iterable[tuple[str, float]]) -> None:
    """Common English words for free text ([free]: list items, messages, topics), each
    as likely: weighted by frequency, "the" and "a" would fill any stretch of sound."""
    for word, _weight in words:
        vocab.add_member(FREE, (word,), word)


def garbage_words(vocab: Vocabulary, words: Iterable[tuple[str, float]], count: int) -> None:
    """What speech that is no request sounds like ([garbage]): common words the requests
    do not use, so a request is never better explained as garbage, and an
    out-of-vocabulary sentence is (a decoded path through them says it was none)."""
    used = {t for tpl in vocab.templates for t in tpl.tokens if not is_class(t)}
    for cls, members in vocab.classes.items():
        if cls != FREE and cls not in KEPT_NAMES:
            used.update(w for key in members for w in key)
    kept = 0
    for word, _weight in words:
        if word in used:
            continue
        vocab.add_member(GARBAGE, (word,), word)
        kept += 1
        if kept >= count:
            break
