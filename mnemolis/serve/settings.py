"""`sources/serve.yaml` and the command-line flags read into typed settings.

The owner's file lies over the shipped one key by key (an older file keeps
working when a key is added), every value is checked once, and a wrong one
is a `ConfigError` naming the file and line. Flags override the file; the
token comes from ``--token``, else ``$MNEMOLIS_TOKEN``, else the file, so a
systemd unit can keep it in an environment file instead of the config, else
``token_file`` (`token_file`: the daemon makes it on its first start).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from mnemolis.config import At, Config, ConfigError
from mnemolis.config.bundled import bundled_source_yaml, merged
from mnemolis.serve.web_guard import normal_host, normal_origin

STEM = "serve"
TOKEN_ENV = "MNEMOLIS_TOKEN"
SECTIONS = (
    "token",
    "token_file",
    "http",
    "wyoming",
    "mqtt_api",
    "hermes",
    "limits",
    "satellites",
)


@dataclass(frozen=True)
class Listen:
    """Where a front-end listens: ``tcp`` host and port, or a ``unix`` socket path."""

    scheme: str  # "tcp" or "unix"
    host: str = ""
    port: int = 0
    path: str = ""

    def url(self, scheme: str, port: int | None = None) -> str:
        """``http://127.0.0.1:8686``; ``port`` is the one actually bound (for port 0)."""
        if self.scheme == "unix":
            return f"unix://{self.path}"
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{scheme}://{host}:{self.port if port is None else port}"

    @property
    def loopback(self) -> bool:
        if self.scheme == "unix":
            return True
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


def parse_listen(text: str, schemes: tuple[str, ...]) -> Listen:
    """``HOST:PORT``, ``tcp://HOST:PORT`` or ``unix:///path``; ValueError says what is wrong.

    The first of ``schemes`` is assumed when none is written."""
    raw = text.strip()
    if "://" not in raw:
        raw = f"{schemes[0]}://{raw}"
    parts = urlsplit(raw)
    scheme = parts.scheme.lower()
    if scheme not in schemes:
        raise ValueError(f"{text!r} must start with {' or '.join(s + '://' for s in schemes)}")
    if scheme == "unix":
        if not parts.path or parts.netloc:
            raise ValueError(f"{text!r} must be unix:///absolute/path")
        return Listen("unix", path=parts.path)
    try:
        port = parts.port
    except ValueError:
        port = None
    if not parts.hostname or port is None or parts.path not in ("", "/"):
        raise ValueError(
            f"{text!r} must be HOST:PORT, e.g. 127.0.0.1:8686 (port 0 picks a free one)"
        )
    return Listen("tcp", parts.hostname, port)


#: ``http.socket: auto``: the CLI's socket in the runtime directory, when there is one.
AUTO = "auto"


@dataclass(frozen=True)
class HttpSettings:
    enabled: bool = True
    listen: Listen = Listen("tcp", "127.0.0.1", 8686)
    socket: str | None = AUTO  # the CLI's unix socket: "auto", a path, or None for none
    allowed_origins: tuple[str, ...] = ()  # web pages (scheme://host[:port]) that may call it
    allowed_hosts: tuple[str, ...] = ()  # its names besides localhost and the bound address


@dataclass(frozen=True)
class WyomingSettings:
    enabled: bool = True
    listen: Listen = Listen("tcp", "127.0.0.1", 10800)
    areas: tuple[tuple[str, str], ...] = ()  # satellite or device id -> area
    asr: bool = True  # offer the recogniser as a Wyoming asr service (with the voice extra)
    tts: bool = True  # offer the voice as a Wyoming tts service

    def area_of(self, ident: str | None) -> str | None:
        return dict(self.areas).get(ident) if ident else None


@dataclass(frozen=True)
class MqttApiSettings:
    enabled: bool = True
    ask_topic: str = "mnemolis/ask"
    answer_topic: str = "mnemolis/answer"
    response_prefixes: tuple[str, ...] = ("mnemolis/",)
    require_token: bool = False
    say_topic: str = "mnemolis/say"  # announcements, as JSON


