"""`mnemolis serve`: start the daemon, its front-ends and its signal handlers.

Start-up: read the configuration and `sources/serve.yaml`, apply the flags,
start the assistant (sources connected, intents compiled), then each
front-end, each printing ``mnemolis: <front-end> listening on <where>`` on
standard output once it can take requests (the MQTT ones once the broker
confirmed their subscription). A front-end that cannot listen says where and
why, and the daemon exits 1. SIGHUP reloads; SIGTERM and SIGINT drain and
exit 0. Logs, one line per request among them, go to standard error, with
repeated identical lines rate-limited (`log_limit`). Each listener's
connections are capped under the open-file limit (`listeners`), and the
announcements of the daemon's life go back through the front-ends
(`announcements`).

What it keeps is its own (`keep_private`): everything it makes is private
whatever the umask it was started with (0077), its state directory and
caches are tightened on start (lists, reminders, the token: 0600 in 0700),
and with no token set it uses its token file, made on the first start
(`token_file`).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # all of it loads only when the daemon runs: `mnemolis --help` starts fast
    from mnemolis.config import Config
    from mnemolis.serve.announcements import Router
    from mnemolis.serve.daemon import Daemon
    from mnemolis.serve.mqtt_client import ServeMqtt
    from mnemolis.serve.settings import ServeSettings

log = logging.getLogger("mnemolis.serve")

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CONFIG = 2


class FrontEnd(Protocol):
    name: str

    async def start(self) -> None: ...

    def refuse(self) -> None: ...

    async def close(self) -> None: ...


def announce(name: str, where: str) -> None:
    """The ready line a user, a test or a supervisor waits for."""
    print(f"mnemolis: {name} listening on {where}", flush=True)


SERVE_HELP = """front-ends (each also switched on or off in sources/serve.yaml):
  --http HOST:PORT          HTTP JSON: POST /ask, GET /health, GET /intents, POST /reload,
                            GET /events (announcements, Server-Sent Events); the same on
                            a unix socket for `mnemolis ask` and `chat` (http.socket)
  --wyoming tcp://HOST:PORT Wyoming handle, asr and tts services (Home Assistant, Rhasspy)
  --mqtt-api                questions on mnemolis/ask, answers on mnemolis/answer
  --hermes                  Rhasspy: hermes/asr/textCaptured and hermes/nlu/query in,
                            hermes/tts/say out
