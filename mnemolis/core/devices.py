"""The device model shared by understanding (names, rooms, types) and the MQTT source.

Devices come from three places (YAML, Home Assistant discovery, zigbee2mqtt)
and are merged into one `DeviceRegistry`. Understanding only reads names,
aliases, rooms, types, ``features`` and ``caps`` (what the device can do, to
choose between "50 percent" as a brightness or a position); the MQTT source
also reads its wire description (topics, payloads, the platform ``config``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

#: Device types Mnemolis knows how to talk to, and what each can do: the contract
#: between understanding (an intent's ``action``) and the MQTT source's codecs. The
#: types are Home Assistant's MQTT platforms a voice request can reach; whether one
#: device really has a capability (brightness, colour, position ...) is its own
#: ``features``. ``toggle`` is carried out as the device's own ``turn_on`` or
#: ``turn_off``, whichever is the opposite of its last reported state.
#: The action that reads a device's state: every other one changes the device.
READ_ACTION = "state"
TYPE_ACTIONS: dict[str, tuple[str, ...]] = {
    "light": (
        "turn_on",
        "turn_off",
        "toggle",
        "set_brightness",
        "set_color",
        "set_color_temp",
        "set_effect",
        "state",
    ),
    "switch": ("turn_on", "turn_off", "toggle", "start", "stop", "state"),
    "fan": (
        "turn_on",
        "turn_off",
        "toggle",
        "set_percentage",
        "set_preset",
        "oscillate",
        "set_direction",
        "state",
    ),
    "lock": ("lock", "unlock", "open", "state"),
    "cover": ("open", "close", "stop", "set_position", "set_tilt", "state"),
    "valve": ("open", "close", "stop", "set_position", "state"),
    "climate": (
        "turn_on",
        "turn_off",
        "toggle",
        "set_temperature",
        "set_mode",
        "set_fan_mode",
        "set_swing_mode",
        "set_preset",
        "set_humidity",
        "state",
    ),
    "humidifier": ("turn_on", "turn_off", "toggle", "set_humidity", "set_mode", "state"),
    "water_heater": ("turn_on", "turn_off", "set_temperature", "set_mode", "state"),
    "vacuum": (
        "start",
        "stop",
        "pause",
        "return_to_base",
        "locate",
        "clean_spot",
        "set_fan_speed",
        "state",
    ),
    "lawn_mower": ("start", "pause", "return_to_base", "state"),
    "siren": ("turn_on", "turn_off", "toggle", "state"),
    "alarm_control_panel": (
        "arm_home",
        "arm_away",
        "arm_night",
        "arm_vacation",
        "disarm",
        "state",
    ),
    "scene": ("activate",),
    "button": ("press",),
    "select": ("select_option", "state"),
    "number": ("set_value", "state"),
    "sensor": ("state",),
    "binary_sensor": ("state",),
    "device_tracker": ("state",),
}

#: Words in ``Device.features``: what a device can do beyond its type. A light:
#: brightness, color, color_temp, effect, white; a cover or valve: position, tilt,
#: stop; a fan: percentage, preset, oscillate, direction; a climate: target_temperature,
#: target_temperature_range, fan_mode, swing_mode, preset, humidity, power; a vacuum:
#: start, pause, stop, return_home, locate, clean_spot, fan_speed; a lock: open; a siren:
#: tones, duration, volume; an alarm panel: arm_home, arm_away, arm_night, arm_vacation,
#: code. YAML devices name theirs; discovered ones get them from their config.
FEATURES = (
    "brightness",
    "color",
    "color_temp",
    "effect",
    "white",
    "position",
    "tilt",
    "stop",
    "percentage",
    "preset",
    "oscillate",
    "direction",
    "target_temperature",
    "target_temperature_range",
    "fan_mode",
    "swing_mode",
    "humidity",
    "power",
    "start",
    "pause",
    "return_home",
    "locate",
    "clean_spot",
    "fan_speed",
    "open",
    "tones",
    "duration",
    "volume",
    "code",
)


@dataclass
class Capabilities:
    """The lists and ranges a device announced: what its values may be.

    Understanding reads them to resolve "warm white", "eco" or "level 3";
    replies read them to say what a device offers. Empty means not announced.
    """

    color_modes: tuple[str, ...] = ()  # Home Assistant's: onoff brightness color_temp hs xy rgb ...
    min_kelvin: int | None = None
    max_kelvin: int | None = None
    effects: tuple[str, ...] = ()
    preset_modes: tuple[str, ...] = ()  # fan and climate presets
    modes: tuple[str, ...] = ()  # hvac, humidifier and water heater modes
    fan_modes: tuple[str, ...] = ()  # climate
    swing_modes: tuple[str, ...] = ()
    fan_speeds: tuple[str, ...] = ()  # vacuum fan_speed_list
    options: tuple[str, ...] = ()  # select
    tones: tuple[str, ...] = ()  # siren
    speed_count: int | None = None  # fan: the number of speeds (percentage steps)
    minimum: float | None = None  # number min, climate min_temp, humidity min
    maximum: float | None = None
    step: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """Only what was announced, for `mnemolis devices` and JSON answers."""
        return {k: v for k, v in self.__dict__.items() if v not in (None, ())}


def name_key(text: str) -> str:
    """A name as it is spoken, for lookups: "The Bulb_EndDevice" -> "bulb enddevice".

    Case, underscores, hyphens between words, runs of spaces and a leading
    "the" do not tell two names apart when they are said aloud.
    """
    spaced = re.sub(r"(?<=\w)[_-]+(?=\w)|_+", " ", text.lower())
    key = " ".join(spaced.split())
    return key[4:] if key.startswith("the ") and len(key) > 4 else key


@dataclass(frozen=True)
class Floor:
    """A storey of the house: its level (0 is the ground floor) and its areas."""

    name: str
    level: int | None = None
    aliases: tuple[str, ...] = ()
    areas: tuple[str, ...] = ()


def slugify(text: str) -> str:
    """A topic-safe id: lower-case letters, digits and underscores only."""
    slug = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    return slug or "device"


@dataclass
class Device:
    """One thing in the house that can be asked about or told what to do."""

    name: str
    type: str
    room: str | None = None
    aliases: list[str] = field(default_factory=list)
    features: list[str] = field(default_factory=list)
    id: str = ""
    origin: str = "yaml"  # yaml | homeassistant | zigbee2mqtt
    topics: dict[str, str] = field(default_factory=dict)
    payloads: dict[str, Any] = field(default_factory=dict)
    schema: str = "default"  # default | json
    #: What waits for a spoken yes besides what `sources/mqtt.yaml` ``confirm:`` guards by
    #: type and class: effects (open, unlock, disarm) or actions by name (start, press);
    #: decided by what a command does (`mnemolis.sources.mqtt.opening`).
    confirm: list[str] = field(default_factory=list)
    allow: list[str] | None = None
    unit: str | None = None
    device_class: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    caps: Capabilities = field(default_factory=Capabilities)
    #: The Home Assistant platform config that drives it (full keys, defaults
    #: applied); empty for the zigbee2mqtt-style JSON devices of ``schema: json``.
    config: dict[str, Any] = field(default_factory=dict)
    #: Why its announced config was refused: the device is known by name, and an
    #: answer about it says what was wrong instead of acting.
    refused: str | None = None

    def __post_init__(self) -> None:
        self.name = " ".join(self.name.lower().split())
        if self.room:
            self.room = " ".join(self.room.lower().split())
        self.aliases = [" ".join(a.lower().split()) for a in self.aliases if a.strip()]
        if not self.id:
            self.id = slugify(self.name)

    @property
    def names(self) -> list[str]:
        """Every name this device answers to, canonical first."""
        return [self.name, *self.aliases]

    def can(self, action: str) -> bool:
        """True when the type supports ``action`` and the owner allows it."""
        if self.refused is not None or action not in TYPE_ACTIONS.get(self.type, ()):
            return False
        return self.allow is None or action in self.allow or action == "state"


class DeviceRegistry:
    """All known devices, merged from every origin; safe to read from any thread.

    Listeners (understanding's name index) are told when the set changes, so
    a device announced by discovery is understood the moment it appears.
    """

    def __init__(self, devices: Iterable[Device] = (), rooms: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._devices: dict[str, Device] = {}
        self._names: dict[str, list[str]] | None = None  # spoken form -> device ids, lazily
        self._labels: dict[str, str] = {}  # device id -> its label, for the table above
        self._rooms: dict[str, list[str]] = {}
        self._floors: dict[str, Floor] = {}
        self._listeners: list[Callable[[DeviceRegistry], None]] = []
        for room in rooms:
            self._rooms.setdefault(" ".join(room.lower().split()), [])
        for device in devices:
            self._devices[device.id] = device

    def add_room(self, name: str, aliases: Iterable[str] = ()) -> None:
        with self._lock:
            key = " ".join(name.lower().split())
            self._rooms[key] = [" ".join(a.lower().split()) for a in aliases]
        self._notify()

    def add_floor(self, floor: Floor) -> None:
        """A floor and the areas on it (an area is on one floor: the last one named)."""
        key = " ".join(floor.name.lower().split())
        areas = tuple(" ".join(a.lower().split()) for a in floor.areas)
        with self._lock:
            for other in list(self._floors.values()):
                if other.name != key and set(other.areas) & set(areas):
                    kept = tuple(a for a in other.areas if a not in areas)
                    self._floors[other.name] = Floor(other.name, other.level, other.aliases, kept)
            self._floors[key] = Floor(
                key, floor.level, tuple(" ".join(a.lower().split()) for a in floor.aliases), areas
            )
            for area in areas:
                self._rooms.setdefault(area, [])
        self._notify()

    def floors(self) -> dict[str, Floor]:
        """Floor name to its level, aliases and areas."""
        with self._lock:
            return dict(self._floors)

    def upsert(self, device: Device) -> None:
        with self._lock:
            self._devices[device.id] = device
            self._names = None
            self._labels = {}
        self._notify()

    def remove(self, device_id: str) -> None:
        with self._lock:
            removed = self._devices.pop(device_id, None)
            self._names = None
            self._labels = {}
        if removed is not None:
            self._notify()

    def update(self, upserts: Iterable[Device] = (), removals: Iterable[str] = ()) -> bool:
        """Apply many changes, then tell listeners once.

        Discovery announces hundreds of devices in one burst; recompiling the
        name index after each of them would cost seconds.
        """
        changed = False
        with self._lock:
            for device_id in removals:
                changed = self._devices.pop(device_id, None) is not None or changed
            for device in upserts:
                changed = changed or self._devices.get(device.id) != device
                self._devices[device.id] = device
            if changed:
                self._names = None
                self._labels = {}
        if changed:
            self._notify()
        return changed

    def devices(self) -> list[Device]:
        with self._lock:
            return list(self._devices.values())

    def get(self, device_id: str) -> Device | None:
        with self._lock:
            return self._devices.get(device_id)

    def by_name(self, name: str) -> Device | None:
        """The device a spoken name means: its own name first, then a form only it has
        (an alias, its area + its name); of several sharing a name, the first."""
        key = name_key(name)
        with self._lock:
            ids = self._name_table().get(key, [])
            return self._devices.get(ids[0]) if ids else None

    def named(self, name: str) -> list[Device]:
        """Every device a spoken name may mean (two "ceiling light"s are two)."""
        key = name_key(name)
        with self._lock:
            return [self._devices[i] for i in self._name_table().get(key, [])]

    def label(self, device: Device) -> str:
        """What understanding puts in a part's ``device`` slot for ``device``: its
        name when no other device shares it, else its area + name when that is
        unique, else its id. `by_name` (or `get`, for an id) leads back to it."""
        with self._lock:
            table = self._name_table()
            labels = self._labels
            known = labels.get(device.id)
            if known is not None and self._devices.get(device.id) is device:
                return known
        label = device.id
        for form in (device.name, *area_forms(device)):
            if table.get(name_key(form)) == [device.id]:
                label = form
                break
        with self._lock:
            if self._labels is labels:
                labels[device.id] = label
        return label

    def _name_table(self) -> dict[str, list[str]]:
        """Spoken form -> device ids: names, then aliases that are no other device's
        name, then area-qualified names that are nobody's name or alias (lock held)."""
        if self._names is None:
            names: dict[str, list[str]] = {}
            for device in self._devices.values():
                names.setdefault(name_key(device.name), []).append(device.id)
            canonical = set(names)
            for device in self._devices.values():
                for form in device.aliases:
                    key = name_key(form)
                    if key in canonical and device.id not in names[key]:
                        continue  # "bedroom radiator" is the radiator, not its sibling's alias
                    ids = names.setdefault(key, [])
                    if device.id not in ids:
                        ids.append(device.id)
            own = set(names)
            for device in self._devices.values():
                for form in area_forms(device):
                    key = name_key(form)
                    if key in own:
                        continue  # a name some device has wins over an area + name
                    ids = names.setdefault(key, [])
                    if device.id not in ids:
                        ids.append(device.id)
            self._names = names
        return self._names

    def floor_of(self, room: str) -> Floor | None:
        with self._lock:
            return next((f for f in self._floors.values() if room in f.areas), None)

    def rooms(self) -> dict[str, list[str]]:
        """Room name to its aliases, including every room a device is in."""
        with self._lock:
            rooms = {k: list(v) for k, v in self._rooms.items()}
            for device in self._devices.values():
                if device.room and device.room not in rooms:
                    rooms[device.room] = []
        return rooms

    def subscribe(self, listener: Callable[[DeviceRegistry], None]) -> None:
        self._listeners.append(listener)

    def _notify(self) -> None:
        for listener in list(self._listeners):
            listener(self)


def area_forms(device: Device) -> list[str]:
    """ "ceiling light" in the kitchen is also "kitchen ceiling light", unless its
    name already says the area (aliases are not qualified: "kitchen latte" would
    be noise for fuzzy matching)."""
    room = device.room
    if not room:
        return []
    name = device.name
    return [] if name == room or name.startswith(room + " ") else [f"{room} {name}"]