@dataclass(frozen=True)
class HermesSettings:
    enabled: bool = False
    listen_topics: tuple[str, ...] = ("hermes/asr/textCaptured", "hermes/nlu/query")
    say_topic: str = "hermes/tts/say"
    repeat_window_s: float = 5.0
    sites: tuple[tuple[str, str], ...] = ()  # siteId -> area

    def area_of(self, site: str | None) -> str | None:
        return dict(self.sites).get(site) if site else None

    def sites_in(self, area: str | None) -> list[str]:
        """The siteIds of an area (for an announcement that has no site of its own)."""
        return [site for site, where in self.sites if area is not None and where == area]


@dataclass(frozen=True)
class Limits:
    max_body_bytes: int = 65_536
    max_text_chars: int = 1000
    max_pending: int = 256
    drain_s: float = 10.0
    keepalive_s: float = 30.0
    read_timeout_s: float = 10.0
    max_connections: int = 256  # per listener; also kept under the open-file limit
    max_connections_per_client: int = 32  # per listener and remote address, before the above


@dataclass(frozen=True)
class ServeSettings:
    """Everything `sources/serve.yaml` and the flags decide."""

    token: str | None = None
    token_file: str | None = AUTO  # "auto" (the state directory's), a path, or None
    http: HttpSettings = HttpSettings()
    wyoming: WyomingSettings = WyomingSettings()
    mqtt_api: MqttApiSettings = MqttApiSettings()
    hermes: HermesSettings = HermesSettings()
    limits: Limits = Limits()
    raw: dict[str, Any] = field(default_factory=dict, compare=False)  # as read, for reloads

    @property
    def uses_broker(self) -> bool:
        return self.mqtt_api.enabled or self.hermes.enabled


# --------------------------------------------------------------------------- reading


class _Section:
    """Typed access to one section of the file, with file:line errors."""

    def __init__(self, at: At, data: Any, known: Mapping[str, Any]) -> None:
        self.at = at
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise at.error(f"{at.keys[-1]} must be a mapping")
        for key in data:
            if key not in known:
                raise (at / key).error(
                    f"unknown key {key!r} in {at.keys[-1]} (one of {', '.join(known)})"
                )
        self.data: dict[str, Any] = {**known, **data}

    def flag(self, key: str) -> bool:
        value = self.data[key]
        if not isinstance(value, bool):
            raise (self.at / key).error(f"{key} must be true or false, not {value!r}")
        return value

    def number(self, key: str, low: float, high: float) -> float:
        value = self.data[key]
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not low <= value <= high
        ):
            raise (self.at / key).error(f"{key} must be a number from {low:g} to {high:g}")
        return float(value)

    def integer(self, key: str, low: int, high: int) -> int:
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise (self.at / key).error(f"{key} must be a whole number from {low} to {high}")
        return value

    def listen(self, key: str, schemes: tuple[str, ...]) -> Listen:
        value = self.data[key]
        if not isinstance(value, str):
            raise (self.at / key).error(f"{key} must be text such as {schemes[0]}://127.0.0.1:8686")
        try:
            return parse_listen(value, schemes)
        except ValueError as exc:
            raise (self.at / key).error(f"{key}: {exc}") from exc

    def topic(self, key: str, value: Any = None, at: At | None = None) -> str:
        value = self.data[key] if value is None else value
        at = at or self.at / key
        if not isinstance(value, str) or not value.strip("/"):
            raise at.error(f"{key} must be a topic such as mnemolis/ask")
        if any(c in value for c in "+#\0") or len(value.encode()) > 200:
            raise at.error(f"{key} must be a plain topic without + or # (at most 200 bytes)")
        return value

    def areas(self, key: str) -> tuple[tuple[str, str], ...]:
        """A mapping of ids (siteId, satellite id) to area names."""
        value = self.data[key] or {}
        if not isinstance(value, dict) or not all(
            isinstance(k, str | int) and isinstance(v, str) and v.strip() for k, v in value.items()
        ):
            raise (self.at / key).error(f"{key} must map ids to area names (kitchen-pi: kitchen)")
        return tuple((str(k), " ".join(v.lower().split())) for k, v in value.items())

    def socket(self, key: str) -> str | None:
        return _path_setting(self.data[key], self.at / key, key)

    def names(self, key: str, normal: Callable[[str], str]) -> tuple[str, ...]:
        """A list of origins or host names, each as `normal` writes it."""
        value = self.data[key] or []
        if not isinstance(value, list):
            raise (self.at / key).error(f"{key} must be a list")
        found = []
        for i, item in enumerate(value):
            try:
                found.append(normal(item if isinstance(item, str) else repr(item)))
            except ValueError as exc:
                raise (self.at / key / i).error(f"{key}: {exc}") from exc
        return tuple(dict.fromkeys(found))

    def topics(self, key: str) -> tuple[str, ...]:
        value = self.data[key]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value:
            raise (self.at / key).error(f"{key} must be a list of topics")
        return tuple(self.topic(key, t, self.at / key / i) for i, t in enumerate(value))