The wyoming-satellites listed under satellites: in sources/serve.yaml are driven
too, each answered in its own area (docs/voice-network.md).
Port 0 picks a free port; the ready line says which. Signals: SIGHUP reloads
intents and sources, SIGTERM (or Ctrl-C) answers what is in flight and exits 0."""


def add_serve_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "serve",
        help="run the daemon: HTTP, Wyoming, MQTT and Hermes front-ends",
        description="Run Mnemolis as a daemon: one assistant, reachable over the front-ends "
        "switched on in sources/serve.yaml or by the flags below.",
        epilog=SERVE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--http", metavar="HOST:PORT", help="serve HTTP here (e.g. 127.0.0.1:8686)")
    p.add_argument("--no-http", dest="http", action="store_false", help="no HTTP front-end")
    p.add_argument("--wyoming", metavar="URI", help="serve Wyoming here (tcp://HOST:PORT)")
    p.add_argument("--no-wyoming", dest="wyoming", action="store_false", help="no Wyoming")
    p.add_argument(
        "--mqtt-api", action=argparse.BooleanOptionalAction, default=None, help="MQTT ask/answer"
    )
    p.add_argument(
        "--hermes", action=argparse.BooleanOptionalAction, default=None, help="Rhasspy Hermes"
    )
    p.add_argument(
        "--token", help="bearer token for HTTP (prefer $MNEMOLIS_TOKEN: flags show in ps)"
    )
    p.add_argument("--config", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_serve, http=None, wyoming=None)


def cmd_serve(args: argparse.Namespace) -> int:
    from mnemolis.config import load_config
    from mnemolis.serve.log_limit import install
    from mnemolis.serve.settings import Flags, load_serve_settings, with_flags

    logging.basicConfig(level=logging.INFO, format="mnemolis: %(message)s", stream=sys.stderr)
    install()
    config_dir = getattr(args, "config", None)
    config = load_config(config_dir)  # ConfigError: main() prints it and exits 2
    try:
        settings = with_flags(
            load_serve_settings(config),
            Flags(args.http, args.wyoming, args.mqtt_api, args.hermes, args.token),
        )
    except ValueError as exc:
        print(f"mnemolis: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    from mnemolis.serve.token_file import TokenFileError

    try:
        settings = keep_private(settings, os.environ)
    except TokenFileError as exc:
        print(f"mnemolis: {exc}", file=sys.stderr)
        return EXIT_FAILED
    extras = getattr(args, "source_extras", None) or {}
    return asyncio.run(serve(config_dir, config, settings, extras))


#: What the daemon makes is its own: no permission for the group or others.
UMASK = 0o077


def keep_private(settings: ServeSettings, environ: Mapping[str, str]) -> ServeSettings:
    """Files made from now on private, the state directory and caches tightened, and
    the settings with the token file's token when none is set (`TokenFileError` when
    it can be neither read nor made)."""
    from dataclasses import replace

    from mnemolis.core.state_dir import private_places, private_state_dir, tighten
    from mnemolis.serve.token_file import ensure_token, token_path

    os.umask(UMASK)
    private_state_dir(environ)  # made if missing, tightened
    for cache in private_places(environ)[1:]:
        tighten(cache)
    path = token_path(settings.token_file, environ)
    if settings.token is not None or path is None:
        return settings
    token, made = ensure_token(path)
    log.info("http: %s token in %s", "a new" if made else "the", path)
    return replace(settings, token=token)


def listener_count(settings: ServeSettings) -> int:
    """Listening sockets the settings open (HTTP's unix socket counted when it may be)."""
    http = (1 + (settings.http.socket is not None)) if settings.http.enabled else 0
    return http + int(settings.wyoming.enabled)


def front_ends(
    daemon: Daemon, settings: ServeSettings
) -> tuple[list[FrontEnd], ServeMqtt | None, Router]:
    """The front-ends the settings switch on, the MQTT connection they share, and the
    router that takes announcements to them."""
    from mnemolis.mqtt_connection.settings import load_broker_settings
    from mnemolis.serve.announcements import Router
    from mnemolis.serve.daemon_voice import DaemonVoice, voice_installed
    from mnemolis.serve.hermes import Hermes
    from mnemolis.serve.http_api import HttpApi
    from mnemolis.serve.http_events import EventStreams
    from mnemolis.serve.listeners import connection_caps
    from mnemolis.serve.mqtt_api import FRONT_END, MqttApi
    from mnemolis.serve.mqtt_client import ServeMqtt
    from mnemolis.serve.satellite_settings import load_satellites
    from mnemolis.serve.satellites import Satellites
    from mnemolis.serve.wyoming_service import WyomingService
    from mnemolis.serve.wyoming_voice import WyomingVoice

    config = daemon.generation.config
    cap = connection_caps(settings.limits.max_connections, listener_count(settings))
    events = EventStreams()
    router = Router(daemon.announcer, events)
    chosen: list[FrontEnd] = []
    voice = DaemonVoice(daemon)  # loaded on first need: a satellite, an asr or tts request
    satellites = load_satellites(config)
    if satellites:
        driven = Satellites(daemon, satellites, voice, settings.limits, announce)
        router.add(driven.front_end, driven)
        router.add_area(driven, every_broadcast=True)
        chosen.append(driven)
    if settings.http.enabled:
        chosen.append(
            HttpApi(daemon, settings.http, settings.limits, settings.token, announce, events, cap)
        )
    if settings.wyoming.enabled:
        language = config.language.code
        offered = None
        if (settings.wyoming.asr or settings.wyoming.tts) and voice_installed():
            limit = settings.limits.max_text_chars
            w = settings.wyoming
            offered = WyomingVoice(voice, w.asr, w.tts, language, limit)
        wyoming = WyomingService(
            daemon, settings.wyoming, settings.limits, language, announce, cap, offered
        )
        router.add(wyoming.name, wyoming)
        router.add_display(wyoming.name, wyoming)
        chosen.append(wyoming)
    link = None
    if settings.uses_broker:
        broker, _ = load_broker_settings(config)
        link = ServeMqtt(broker, settings.limits.max_body_bytes)
        hermes_topics = settings.hermes.listen_topics if settings.hermes.enabled else ()
        if settings.mqtt_api.enabled:
            mqtt_api = MqttApi(
                daemon,
                link,
                settings.mqtt_api,
                settings.limits,
                settings.token,
                announce,
                (*hermes_topics, settings.hermes.say_topic, settings.mqtt_api.say_topic),
            )
            router.add(FRONT_END, mqtt_api)
            router.add_area(mqtt_api)
            chosen.append(mqtt_api)
        if settings.hermes.enabled:
            hermes = Hermes(daemon, link, settings.hermes, settings.limits, announce)
            router.add(hermes.name, hermes)
            router.add_area(hermes)
            chosen.append(hermes)
    return chosen, link, router


async def serve(
    config_dir: str | None,
    config: Config,
    settings: ServeSettings,
    extras: Mapping[str, object] | None = None,
) -> int:
    from mnemolis.serve.daemon import Daemon, starter_with

    """Run until SIGTERM or SIGINT; the exit status.

    The signal handlers come first, so a SIGTERM during start-up still ends cleanly."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    daemon = Daemon(config_dir, settings, starter_with(extras or {}))
    reloads: set[asyncio.Task[object]] = set()

    def reload() -> None:
        if not daemon.started or daemon.draining:
            log.info(
                "SIGHUP ignored: the daemon is %s", "stopping" if daemon.draining else "starting"
            )
            return
        log.info("SIGHUP: reloading the configuration")
        task: asyncio.Task[object] = asyncio.create_task(daemon.reload())
        reloads.add(task)
        task.add_done_callback(reloads.discard)

    loop.add_signal_handler(signal.SIGHUP, reload)
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    try:
        return await _run(daemon, config, settings, stop, reloads)
    finally:
        for signum in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)


async def _run(
    daemon: Daemon,
    config: Config,
    settings: ServeSettings,
    stop: asyncio.Event,
    reloads: set[asyncio.Task[object]],
) -> int:
    from mnemolis.config import ConfigError
    from mnemolis.serve.listeners import CannotListen

    await daemon.start(config)
    try:
        chosen, link, router = front_ends(daemon, settings)
    except ConfigError as exc:  # the broker section of mqtt.yaml
        print(f"mnemolis: configuration error: {exc}", file=sys.stderr)
        await daemon.close()
        return EXIT_CONFIG
    if not chosen:
        log.warning("no front-end is switched on (sources/serve.yaml or the flags)")
    started: list[FrontEnd] = []
    try:
        for front_end in chosen:
            started.append(front_end)  # a half-opened one is closed too
            await front_end.start()
    except CannotListen as exc:
        print(f"mnemolis: {exc}", file=sys.stderr)
        await _stop(daemon, started, link, 0.0)
        return EXIT_FAILED
    router.start()
    if link is not None:
        await link.start()
        announce_waiting(link, chosen)
    await stop.wait()
    log.info("stopping: answering %d requests in flight", daemon.in_flight)
    router.stop()
    await _stop(daemon, started, link, settings.limits.drain_s, reloads)
    log.info("stopped")
    return EXIT_OK


def announce_waiting(link: ServeMqtt, chosen: list[FrontEnd]) -> None:
    from mnemolis.serve.hermes import Hermes
    from mnemolis.serve.mqtt_api import MqttApi

    names = [f.name for f in chosen if isinstance(f, MqttApi | Hermes)]
    log.info("%s: connecting to the MQTT broker %s", " and ".join(names), link.address)


async def _stop(
    daemon: Daemon,
    started: list[FrontEnd],
    link: ServeMqtt | None,
    drain_s: float,
    reloads: set[asyncio.Task[object]] | None = None,
) -> None:
    """Refuse new requests, answer those in flight, then close everything."""
    for front_end in started:
        front_end.refuse()
    await daemon.drain(drain_s)
    for front_end in started:
        await front_end.close()
    if link is not None:
        await link.close()
    if reloads:
        await asyncio.gather(*reloads, return_exceptions=True)
    await daemon.close()
