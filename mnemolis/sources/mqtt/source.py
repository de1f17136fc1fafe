"""The MQTT devices source: answers `device.*` and `sensor.read` parts.

State questions are answered from a cache fed by retained and live state
messages (`answers`). Commands are published to topics that come only from
`sources/mqtt.yaml` or from discovery, with the payload, QoS and retain flag
Home Assistant would use, then confirmed by the device's own state echo
within ``timeouts.confirm_s`` (`commands`). Devices announced by Home
Assistant discovery or zigbee2mqtt are merged into the shared registry,
which understanding's name index follows, so a new device is understood at
once; a config that was refused is known by name and answered with why.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from mnemolis.config import Config, ConfigError, line_of
from mnemolis.core.devices import READ_ACTION, Device, DeviceRegistry
from mnemolis.core.plan import Part
from mnemolis.mqtt_connection.link import MqttLink
from mnemolis.sources.base import Evaluation, Finding, PartAnswer, Request, SensorReading, Status
from mnemolis.sources.mqtt import availability, codec, ownership, yaml_wire
from mnemolis.sources.mqtt.announced import BadConfig, Discovered, Refusal, check_topic
from mnemolis.sources.mqtt.answers import Answers
from mnemolis.sources.mqtt.commands import Commands
from mnemolis.sources.mqtt.discovery.homeassistant import HomeAssistantParser
from mnemolis.sources.mqtt.discovery.inbox import Inbox
from mnemolis.sources.mqtt.discovery.zigbee2mqtt import Zigbee2MqttParser
from mnemolis.sources.mqtt.finding import Finder, command_topics
from mnemolis.sources.mqtt.known import KnownDevices, Route, RouteTable, routes_for
from mnemolis.sources.mqtt.replies import Phrasebook
from mnemolis.sources.mqtt.settings import MqttSettings, load_mqtt_settings
from mnemolis.sources.mqtt.state import DeviceState, DiscoveryReport, StateCache
from mnemolis.sources.mqtt.values import Values

log = logging.getLogger(__name__)

SOURCE = "mqtt"
COMPLAINT_EVERY_S = 60.0


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
        self.cache = StateCache()
        rules = ownership.rules(config.sources.get("serve"), self.settings)
        self.known = KnownDevices(registry, self._wired_yaml(config.devices), limits.devices, rules)
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
        self.inbox = Inbox(self._announced)  # announcements parsed off paho's thread
        self.values = Values(self.words)
        self.answers = Answers(self)
        self.commands = Commands(self)
        self.finder = Finder(self.config, self.registry, self.known, self.answers, self.words)
        self._routes = RouteTable()
        self._route_devices: dict[str, Device] = {}
        self._routes_dirty = True
        self._routes_lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started = False
        self._closed = False
        self._flush_scheduled = False
        self._gathering = 0  # waiters reading the retained burst: one flush after it, not many
        self._refresh_scheduled = False
        self._flush_lock = asyncio.Lock()
        self._complaints: dict[str, float] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        registry.subscribe(self._on_registry_change)
        self.known.flush()  # YAML devices are known before the broker is

    # ------------------------------------------------------------------ set-up

    def _wired_yaml(self, devices: list[Device]) -> list[Device]:
        """Topics written by the owner get the same checks as discovered ones, and a
        ``schema: default`` device becomes the Home Assistant config it stands for."""
        path = self.config.root / "sources" / "mqtt.yaml"
        wired = []
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
            payloads: dict[Any, Any] = dict(device.payloads)
            for word in (True, False):  # YAML 1.1 reads an unquoted on/off key as a boolean
                if word in payloads:
                    payloads["on" if word else "off"] = payloads.pop(word)
            device = dataclasses.replace(device, payloads=payloads)
            if device.topics:
                try:
                    device = yaml_wire.wired(device, self.settings.limits.topic_chars)
                except BadConfig as exc:
                    raise ConfigError(
                        path, line_of(path, ("devices", i)), f"device {device.name!r}: {exc}"
                    ) from exc
            wired.append(device)
        return wired

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
        await asyncio.to_thread(self.inbox.close)
        for task in list(self._tasks):
            await task

    @property
    def started(self) -> bool:
        return self._started and not self._closed

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
            self._gathering += 1
            try:
                synced = await self.link.sync(timeout)
                left = max(0.0, deadline - self._loop.time())
                synced = await asyncio.to_thread(self.inbox.wait_idle, left) and synced
            finally:
                self._gathering -= 1
            if synced:
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
            refused=len(self.known.refusals()),
        )
        return self.last_report

    async def diagnose(self) -> list[Finding]:
        """`base.Diagnosable`: the broker reachable, every device heard from, refusals counted."""
        from mnemolis.sources.mqtt import doctor

        return await doctor.diagnose(self)

    def state_of(self, device_id: str) -> DeviceState | None:
        return self.cache.get(device_id)

    def refusals(self) -> list[Refusal]:
        """Every announced config that was refused, with its reason."""
        return self.known.refusals()

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
        ``part`` names; the timers source evaluates the part again each time."""
        devices, _problem = self.devices_for(part)
        return self.cache.follow([d.id for d in devices], changed, asyncio.get_running_loop())

    async def publish(
        self,
        topic: str,
        payload: bytes,
        qos: int = 1,
        retain: bool = False,
        confirmed: bool = False,
    ) -> bool:
        """`base.Publishes`: one message on a topic from configuration (a routine's
        `publish:`, an external intent), within `timeouts.answer_s`; True once the
        broker has it (QoS 1, 2) or it was sent (QoS 0). A message to a device whose
        opening waits for a yes (`guarded`) is not sent without ``confirmed``."""
        if not self._started or self._closed or self._loop is None:
            return False
        device = self.guarded(topic)
        if device is not None and not confirmed:
            log.warning("not sent to %s without a yes: it commands the %s", topic[:120], device)
            return False
        deadline = self._loop.time() + self.settings.timeouts.answer_s
        outcome = await self.link.publish(topic, payload, deadline, qos, retain)
        return outcome.sent and outcome.acknowledged

    def guarded(self, topic: str) -> str | None:
        """`base.Publishes`: the device ``topic`` commands (one of its command topics, or a
        topic under one: zigbee2mqtt's ``.../set/state``), when its opening, unlocking or
        disarming waits for a yes, or it lists actions that do; None for any other topic."""
        policy = self.settings.confirm
        for device in self.registry.devices():
            if not (device.confirm or policy.guards(device)):
                continue
            for command in command_topics(device):
                if topic == command or topic.startswith(command.rstrip("/") + "/"):
                    return device.name
        return None

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

    def _route_table(self) -> tuple[RouteTable, dict[str, Device]]:
        """Topic -> devices, rebuilt lazily after the registry changed (from either thread)."""
        with self._routes_lock:
            if self._routes_dirty:
                self._routes_dirty = False
                devices = self.registry.devices()
                self._route_devices = {d.id: codec.wired(d) for d in devices}
                self._routes = routes_for(devices)
            return self._routes, self._route_devices

    def _refresh_subscriptions(self) -> None:
        self._refresh_scheduled = False
        if self._closed:
            return
        routes, _ = self._route_table()
        topics = routes.subscriptions()
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
            self.inbox.put(topic, payload)
            return
        if len(payload) > limits.payload_bytes:
            self._complain(
                topic, "ignored %s: %d bytes is over the limit", topic[:120], len(payload)
            )
            return
        if self.homeassistant is not None and self.homeassistant.match(topic) is not None:
            self.inbox.put(topic, payload)
            return
        routes, devices = self._route_table()
        for route in routes.lookup(topic):
            device = devices.get(route.device_id)
            if device is not None:
                self._feed(device, route, topic, payload)

    def _announced(self, topic: str, payload: bytes) -> None:
        """On the inbox's thread: one announcement parsed and staged."""
        z2m, ha = self.zigbee2mqtt, self.homeassistant
        if z2m is not None and topic == z2m.devices_topic:
            self._stage(z2m.parse(payload, self.settings.limits.devices))
        elif ha is not None:
            self._stage(ha.parse(topic, payload))

    def _feed(self, device: Device, route: Route, topic: str, payload: bytes) -> None:
        try:
            if route.role == "availability":
                spec = availability.specs(device)[route.availability]
                available = availability.decode(spec, payload, device.id)
                mode = str(device.extra.get("availability_mode", "all"))
                self.cache.set_availability(device.id, topic, available, mode)
                return
            self.known.heard(device.id)
            before = self.cache.get(device.id)
            reading = codec.decode(
                device, route.role, payload, before.values if before is not None else None
            )
            self.cache.apply(device.id, reading.values, reading.at)
            delay = device.config.get("off_delay") if device.type == "binary_sensor" else None
            if isinstance(delay, int) and reading.values.get("state") == "on":
                self._schedule_off(device.id, delay)
        except codec.NothingRead as exc:
            log.debug("a message on %s for the %s: %s", topic[:120], device.name, exc)
        except (ValueError, IndexError, TypeError, KeyError) as exc:
            self._complain(
                topic, "ignored a message on %s for the %s: %s", topic[:120], device.name, exc
            )

    def _schedule_off(self, device_id: str, delay_s: float) -> None:
        """``off_delay``: "on" turns back to "off" unless another reading came meanwhile."""
        loop = self._loop
        state = self.cache.get(device_id)
        if loop is None or loop.is_closed() or state is None:
            return
        seq = state.seq

        def off() -> None:
            current = self.cache.get(device_id)
            if current is not None and current.seq == seq and not self._closed:
                self.cache.apply(device_id, {"state": "off"})

        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(loop.call_later, delay_s, off)

    def _stage(self, found: Discovered) -> None:
        for problem in found.problems[:20]:
            self._complain(
                f"{found.key}:{problem[:40]}", "discovery %s: %s", found.key[:120], problem
            )
        self.known.stage(found)
        for changed in found.also:
            self._stage(changed)
        loop = self._loop
        if self._gathering:
            return  # wait_for_devices flushes once the retained burst is in
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

    def reply(
        self, text: str, status: Status, data: dict[str, Any] | None = None, **prov: Any
    ) -> PartAnswer:
        return PartAnswer(text, status, SOURCE, data or {}, dict(prov))

    def devices_for(self, part: Part) -> tuple[list[Device], PartAnswer | None]:
        """The devices a part names, or the answer saying which it could not find."""
        return self.finder.devices_for(part)

    async def answer(self, part: Part, request: Request) -> PartAnswer:
        t0 = time.perf_counter()
        try:
            result = await self._answer(part, request)
        except Exception as exc:  # the executor must get a sentence, never a traceback
            log.exception("the MQTT source failed on %r", part.text[:120])
            result = self.reply(f"the MQTT source failed: {exc}", Status.ERROR)
        result.ms = (time.perf_counter() - t0) * 1000
        return result

    async def _answer(self, part: Part, request: Request) -> PartAnswer:
        spec = self.config.intent(part.intent)
        action = spec.action if spec is not None and spec.action else None
        devices, problem = self.devices_for(part)
        if problem is not None:
            return problem
        if action is None:
            return self.reply(self.words.say("no_action", devices[0]), Status.OUT_OF_SCOPE)
        if action == READ_ACTION:
            return self.answers.state(devices, part)
        return await self.commands.run(devices, action, part, request)

    def waits_for_yes(self, part: Part) -> list[str]:
        """`base.WaitsForYes`: the devices ``part`` names whose command would wait for a yes
        in whatever state they are in when it runs (a plan, a watch), by its effect."""
        spec = self.config.intent(part.intent)
        action = spec.action if spec is not None and spec.action else None
        if action is None or action == READ_ACTION:
            return []
        devices, _problem = self.devices_for(part)
        return [d.name for d in devices if self.commands.waiting(d, action, part, later=True)]

    async def evaluate(self, part: Part, request: Request) -> Evaluation:
        """A condition such as "the back door is unlocked": true, false or unknown."""
        return self.answers.evaluate(part)