def _path_setting(value: Any, at: At, key: str) -> str | None:
    """``auto``, ``null`` or an absolute path."""
    if value is None or value == AUTO:
        return value  # type: ignore[no-any-return]
    if not isinstance(value, str) or not value.startswith("/"):
        raise at.error(f"{key} must be auto, null or an absolute path")
    return value


def _token_file(value: Any, at: At) -> str | None:
    """``auto``, an absolute path, or ``false`` for none (a null in the owner's file
    would give way to the shipped ``auto``)."""
    if value is False:
        return None
    if value is None or value == AUTO or (isinstance(value, str) and value.startswith("/")):
        return value  # type: ignore[no-any-return]
    raise at.error("token_file must be auto, false or an absolute path")


def _token(value: Any, at: At | None, where: str) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or any(c.isspace() for c in value) or len(value) > 512:
        message = f"{where} must be text without spaces (at most 512 characters)"
        raise at.error(message) if at is not None else ConfigError(where, None, message)
    return value


def load_serve_settings(config: Config, env: Mapping[str, str] | None = None) -> ServeSettings:
    """Read `sources/serve.yaml` (over the shipped one) and ``$MNEMOLIS_TOKEN``."""
    env = os.environ if env is None else env
    at = At(config.root / "sources" / f"{STEM}.yaml")
    raw = config.sources.get(STEM) or {}
    for key in raw:
        if key not in SECTIONS:
            raise (at / key).error(f"unknown key {key!r} (one of {', '.join(SECTIONS)})")
    values = merged(raw, bundled_source_yaml(STEM))
    defaults = ServeSettings()

    h = _Section(
        at / "http",
        values.get("http"),
        {
            "enabled": True,
            "listen": "127.0.0.1:8686",
            "socket": AUTO,
            "allowed_origins": [],
            "allowed_hosts": [],
        },
    )
    w = _Section(
        at / "wyoming",
        values.get("wyoming"),
        {"enabled": True, "listen": "tcp://127.0.0.1:10800", "areas": {}, "asr": True, "tts": True},
    )
    m_defaults = defaults.mqtt_api
    m = _Section(
        at / "mqtt_api",
        values.get("mqtt_api"),
        {
            "enabled": m_defaults.enabled,
            "ask_topic": m_defaults.ask_topic,
            "answer_topic": m_defaults.answer_topic,
            "response_prefixes": list(m_defaults.response_prefixes),
            "require_token": m_defaults.require_token,
            "say_topic": m_defaults.say_topic,
        },
    )
    r_defaults = defaults.hermes
    r = _Section(
        at / "hermes",
        values.get("hermes"),
        {
            "enabled": r_defaults.enabled,
            "listen_topics": list(r_defaults.listen_topics),
            "say_topic": r_defaults.say_topic,
            "repeat_window_s": r_defaults.repeat_window_s,
            "sites": {},
        },
    )
    limit = defaults.limits
    lim = _Section(at / "limits", values.get("limits"), vars(limit))
    prefixes = m.data["response_prefixes"] or []
    if not isinstance(prefixes, list) or not all(isinstance(p, str) and p for p in prefixes):
        raise (at / "mqtt_api" / "response_prefixes").error(
            "response_prefixes must be a list of topic beginnings such as mnemolis/"
        )
    settings = ServeSettings(
        token=_token(values.get("token"), at / "token", "token"),
        token_file=_token_file(values.get("token_file", AUTO), at / "token_file"),
        http=HttpSettings(
            h.flag("enabled"),
            h.listen("listen", ("tcp",)),
            h.socket("socket"),
            h.names("allowed_origins", normal_origin),
            h.names("allowed_hosts", normal_host),
        ),
        wyoming=WyomingSettings(
            w.flag("enabled"),
            w.listen("listen", ("tcp", "unix")),
            w.areas("areas"),
            w.flag("asr"),
            w.flag("tts"),
        ),
        mqtt_api=MqttApiSettings(
            enabled=m.flag("enabled"),
            ask_topic=m.topic("ask_topic"),
            answer_topic=m.topic("answer_topic"),
            response_prefixes=tuple(prefixes),
            require_token=m.flag("require_token"),
            say_topic=m.topic("say_topic"),
        ),
        hermes=HermesSettings(
            enabled=r.flag("enabled"),
            listen_topics=r.topics("listen_topics"),
            say_topic=r.topic("say_topic"),
            repeat_window_s=r.number("repeat_window_s", 0.0, 600.0),
            sites=r.areas("sites"),
        ),
        limits=Limits(
            max_body_bytes=lim.integer("max_body_bytes", 1024, 16 << 20),
            max_text_chars=lim.integer("max_text_chars", 10, 100_000),
            max_pending=lim.integer("max_pending", 1, 100_000),
            drain_s=lim.number("drain_s", 0.0, 3600.0),
            keepalive_s=lim.number("keepalive_s", 0.1, 86_400.0),
            read_timeout_s=lim.number("read_timeout_s", 0.1, 3600.0),
            max_connections=lim.integer("max_connections", 1, 1_000_000),
            max_connections_per_client=lim.integer("max_connections_per_client", 1, 1_000_000),
        ),
        raw=values,
    )
    if settings.mqtt_api.ask_topic in settings.hermes.listen_topics:
        raise (at / "mqtt_api" / "ask_topic").error(
            "ask_topic must differ from the hermes listen_topics"
        )
    env_token = _token(env.get(TOKEN_ENV), None, f"${TOKEN_ENV}")
    return replace(settings, token=env_token) if env_token else settings


