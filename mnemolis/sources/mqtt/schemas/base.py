"""What every Home Assistant platform schema shares: reading its config, rendering its templates.

A platform module (``light_basic``, ``cover``, ``climate`` ...) has three
functions, as a Home Assistant MQTT entity has a schema and two callbacks:

* ``load(options, device)``: read the discovery config with `Options` (full
  keys, Home Assistant's defaults, every topic checked), fill the device's
  ``config``, ``topics``, ``features`` and ``caps``, or raise `BadConfig`;
* ``encode(device, act, state)``: the `Command`s that carry out an action
  (``state`` is the device's last reading, for what Home Assistant remembers);
* ``decode(device, role, payload)``: the canonical values in one message.

A template that does not compile is refused for its part only: a command
template takes its command with it (the answer says why), a value template
its state topic; the rest of the device still works (`Options.template`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mnemolis.core.devices import Device
from mnemolis.sources.mqtt import templates
from mnemolis.sources.mqtt.announced import BadConfig, check_subscription, check_topic
from mnemolis.sources.mqtt.templates import ENGINE, TemplateDisabled, TemplateError
from mnemolis.sources.mqtt.wire import Act, Command, Unsupported, payload_bytes

#: Where a device keeps the parts of its config that were refused: key -> reason.
REFUSED_PARTS = "refused_parts"
#: Where a device keeps the roles of the topics it reads (``state``, ``brightness_state`` ...).
STATE_ROLES = "state_roles"
#: Where a device keeps the roles of the topics it publishes to (``command``, ``set_position`` ...).
COMMAND_ROLES = "command_roles"

Load = Callable[["Options", Device], None]
Encode = Callable[[Device, Act, Mapping[str, Any]], list[Command]]
Decode = Callable[[Device, str, bytes], dict[str, Any]]
#: What a reading means given the one before (a cover's "stopped" is open or closed).
Settle = Callable[[Device, Mapping[str, Any], dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Platform:
    """One Home Assistant MQTT platform schema: how to read it, drive it, hear it."""

    component: str
    schema: str
    load: Load
    encode: Encode
    decode: Decode
    settle: Settle | None = None


class _Missing:
    pass


REQUIRED: Any = _Missing()


class Options:
    """A discovery config read the way Home Assistant's voluptuous schema reads it."""

    def __init__(self, raw: dict[str, Any], max_topic_chars: int = 256) -> None:
        self.raw = raw
        self.max_topic_chars = max_topic_chars
        self.config: dict[str, Any] = {}
        self.refused: dict[str, str] = {}
        self.subscribed: list[str] = []  # topic keys that are read, in order

    def _get(self, key: str, default: Any) -> Any:
        if key in self.raw:
            return self.raw[key]
        if default is REQUIRED:
            raise BadConfig(f"{key} is required")
        return default

    def text(self, key: str, default: Any = None, allow_none: bool = False) -> str | None:
        """``cv.string``: scalars become text ("True" for true), lists and maps are refused."""
        value = self._get(key, default)
        if value is None:
            if key in self.raw and not allow_none:
                raise BadConfig(f"{key} must not be null")
            self.config[key] = None
            return None
        if isinstance(value, dict | list):
            raise BadConfig(f"{key} must be a plain value")
        text = str(value)
        self.config[key] = text
        return text

    def topic(self, key: str, subscribe: bool = False) -> str | None:
        value = self.raw.get(key)
        if value is None:
            return None
        checker = check_subscription if subscribe else check_topic
        checked = checker(value, self.max_topic_chars)
        self.config[key] = checked
        if subscribe and key not in self.subscribed:
            self.subscribed.append(key)
        return checked

    def template(self, key: str, default: str | None = None) -> str | None:
        """A template that compiles here; else None, with the reason kept for answers."""
        value = self.raw.get(key, default)
        if value is None:
            return None
        try:
            source = templates.check(value)
        except TemplateError as exc:
            self.refused[key] = f"{key} {str(value)[:60]!r}: {exc}"
            return None
        self.config[key] = source
        return source

    def default_template(self, keys: Iterable[str]) -> None:
        """Home Assistant's ``value_template`` on a platform that reads several state
        topics (basic light, climate, water heater): the template of each of ``keys``
        the config leaves unset."""
        source = self.template("value_template")
        refused = self.refused.get("value_template")
        for key in keys:
            if self.config.get(key) is not None or key in self.refused:
                continue
            if source is not None:
                self.config[key] = source
            elif refused is not None:
                self.refused[key] = refused

    def integer(self, key: str, default: Any = None, minimum: int | None = None) -> int | None:
        value = self._get(key, default)
        if value is None:
            self.config[key] = None
            return None
        try:
            number = int(float(value)) if not isinstance(value, bool) else int(value)
        except (TypeError, ValueError, OverflowError):
            raise BadConfig(f"{key} must be a whole number") from None
        if minimum is not None and number < minimum:
            raise BadConfig(f"{key} must be at least {minimum}")
        self.config[key] = number
        return number

    def number(self, key: str, default: Any = None) -> float | None:
        """``vol.Coerce(float)``: zigbee2mqtt sends "35" for a max_temp."""
        value = self._get(key, default)
        if value is None:
            self.config[key] = None
            return None
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError):
            raise BadConfig(f"{key} must be a number") from None
        if number != number or number in (float("inf"), float("-inf")):
            raise BadConfig(f"{key} must be a finite number")
        self.config[key] = number
        return number

    def flag(self, key: str, default: bool = False) -> bool:
        value = self._get(key, default)
        if isinstance(value, str):
            lowered = value.strip().lower()
            if lowered in ("true", "yes", "on", "1", "enable"):
                value = True
            elif lowered in ("false", "no", "off", "0", "disable"):
                value = False
        if not isinstance(value, bool | int):
            raise BadConfig(f"{key} must be true or false")
        self.config[key] = bool(value)
        return bool(value)

    def strings(self, key: str, default: list[str] | None = None) -> list[str]:
        value = self._get(key, default if default is not None else [])
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            value = [value]
        if not isinstance(value, list) or any(isinstance(v, dict | list) for v in value):
            raise BadConfig(f"{key} must be a list of names")
        items = [str(v) for v in value][:256]
        self.config[key] = items
        return items

    def choice(self, key: str, default: str, allowed: tuple[str, ...]) -> str:
        value = str(self._get(key, default))
        if value not in allowed:
            raise BadConfig(f"{key} must be one of {', '.join(allowed)}")
        self.config[key] = value
        return value

    def qos(self) -> None:
        qos = self.integer("qos", 0, 0)
        if qos is not None and qos > 2:
            raise BadConfig("qos must be 0, 1 or 2")
        self.flag("retain", False)

    def finish(self, device: Device) -> None:
        """Hand the normalised config and every topic role to the device."""
        device.config = self.config
        if self.refused:
            device.extra[REFUSED_PARTS] = dict(self.refused)
        for key, value in self.config.items():
            if key.endswith("_topic") and isinstance(value, str):
                device.topics[key.removesuffix("_topic")] = value
        # a state topic whose value template was refused is not read at all
        dropped = {topic for key in self.refused for topic in _read_by(key)}
        device.extra[STATE_ROLES] = [
            key.removesuffix("_topic") for key in self.subscribed if key not in dropped
        ]
        device.extra[COMMAND_ROLES] = [
            key.removesuffix("_topic")
            for key, value in self.config.items()
            if key.endswith("_topic") and isinstance(value, str) and key not in self.subscribed
        ]


