"""The MQTT devices source: answers `device.*` and `sensor.read` parts.

State questions are answered from a cache fed by retained and live state
messages. Commands are published with QoS 1 to topics that come only from
`sources/mqtt.yaml` or from discovery, then confirmed by the device's own
state echo within ``timeouts.confirm_s``; without an echo the answer says so
(status ``not_confirmed``) rather than pretending. Devices announced by Home
Assistant discovery or zigbee2mqtt are merged into the shared registry, which
understanding's name index follows, so a new device is understood at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz, process

from mnemolis.config import Config, ConfigError, line_of
from mnemolis.devices import TYPE_ACTIONS, Device, DeviceRegistry
from mnemolis.mqtt_connection.link import MqttLink
from mnemolis.plan import Part
from mnemolis.sources.base import (
    Evaluation,
    Finding,
    PartAnswer,
    Request,
    SensorReading,
    Status,
    Truth,
)
from mnemolis.sources.mqtt import codec
from mnemolis.sources.mqtt.discovery import (
    BadConfig,
    Discovered,
    HomeAssistantParser,
    Zigbee2MqttParser,
    check_topic,
)
from mnemolis.sources.mqtt.known import KnownDevices, Route, routes_for
from mnemolis.sources.mqtt.replies import Phrasebook
from mnemolis.sources.mqtt.settings import MqttSettings, load_mqtt_settings
from mnemolis.sources.mqtt.state import DeviceState, StateCache

log = logging.getLogger(__name__)

SOURCE = "mqtt"
READ_ONLY = ("sensor", "binary_sensor")
#: Worst first: a part over several devices takes the worst status among them.
SEVERITY = (
    Status.ERROR,
    Status.NOT_CONFIRMED,
    Status.NEEDS_CONFIRMATION,
    Status.DECLINED,
    Status.OUT_OF_SCOPE,
    Status.DONE,
    Status.OK,
)
COMPLAINT_EVERY_S = 60.0


@dataclass
class DiscoveryReport:
    """What a one-shot caller learned while waiting for retained messages."""

    connected: bool
    complete: bool  # every retained config and state arrived before the deadline
    devices: int
    discovered: int
    ms: float


def _contains(text: str, words: set[str]) -> bool:
    padded = f" {' '.join(text.lower().split())} "
    return any(f" {w} " in padded for w in words)


class MqttSource:
    """Devices over MQTT: YAML, Home Assistant discovery and zigbee2mqtt."""

    name = SOURCE

    def __init__(
        self,
        config: Config,
        registry: DeviceRegistry,
        settings: MqttSettings | None = None,
        phrasebook: Phrasebook | None = None,
    ) -> None:
        self.config = config
        self.registry = registry
        self.last_report: DiscoveryReport | None = None
        self.settings = settings if settings is not None else load_mqtt_settings(config)
        self.words = phrasebook if phrasebook is not None else Phrasebook.from_config(config)
        limits = self.settings.limits
        self._check_yaml_devices(config.devices)
        self.cache = StateCache()
        self.known = KnownDevices(registry, list(config.devices), limits.devices)
        self.link = MqttLink(self.settings.broker, self._on_message)
        self.link.max_payload = limits.payload_bytes
        self.link.on_connected = self._refresh_subscriptions
        disc = self.settings.discovery
        self._rooms: tuple[str, ...] = tuple(registry.rooms())
        self.homeassistant = (
            HomeAssistantParser(disc.homeassistant_prefix, limits.topic_chars, self._room_names)
            if disc.homeassistant
            else None
        )
        self.zigbee2mqtt = (
            Zigbee2MqttParser(
                disc.zigbee2mqtt_base,
                limits.topic_chars,
                self._room_names,
                disc.zigbee2mqtt_sensors,
                disc.zigbee2mqtt_binary_sensors,
            )
            if disc.zigbee2mqtt
            else None
        )
        self._routes: dict[str, list[Route]] = {}
        self._route_devices: dict[str, Device] = {}
        self._routes_dirty = True
        self._routes_lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started = False
        self._closed = False
        self._flush_scheduled = False
        self._refresh_scheduled = False
        self._flush_lock = asyncio.Lock()
        self._complaints: dict[str, float] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        registry.subscribe(self._on_registry_change)
        self.known.flush()  # YAML devices are known before the broker is

    # ------------------------------------------------------------------ set-up

    def _check_yaml_devices(self, devices: list[Device]) -> None:
        """Topics written by the owner get the same checks as discovered ones."""
        path = self.config.root / "sources" / "mqtt.yaml"
        for i, device in enumerate(devices):
            if device.schema not in ("json", "default"):
                raise ConfigError(
                    path,
                    line_of(path, ("devices", i, "schema")),
                    f"device {device.name!r}: schema must be json or default",
                )
            for role, topic in device.topics.items():
                try:
                    check_topic(topic, self.settings.limits.topic_chars)
                except BadConfig as exc:
                    raise ConfigError(
                        path,
                        line_of(path, ("devices", i, "topics", role)),
                        f"device {device.name!r}: {exc}",
                    ) from exc
            payloads: dict[Any, Any] = device.payloads
            for word in (True, False):  # YAML 1.1 reads an unquoted on/off key as a boolean
                if word in payloads:
                    payloads["on" if word else "off"] = payloads.pop(word)

    def _room_names(self) -> tuple[str, ...]:
        return self._rooms

    async def start(self) -> None:
        """Connect in the background; a dead broker is not an error here."""
        if self._started:
            return
        self._loop = asyncio.get_running_loop()
        self._started = True
        self._refresh_subscriptions()
        await self.link.start()

    async def close(self) -> None:
        self._closed = True
        await self.link.close()
        for task in list(self._tasks):
            await task

    @property
    def connected(self) -> bool:
        return self.link.connected

    async def wait_for_devices(self, timeout_s: float | None = None) -> DiscoveryReport:
        """Wait (boundedly) until retained discovery configs and states have arrived.

        A one-shot `mnemolis ask` calls this before understanding its query,
        so it knows every announced device and its last state.
        """
        t0 = time.perf_counter()
        timeout = self.settings.discovery.wait_s if timeout_s is None else timeout_s
        complete = False
        if self._started and self._loop is not None:
            deadline = self._loop.time() + timeout
            if await self.link.sync(timeout):
                await self._flush()
                self._refresh_subscriptions()
                complete = await self.link.sync(max(0.0, deadline - self._loop.time()))
            else:
                await self._flush()
        self.last_report = DiscoveryReport(
            connected=self.link.connected,
            complete=complete,
            devices=len(self.registry.devices()),
            discovered=self.known.discovered_count(),
            ms=(time.perf_counter() - t0) * 1000,
        )
        return self.last_report

    async def diagnose(self) -> list[Finding]:
        """`base.Diagnosable`: the broker reachable, every device heard from."""
        from mnemolis.sources.mqtt import doctor

        return [await doctor.diagnose(self)]

    def state_of(self, device_id: str) -> DeviceState | None:
        return self.cache.get(device_id)

    def read_sensor(self, name: str) -> SensorReading | None:
        """`base.ReadsSensors`: a sensor's last numeric reading, for the weather source."""
        device = self.registry.by_name(name)
        state = self.state_of(device.id) if device is not None else None
        if device is None or state is None or state.available is False:
            return None
        value = state.values.get("value")
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        age = state.age(self.cache.clock()) or 0.0
        return SensorReading(float(value), device.unit or "", age)

    def watch(self, part: Part, changed: Callable[[], None]) -> Callable[[], None]:
        """`base.WatchesDevices`: ``changed`` on the loop after each update of the devices
        ``part`` names (a `StateWatch` whose predicate passes every update on, never
        resolving); the timers source evaluates the part again each time."""
        devices, _problem = self._devices_for(part)
        loop = asyncio.get_running_loop()

        def offer(_values: dict[str, Any]) -> bool:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits any more
                loop.call_soon_threadsafe(changed)
            return False

        watches = [self.cache.watch(d.id, offer, loop) for d in devices]

        def stop() -> None:
            for one in watches:
                one.cancel()

        return stop

    async def publish(self, topic: str, payload: bytes, qos: int = 1, retain: bool = False) -> bool:
        """`base.Publishes`: one message on a topic from configuration (a routine's
        `publish:`, an external intent), within `timeouts.answer_s`; True once the
        broker has it (QoS 1, 2) or it was sent (QoS 0)."""
        if not self._started or self._closed or self._loop is None:
            return False
        deadline = self._loop.time() + self.settings.timeouts.answer_s
        outcome = await self.link.publish(topic, payload, deadline, qos, retain)
        return outcome.sent and outcome.acknowledged

    # ------------------------------------------------------------------ registry and routes

    def _on_registry_change(self, registry: DeviceRegistry) -> None:
        """Any thread: new devices mean new state topics to follow."""
        if self._closed:
            return
        self._routes_dirty = True
        self._rooms = tuple(registry.rooms())
        loop = self._loop
        if loop is not None and not self._refresh_scheduled and not loop.is_closed():
            self._refresh_scheduled = True
            try:
                loop.call_soon_threadsafe(self._refresh_subscriptions)
            except RuntimeError:
                self._refresh_scheduled = False

    def _route_table(self) -> tuple[dict[str, list[Route]], dict[str, Device]]:
        """Topic -> devices, rebuilt lazily after the registry changed (from either thread)."""
        with self._routes_lock:
            if self._routes_dirty:
                self._routes_dirty = False
                devices = self.registry.devices()
                self._route_devices = {d.id: d for d in devices}
                self._routes = routes_for(devices)
            return self._routes, self._route_devices

    def _refresh_subscriptions(self) -> None:
        self._refresh_scheduled = False
        if self._closed:
            return
        routes, _ = self._route_table()
        topics = set(routes)
        if self.homeassistant is not None:
            prefix = self.homeassistant.prefix
            topics.update({f"{prefix}/+/+/config", f"{prefix}/+/+/+/config"})
        if self.zigbee2mqtt is not None:
            topics.add(self.zigbee2mqtt.devices_topic)
        self.link.set_subscriptions(topics)

    # ------------------------------------------------------------------ messages (paho thread)

    def _complain(self, key: str, message: str, *args: object) -> None:
        """Log a bad message, at most once a minute per topic, so a flood stays readable."""
        now = time.monotonic()
        if len(self._complaints) > 1000:  # a flood of distinct bad topics must not grow memory
            self._complaints.clear()
        if now - self._complaints.get(key, -COMPLAINT_EVERY_S) >= COMPLAINT_EVERY_S:
            self._complaints[key] = now
            log.warning(message, *args)

    def _on_message(self, topic: str, payload: bytes, _retained: bool) -> None:
        limits = self.settings.limits
        z2m = self.zigbee2mqtt
        if z2m is not None and topic == z2m.devices_topic:
            if len(payload) > limits.bridge_payload_bytes:
                self._complain(topic, "ignored %s: %d bytes is over the limit", topic, len(payload))
                return
            self._stage(z2m.parse(payload, limits.devices))
            return
        if len(payload) > limits.payload_bytes:
            self._complain(
                topic, "ignored %s: %d bytes is over the limit", topic[:120], len(payload)
            )
            return
        if self.homeassistant is not None and self.homeassistant.match(topic) is not None:
            self._stage(self.homeassistant.parse(topic, payload))
            return
        routes, devices = self._route_table()
        for route in routes.get(topic, ()):
            device = devices.get(route.device_id)
            if device is not None:
                self._feed(device, route, topic, payload)

    def _feed(self, device: Device, route: Route, topic: str, payload: bytes) -> None:
        try:
            if route.role == "availability":
                spec = codec.availability_specs(device)[route.availability]
                available = codec.decode_availability(spec, payload)
                mode = str(device.extra.get("availability_mode", "all"))
                self.cache.set_availability(device.id, topic, available, mode)
            else:
                reading = codec.decode(device, route.role, payload)
                self.cache.apply(device.id, reading.values, reading.at)
        except (ValueError, IndexError, TypeError) as exc:
            self._complain(
                topic, "ignored a message on %s for the %s: %s", topic[:120], device.name, exc
            )

    def _stage(self, found: Discovered) -> None:
        for problem in found.problems[:20]:
            self._complain(
                f"{found.key}:{problem[:40]}", "discovery %s: %s", found.key[:120], problem
            )
        self.known.stage(found)
        loop = self._loop
        if loop is not None and not self._flush_scheduled and not loop.is_closed():
            self._flush_scheduled = True
            try:
                loop.call_soon_threadsafe(loop.call_later, 0.05, self._flush_soon)
            except RuntimeError:
                self._flush_scheduled = False

    def _flush_soon(self) -> None:
        self._flush_scheduled = False
        if not self._closed:
            task = asyncio.ensure_future(self._flush())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _flush(self) -> None:
        """Apply staged discovery to the registry, off the event loop (the name index
        recompiles in the registry listener and takes a while with many devices)."""
        async with self._flush_lock:
            if not self.known.pending:
                return
            report = await asyncio.to_thread(self.known.flush)
            for device_id in report.removed:
                self.cache.forget(device_id)
            if report.changed:
                log.info(
                    "discovery: %d new, %d changed, %d removed devices",
                    len(report.added),
                    len(report.updated),
                    len(report.removed),
                )

    # ------------------------------------------------------------------ answers

    def _reply(
        self, text: str, status: Status, data: dict[str, Any] | None = None, **prov: Any
    ) -> PartAnswer:
        return PartAnswer(text, status, SOURCE, data or {}, dict(prov))

    def _devices_for(self, part: Part) -> tuple[list[Device], PartAnswer | None]:
        raw = part.slots.get("device")
        if isinstance(raw, str):
            names = [raw]
        elif isinstance(raw, list | tuple):
            names = [n for n in raw if isinstance(n, str)]
        else:
            names = []
        everyone = sorted(d.name for d in self.registry.devices())
        if not names:
            room = part.slots.get("room")
            in_room = sorted(d.name for d in self.registry.devices() if room and d.room == room)
            if in_room:
                text = self.words.say("which_in_room", room=room, names=self.words.names(in_room))
            else:
                text = self.words.say("which_device", names=self.words.names(everyone))
            return [], self._reply(text, Status.ERROR, {"known": everyone})
        found: list[Device] = []
        for name in names:
            device = self.registry.by_name(name) or self.registry.get(name)
            if device is None:
                close = [
                    c for c, _s, _i in process.extract(name, everyone, scorer=fuzz.WRatio, limit=8)
                ]
                text = self.words.say(
                    "unknown_device", name=name[:60], names=self.words.names(close or everyone)
                )
                return [], self._reply(
                    text, Status.ERROR, {"unknown": name[:60], "known": everyone}
                )
            if device not in found:
                found.append(device)
        return found, None

    async def answer(self, part: Part, request: Request) -> PartAnswer:
        t0 = time.perf_counter()
        try:
            result = await self._answer(part, request)
        except Exception as exc:  # the executor must get a sentence, never a traceback
            log.exception("the MQTT source failed on %r", part.text[:120])
            result = self._reply(f"the MQTT source failed: {exc}", Status.ERROR)
        result.ms = (time.perf_counter() - t0) * 1000
        return result

    async def _answer(self, part: Part, request: Request) -> PartAnswer:
        spec = self.config.intent(part.intent)
        action = spec.action if spec is not None and spec.action else None
        devices, problem = self._devices_for(part)
        if problem is not None:
            return problem
        if action is None:
            return self._reply(self.words.say("no_action", devices[0]), Status.OUT_OF_SCOPE)
        if len(devices) == 1:
            return await self._one(devices[0], action, part, request)
        if action != "state" and not request.confirmed:
            waiting = [
                d
                for d in devices
                if d.can(self._base(self._refine(d, action, part)))
                and d.needs_confirmation(self._base(self._refine(d, action, part)))
            ]
            if waiting:
                actions = [self.words.action(self._refine(d, action, part), d) for d in waiting]
                conj = f" {self.words.say('and')} "
                question = self.words.say("confirm", action=conj.join(actions))
                data = {"devices": [d.name for d in waiting], "action": action}
                return self._reply(question, Status.NEEDS_CONFIRMATION, data)
        answers = await asyncio.gather(*(self._one(d, action, part, request) for d in devices))
        return self._combine(devices, list(answers))

    def _combine(self, devices: list[Device], answers: list[PartAnswer]) -> PartAnswer:
        status = min((a.status for a in answers), key=SEVERITY.index)
        said = [a.data.get("said") for a in answers]
        if all(a.status == Status.DONE for a in answers) and len(set(said)) == 1 and said[0]:
            names = self.words.names([d.name for d in devices], limit=len(devices))
            text = self.words.say("done_many", names=names, state=said[0])
        else:
            text = "; ".join(a.text for a in answers)
        data = {"devices": [{"status": str(a.status), **a.data} for a in answers]}
        return self._reply(text, status, data)

    @staticmethod
    def _base(action: str) -> str:
        return codec.BASE_ACTIONS.get(action, action)

    def _refine(self, device: Device, action: str, part: Part) -> str:
        """ "send the vacuum home" asks for its dock, not for a stop where it stands."""
        returning = _contains(part.text, self.words.adjust.return_to_base)
        if device.type == "vacuum" and action == "stop" and returning:
            return "return_to_base"
        return action

    def _value(self, device: Device, action: str, part: Part) -> tuple[Any, str | None]:
        """The number or colour a command carries: from a slot, or for "brighter" /
        "warmer" from the cached state plus a step; the text only picks the direction
        from the word lists in YAML and never becomes part of a payload."""
        adjust = self.words.adjust
        state = self.cache.get(device.id)
        values = state.values if state is not None else {}
        if action == "set_brightness":
            raw = part.slots.get("brightness")
            if isinstance(raw, int | float) and not isinstance(raw, bool):
                return max(0.0, min(100.0, float(raw))), None
            current = values.get("brightness")
            if not isinstance(current, int | float):
                current = 100.0 if values.get("state") != "off" else 0.0
            if _contains(part.text, adjust.dimmer):
                return max(1.0, float(current) - adjust.brightness_step), None
            if _contains(part.text, adjust.brighter):
                return min(100.0, float(current) + adjust.brightness_step), None
            return None, "no_value"
        if action == "set_color":
            name = part.slots.get("color")
            color = self.words.color(name) if isinstance(name, str) else None
            if color is None:
                return None, "unknown_color" if isinstance(name, str) else "no_value"
            return color, None
        if action == "set_temperature":
            raw = part.slots.get("temperature")
            low, high = device.extra.get("min_temp", 5.0), device.extra.get("max_temp", 95.0)
            if isinstance(raw, int | float) and not isinstance(raw, bool):
                return max(float(low), min(float(high), float(raw))), None
            current = values.get("target_temperature")
            if isinstance(current, int | float):
                if _contains(part.text, adjust.cooler):
                    return float(current) - adjust.temperature_step, None
                if _contains(part.text, adjust.warmer):
                    return float(current) + adjust.temperature_step, None
            return None, "no_value"
        return None, None

    async def _one(self, device: Device, action: str, part: Part, request: Request) -> PartAnswer:
        if action == "state":
            return self._state_answer(device, part)
        action = self._refine(device, action, part)
        base = self._base(action)
        data: dict[str, Any] = {"device": device.name, "device_id": device.id, "action": action}
        if base not in TYPE_ACTIONS.get(device.type, ()):
            key = "read_only" if device.type in READ_ONLY else "cannot"
            text = self.words.say(
                key, device, action=self.words.action(action, device), kind=self.words.kind(device)
            )
            return self._reply(text, Status.OUT_OF_SCOPE, data)
        if not device.can(base):
            text = self.words.say("not_allowed", device, action=self.words.action(action, device))
            return self._reply(text, Status.DECLINED, data, allow=list(device.allow or []))
        value, problem = self._value(device, action, part)
        shown = self._shown(device, action, value)
        phrase = self.words.action(action, device, shown)
        if problem is not None:
            color = part.slots.get("color")
            text = self.words.say(problem, device, action=phrase, color=color)
            return self._reply(text, Status.ERROR, data)
        if device.needs_confirmation(base) and not request.confirmed:
            return self._reply(
                self.words.say("confirm", device, action=phrase), Status.NEEDS_CONFIRMATION, data
            )
        try:
            commands = codec.encode(device, action, value)
        except codec.Unsupported as exc:
            status = Status.ERROR if exc.reason == "no_command_topic" else Status.OUT_OF_SCOPE
            return self._reply(self.words.say(exc.reason, device, action=phrase), status, data)
        data["commands"] = [{"topic": c.topic, "payload": c.payload} for c in commands]
        if not self._started or self._closed:
            return self._reply(self.words.say("not_started", device), Status.ERROR, data)
        state = self.cache.get(device.id)
        if state is not None and state.available is False:
            return self._reply(self.words.say("unavailable_command", device), Status.ERROR, data)
        return await self._send(device, action, value, commands, request, data)

    def _shown(self, device: Device, action: str, value: Any) -> str | None:
        if value is None:
            return None
        if isinstance(value, codec.Color):
            return value.name
        if action == "set_temperature":
            return self.words.quantity(device, float(value))
        return codec.format_number(float(value))

    def _has_state(self, device: Device) -> bool:
        return any(r in device.topics for r in codec.STATE_ROLES)

    async def _send(
        self,
        device: Device,
        action: str,
        value: Any,
        commands: list[codec.Command],
        request: Request,
        data: dict[str, Any],
    ) -> PartAnswer:
        loop = asyncio.get_running_loop()
        timeouts = self.settings.timeouts
        start = loop.time()
        budget = max(0.05, min(request.timeout_s, timeouts.answer_s))
        confirm_s = min(timeouts.confirm_s, budget)
        send_deadline = start + confirm_s
        seconds = codec.format_number(timeouts.confirm_s)
        broker = self.settings.broker.address
        prov = {"origin": device.origin, "qos": 1}
        if self.link.down_until_after(send_deadline):
            reason = self.link.last_error or "not connected"
            text = self.words.say("broker_down", device, broker=broker, reason=reason)
            return self._reply(text, Status.ERROR, data, **prov, broker=broker)
        watch = (
            self.cache.watch(device.id, codec.expectation(device, action, value), loop)
            if self._has_state(device)
            else None
        )
        try:
            for command in commands:
                outcome = await self.link.publish(
                    command.topic, command.payload.encode(), send_deadline
                )
                if not outcome.sent:
                    reason = self.link.last_error or "not connected"
                    text = self.words.say("broker_down", device, broker=broker, reason=reason)
                    return self._reply(text, Status.ERROR, data, **prov, broker=broker)
                if not outcome.acknowledged:
                    text = self.words.say(
                        "not_acknowledged", device, broker=broker, seconds=seconds
                    )
                    return self._reply(text, Status.NOT_CONFIRMED, data, **prov)
            if watch is None:
                return self._reply(
                    self.words.say("not_reported", device), Status.NOT_CONFIRMED, data, **prov
                )
            sent_at = loop.time()
            echo_deadline = min(sent_at + timeouts.confirm_s, start + budget)
            echoed = await watch.wait(echo_deadline - loop.time())
        finally:
            if watch is not None:
                watch.cancel()
        if echoed is None:
            text = self.words.say("not_confirmed", device, seconds=seconds)
            return self._reply(text, Status.NOT_CONFIRMED, data, **prov)
        sentence = self._done_sentence(device, action, value, echoed.values)
        data["state"] = echoed.values
        data["said"] = self._said_state(device, echoed.values)
        return self._reply(
            self.words.say("done", sentence=sentence),
            Status.DONE,
            data,
            **prov,
            confirmed_by="state echo",
        )

    def _done_sentence(
        self, device: Device, action: str, value: Any, values: dict[str, Any]
    ) -> str:
        if action == "set_color" and isinstance(value, codec.Color):
            return self.words._sentence("color", device, color=value.name)
        return self.words.describe(device, values) or self.words.say(
            "done", device, sentence=device.name
        )

    def _said_state(self, device: Device, values: dict[str, Any]) -> str | None:
        state = values.get("state")
        if device.type in ("light", "switch", "fan", "lock", "cover") and isinstance(state, str):
            if device.type == "light" and 0 < (values.get("brightness") or 100) < 100:
                return None
            return self.words.state_word(device, state)
        return None

    # ------------------------------------------------------------------ state questions

    def _state_answer(self, device: Device, part: Part) -> PartAnswer:
        state = self.cache.get(device.id)
        wanted = part.slots.get("state") if isinstance(part.slots.get("state"), str) else None
        data: dict[str, Any] = {"device": device.name, "device_id": device.id}
        if state is not None:
            data["available"] = state.available
        if state is None or not state.values:
            return self._reply(self._no_reading(device, state), Status.ERROR, data)
        data["state"] = dict(state.values)
        age = state.age(self.cache.clock())
        data["age_s"] = round(age, 1) if age is not None else None
        if state.available is False:
            last = self.words.describe(device, state.values)
            word = (
                self.words.state_word(device, state.values["state"])
                if "state" in state.values
                else last
            )
            if age is not None and word:
                text = self.words.say(
                    "unavailable_last", device, state=word, age=self.words.age(age)
                )
            else:
                text = self.words.say("unavailable_state", device)
            return self._reply(text, Status.ERROR, data)
        sentence = self.words.describe(device, state.values)
        if sentence is None:
            return self._reply(self._no_reading(device, None), Status.ERROR, data)
        truth = codec.state_matches(device, state.values, wanted)
        if wanted is not None or device.type == "binary_sensor":
            data["truth"] = "unknown" if truth is None else str(truth).lower()
        if wanted is not None and truth is not None:
            sentence = self.words.say("yes" if truth else "no", sentence=sentence)
        if age is not None and age > self.settings.timeouts.stale_s:
            sentence = self.words.say("old_reading", sentence=sentence, age=self.words.age(age))
        return self._reply(sentence, Status.OK, data, origin=device.origin)

    def _no_reading(self, device: Device, state: DeviceState | None) -> str:
        if state is not None and state.available is False:
            return self.words.say("unavailable_state", device)
        if not self._has_state(device):
            return self.words.say("no_state_topic", device)
        if not self.link.connected:
            reason = self.link.last_error or "not connected yet"
            return self.words.say(
                "broker_down_state", device, broker=self.settings.broker.address, reason=reason
            )
        return self.words.say("no_reading", device)

    async def evaluate(self, part: Part, request: Request) -> Evaluation:
        """A condition such as "the back door is unlocked": true, false or unknown."""
        try:
            return self._evaluate(part)
        except Exception as exc:  # a condition that cannot be checked is unknown, not a crash
            log.exception("the MQTT source failed to evaluate %r", part.text[:120])
            return Evaluation(Truth.UNKNOWN, f"the MQTT source failed: {exc}")

    def _evaluate(self, part: Part) -> Evaluation:
        devices, problem = self._devices_for(part)
        if problem is not None:
            return Evaluation(Truth.UNKNOWN, problem.text, problem.data)
        wanted = part.slots.get("state") if isinstance(part.slots.get("state"), str) else None
        truths: list[bool | None] = []
        sentences: list[str] = []
        for device in devices:
            state = self.cache.get(device.id)
            if state is None or not state.values or state.available is False:
                truths.append(None)
                sentences.append(
                    self._no_reading(device, state)
                    if state is None or not state.values
                    else self.words.say("unavailable_state", device)
                )
                continue
            truths.append(codec.state_matches(device, state.values, wanted))
            sentences.append(self.words.describe(device, state.values) or device.name)
        if any(t is False for t in truths):
            truth = Truth.FALSE
        elif truths and all(t is True for t in truths):
            truth = Truth.TRUE
        else:
            truth = Truth.UNKNOWN
        data = {"devices": [d.name for d in devices], "wanted": wanted}
        return Evaluation(truth, "; ".join(sentences), data)