@dataclass(frozen=True)
class Flags:
    """The command line's word on each front-end; None leaves the file's choice."""

    http: str | bool | None = None  # "HOST:PORT", False for --no-http
    wyoming: str | bool | None = None  # "tcp://HOST:PORT", False for --no-wyoming
    mqtt_api: bool | None = None
    hermes: bool | None = None
    token: str | None = None


def with_flags(settings: ServeSettings, flags: Flags) -> ServeSettings:
    """The settings with the flags applied; ValueError names the flag that is wrong."""
    http, wyoming = settings.http, settings.wyoming
    if flags.http is False:
        http = replace(http, enabled=False)
    elif isinstance(flags.http, str):
        try:
            http = replace(http, enabled=True, listen=parse_listen(flags.http, ("tcp",)))
        except ValueError as exc:
            raise ValueError(f"--http: {exc}") from exc
    if flags.wyoming is False:
        wyoming = replace(wyoming, enabled=False)
    elif isinstance(flags.wyoming, str):
        try:
            listen = parse_listen(flags.wyoming, ("tcp", "unix"))
            wyoming = replace(wyoming, enabled=True, listen=listen)
        except ValueError as exc:
            raise ValueError(f"--wyoming: {exc}") from exc
    mqtt_api, hermes = settings.mqtt_api, settings.hermes
    if flags.mqtt_api is not None:
        mqtt_api = replace(mqtt_api, enabled=flags.mqtt_api)
    if flags.hermes is not None:
        hermes = replace(hermes, enabled=flags.hermes)
    token = settings.token
    if flags.token is not None:
        try:
            token = _token(flags.token, None, "--token")
        except ConfigError as exc:
            raise ValueError(exc.reason) from exc
    return replace(
        settings, http=http, wyoming=wyoming, mqtt_api=mqtt_api, hermes=hermes, token=token
    )