def _read_by(template_key: str) -> set[str]:
    """The topic keys a value template reads: ``brightness_value_template`` ->
    ``brightness_state_topic``, ``position_template`` -> ``position_topic`` ..."""
    if template_key in ("value_template", "state_value_template", "state_template"):
        return {"state_topic"}
    return {
        template_key.replace("_value_template", "_state_topic"),
        template_key.replace("_state_template", "_state_topic"),
        template_key.replace("_template", "_topic"),
    } - {template_key}


def refused_part(device: Device, key: str) -> str | None:
    parts = device.extra.get(REFUSED_PARTS)
    reason = parts.get(key) if isinstance(parts, dict) else None
    return reason if isinstance(reason, str) else None


def command(
    device: Device,
    topic_key: str,
    value: Any,
    template_key: str | None = None,
    variables: dict[str, Any] | None = None,
) -> Command:
    """One publish to ``topic_key``, through its command template when there is one."""
    config = device.config
    topic = config.get(topic_key)
    if not isinstance(topic, str):
        raise Unsupported("no_command_topic" if topic_key == "command_topic" else "cannot")
    if template_key is not None:
        reason = refused_part(device, template_key)
        if reason is not None:
            raise Unsupported("template_refused", reason)
    source = config.get(template_key) if template_key else None
    owner = (device.id, template_key) if template_key else None
    try:
        payload = ENGINE.render_command(source, value, variables, owner)
    except TemplateDisabled as exc:
        raise Unsupported("template_refused", str(exc)) from None
    except TemplateError as exc:
        raise Unsupported("template_failed", f"{template_key}: {exc}") from None
    return Command(
        topic,
        payload_bytes(payload),
        int(config.get("qos") or 0),
        bool(config.get("retain")),
        topic_key.removesuffix("_topic"),
    )


def value(device: Device, template_key: str, payload: bytes, variables: Any = None) -> str:
    """A received payload through its value template, as Home Assistant renders it.

    Raises ValueError when the template fails on this message (the message is
    then ignored, as Home Assistant ignores it)."""
    text = decode_text(payload)
    source = device.config.get(template_key)
    if not isinstance(source, str):
        return text
    try:
        return ENGINE.render_value(source, text, variables, (device.id, template_key))
    except TemplateError as exc:
        raise ValueError(f"{template_key}: {exc}") from None


def decode_text(payload: bytes) -> str:
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError("the payload is not UTF-8") from exc


def on_off(text: str, on: str, off: str) -> dict[str, Any]:
    """An on/off state payload (after its template); "None" means unknown."""
    if text == on:
        return {"state": "on"}
    if text == off:
        return {"state": "off"}
    return {"state": None} if text == "None" else {}


def on_off_state(device: Device, payload: bytes) -> dict[str, Any]:
    """The ``state`` topic of a platform with ``payload_on``/``payload_off``."""
    text = value(device, "state_value_template", payload)
    return on_off(text, device.config["payload_on"], device.config["payload_off"])


def require(options: Options, key: str, what: str) -> str:
    """A topic the platform cannot do without (Home Assistant's ``vol.Required``)."""
    topic = options.topic(key)
    if topic is None:
        raise BadConfig(f"{what} needs a {key}")
    return topic


def any_topic(options: Options) -> None:
    if not any(k.endswith("_topic") for k in options.config):
        raise BadConfig("it has neither a state topic nor a command topic")


def one_of(wanted: str | None, choices: list[str] | tuple[str, ...], what: str) -> str:
    """The device's own spelling of a spoken choice ("Eco" for "eco"), or Unsupported."""
    if wanted is None:
        raise Unsupported("no_value")
    folded = " ".join(wanted.lower().replace("_", " ").split())
    for choice in choices:
        if " ".join(choice.lower().replace("_", " ").split()) == folded:
            return choice
    raise Unsupported(f"unknown_{what}", ", ".join(choices[:12]))


def state_word(payload: str, table: dict[str, str]) -> str | None:
    """The canonical state whose configured payload this is (exact, as Home Assistant compares)."""
    for canonical, configured in table.items():
        if configured is not None and payload == configured:
            return canonical
    return None
