"""`sources/serve.yaml`, the flags and the request readers, without a daemon."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from mnemolis.config import Config, ConfigError
from mnemolis.serve.daemon import request_line
from mnemolis.serve.requests import (
    LONE_SURROGATE,
    AskRequest,
    BadRequest,
    read_json_request,
    read_plain_request,
)
from mnemolis.serve.settings import (
    Flags,
    Listen,
    ServeSettings,
    load_serve_settings,
    parse_listen,
    with_flags,
)


def settings_from(tmp_path: Path, config: Config, text: str, **env: str) -> ServeSettings:
    """The settings of a serve.yaml written with ``text`` (lines are counted in it)."""
    (tmp_path / "sources").mkdir(parents=True)
    (tmp_path / "sources" / "serve.yaml").write_text(text, encoding="utf-8")
    raw = yaml.safe_load(text) or {}
    changed = dataclasses.replace(config, root=tmp_path, sources={**config.sources, "serve": raw})
    return load_serve_settings(changed, env=env)


def test_the_shipped_file_gives_the_documented_defaults(config: Config) -> None:
    settings = load_serve_settings(config, env={})
    assert settings.token is None
    assert (settings.http.enabled, settings.http.listen) == (True, Listen("tcp", "127.0.0.1", 8686))
    assert (settings.wyoming.enabled, settings.wyoming.listen.port) == (True, 10800)
    assert settings.mqtt_api.enabled and not settings.hermes.enabled
    assert settings.mqtt_api.response_prefixes == ("mnemolis/",)
    assert settings.hermes.listen_topics == ("hermes/asr/textCaptured", "hermes/nlu/query")
    assert settings.limits.max_text_chars == 1000 and settings.limits.max_pending == 256
    assert all(s.listen.loopback for s in (settings.http, settings.wyoming))
    assert (settings.http.socket, settings.mqtt_api.say_topic) == ("auto", "mnemolis/say")
    assert settings.limits.max_connections == 256 and settings.limits.read_timeout_s == 10


def test_areas_of_sites_and_satellites(tmp_path: Path, config: Config) -> None:
    text = (
        "hermes:\n  sites: {kitchen-pi: Kitchen, 7: living  room}\nwyoming:\n  areas: {sat: Den}\n"
    )
    settings = settings_from(tmp_path, config, text)
    assert settings.hermes.area_of("kitchen-pi") == "kitchen"
    assert settings.hermes.area_of("7") == "living room"
    assert settings.hermes.sites_in("kitchen") == ["kitchen-pi"]
    assert settings.hermes.area_of("elsewhere") is None
    assert settings.wyoming.area_of("sat") == "den"


def test_an_owner_file_without_serve_yaml_gets_the_defaults(config: Config) -> None:
    sources = {k: v for k, v in config.sources.items() if k != "serve"}
    bare = dataclasses.replace(config, sources=sources)
    assert load_serve_settings(bare, env={}) == load_serve_settings(config, env={})


def test_a_partial_file_keeps_the_other_defaults(tmp_path: Path, config: Config) -> None:
    settings = settings_from(tmp_path, config, "hermes:\n  enabled: true\nlimits:\n  drain_s: 2\n")
    assert settings.hermes.enabled and settings.hermes.say_topic == "hermes/tts/say"
    assert settings.limits.drain_s == 2.0 and settings.limits.max_pending == 256
    assert settings.http.listen.port == 8686


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("htp: {}\n", "serve.yaml:1: unknown key 'htp'"),
        ("http:\n  listen: nowhere\n", "serve.yaml:2: listen: 'nowhere' must be HOST:PORT"),
        ("http:\n  listen: 8686\n", "serve.yaml:2: listen must be text"),
        ("http:\n  enabled: yes please\n", "serve.yaml:2: enabled must be true or false"),
        ("http:\n  port: 1\n", "serve.yaml:2: unknown key 'port' in http"),
        ("wyoming:\n  listen: http://x:1\n", "serve.yaml:2: listen: 'http://x:1' must start with"),
        (
            "wyoming:\n  listen: unix://relative\n",
            "serve.yaml:2: listen: 'unix://relative' must be unix:///",
        ),
        ("mqtt_api:\n  ask_topic: mnemolis/#\n", "serve.yaml:2: ask_topic must be a plain topic"),
        ("mqtt_api:\n  answer_topic: ''\n", "serve.yaml:2: answer_topic must be a topic"),
        ("mqtt_api:\n  response_prefixes: [1]\n", "serve.yaml:2: response_prefixes must be a list"),
        (
            "mqtt_api:\n  ask_topic: hermes/nlu/query\nhermes:\n  enabled: true\n",
            "serve.yaml:2: ask_topic must differ",
        ),
        (
            "hermes:\n  listen_topics: [a/b, c/+]\n",
            "serve.yaml:2: listen_topics must be a plain topic",
        ),
        (
            "hermes:\n  repeat_window_s: -1\n",
            "serve.yaml:2: repeat_window_s must be a number from 0",
        ),
        ("limits:\n  max_pending: 0\n", "serve.yaml:2: max_pending must be a whole number from 1"),
        ("limits:\n  max_body_bytes: 1.5\n", "serve.yaml:2: max_body_bytes must be a whole number"),
        ("limits: [1]\n", "serve.yaml:1: limits must be a mapping"),
        ("token: has a space\n", "serve.yaml:1: token must be text without spaces"),
        ("http:\n  socket: run/m.sock\n", "serve.yaml:2: socket must be auto, null or an absolute"),
        ("hermes:\n  sites: [kitchen]\n", "serve.yaml:2: sites must map ids to area names"),
        ("wyoming:\n  areas: {sat-1: 5}\n", "serve.yaml:2: areas must map ids to area names"),
        ("mqtt_api:\n  say_topic: a/#\n", "serve.yaml:2: say_topic must be a plain topic"),
        (
            "limits:\n  max_connections: 0\n",
            "serve.yaml:2: max_connections must be a whole number from 1",
        ),
        (
            "limits:\n  max_connections_per_client: -1\n",
            "serve.yaml:2: max_connections_per_client must be a whole number from 1",
        ),
        ("token_file: token\n", "serve.yaml:1: token_file must be auto, false or an absolute"),
        (
            "http:\n  allowed_origins:\n    - http://dash.lan:8123\n    - dash.lan\n",
            "serve.yaml:4: allowed_origins: 'dash.lan' must be an origin such as http://",
        ),
        (
            "http:\n  allowed_origins: [http://dash.lan/page]\n",
            "serve.yaml:2: allowed_origins: 'http://dash.lan/page' must be only scheme://host",
        ),
        ("http:\n  allowed_origins: '*'\n", "serve.yaml:2: allowed_origins must be a list"),
        (
            "http:\n  allowed_hosts: [pi.local:8686]\n",
            "serve.yaml:2: allowed_hosts: 'pi.local:8686' must be a host name",
        ),
    ],
)
def test_a_wrong_value_names_its_file_and_line(
    tmp_path: Path, config: Config, text: str, error: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        settings_from(tmp_path, config, text)
    assert error in str(raised.value)


def test_the_web_rules_and_the_token_file_read_as_browsers_and_the_daemon_use_them(
    tmp_path: Path, config: Config
) -> None:
    text = (
        "token_file: /srv/mnemolis/token\n"
        "http:\n  allowed_origins: [HTTP://Dash.LAN:80, https://ha.lan:8123]\n"
        "  allowed_hosts: [Pi.Local., '[::1]']\n"
        "limits: {max_connections_per_client: 4}\n"
    )
    settings = settings_from(tmp_path, config, text)
    assert settings.http.allowed_origins == ("http://dash.lan", "https://ha.lan:8123")
    assert settings.http.allowed_hosts == ("pi.local", "::1")
    assert settings.token_file == "/srv/mnemolis/token"
    assert settings.limits.max_connections_per_client == 4
    assert settings_from(tmp_path / "off", config, "token_file: false\n").token_file is None
    shipped = load_serve_settings(config, env={})
    assert (shipped.token_file, shipped.http.allowed_origins) == ("auto", ())
    assert shipped.limits.max_connections_per_client == 32


def test_the_token_comes_from_the_flag_then_the_environment_then_the_file(
    tmp_path: Path, config: Config
) -> None:
    from_file = settings_from(tmp_path / "a", config, "token: from-file\n")
    from_env = settings_from(
        tmp_path / "b", config, "token: from-file\n", MNEMOLIS_TOKEN="from-env"
    )
    assert (from_file.token, from_env.token) == ("from-file", "from-env")
    assert with_flags(from_env, Flags(token="from-flag")).token == "from-flag"
    with pytest.raises(ConfigError, match=r"\$MNEMOLIS_TOKEN must be text without spaces"):
        settings_from(tmp_path / "c", config, "", MNEMOLIS_TOKEN="two words")


@pytest.mark.parametrize(
    ("flags", "check"),
    [
        (Flags(http="0.0.0.0:80"), lambda s: s.http.listen == Listen("tcp", "0.0.0.0", 80)),
        (Flags(http=False), lambda s: not s.http.enabled),
        (Flags(wyoming="tcp://[::1]:0"), lambda s: s.wyoming.listen == Listen("tcp", "::1", 0)),
        (Flags(wyoming="unix:///run/m.sock"), lambda s: s.wyoming.listen.path == "/run/m.sock"),
        (Flags(wyoming=False), lambda s: not s.wyoming.enabled),
        (Flags(mqtt_api=False, hermes=True), lambda s: not s.mqtt_api.enabled and s.hermes.enabled),
        (Flags(), lambda s: s == ServeSettings()),
    ],
)
def test_flags_override_the_file(flags: Flags, check: object) -> None:
    assert callable(check) and check(with_flags(ServeSettings(), flags))


@pytest.mark.parametrize(
    ("flags", "error"),
    [
        (Flags(http="8686"), "--http: '8686' must be HOST:PORT"),
        (Flags(http="127.0.0.1:99999"), "--http: '127.0.0.1:99999' must be HOST:PORT"),
        (
            Flags(wyoming="udp://127.0.0.1:1"),
            "--wyoming: 'udp://127.0.0.1:1' must start with tcp:// or unix://",
        ),
        (Flags(token="has space"), "--token must be text without spaces"),
    ],
)
def test_a_bad_flag_is_a_sentence(flags: Flags, error: str) -> None:
    with pytest.raises(ValueError) as raised:
        with_flags(ServeSettings(), flags)
    assert str(raised.value).startswith(error)


@pytest.mark.parametrize(
    ("text", "listen", "url", "loopback"),
    [
        ("127.0.0.1:8686", Listen("tcp", "127.0.0.1", 8686), "http://127.0.0.1:8686", True),
        ("localhost:1", Listen("tcp", "localhost", 1), "http://localhost:1", True),
        ("[::1]:2", Listen("tcp", "::1", 2), "http://[::1]:2", True),
        ("0.0.0.0:3", Listen("tcp", "0.0.0.0", 3), "http://0.0.0.0:3", False),
        ("192.168.1.5:4", Listen("tcp", "192.168.1.5", 4), "http://192.168.1.5:4", False),
        ("pi.local:5", Listen("tcp", "pi.local", 5), "http://pi.local:5", False),
    ],
)
def test_listen_addresses(text: str, listen: Listen, url: str, loopback: bool) -> None:
    parsed = parse_listen(text, ("tcp",))
    assert parsed == listen
    assert parsed.url("http") == url
    assert parsed.loopback is loopback


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'{"text": "hi"}', AskRequest("hi", "http")),
        (
            b'{"text": "hi", "session": "k", "id": 3, "token": "t"}',
            AskRequest("hi", "k", 3, "t", named_session=True),
        ),
        (b'{"text": "hi", "id": "x"}', AskRequest("hi", "http", "x")),
        (b'{"text": "hi", "room": " Kitchen "}', AskRequest("hi", "http", room="kitchen")),
        (
            b'{"text": "hi", "room": 5}',
            BadRequest("invalid_room", "The room must be a name of at most 100 characters"),
        ),
        # strict JSON in: non-finite numbers are bad input, never echoed (issue 17, item 5)
        (
            b'{"text": "hi", "id": NaN}',
            BadRequest("invalid_json", "The request is not valid JSON (NaN is not a JSON number)"),
        ),
        (
            b'{"text": "hi", "id": -Infinity}',
            BadRequest(
                "invalid_json", "The request is not valid JSON (-Infinity is not a JSON number)"
            ),
        ),
        (
            b'{"text": "hi", "id": 1e400}',
            BadRequest(
                "invalid_json", "The request is not valid JSON (1e400 is too large for a number)"
            ),
        ),
        # a lone surrogate in the text is refused before anything is done (issue 17, item 1)
        (
            b'{"text": "\\ud800 lamp on", "id": 7}',
            BadRequest("encoding", LONE_SURROGATE, id=7),
        ),
        # ... in an id or a session it is replaced, so the reply can always be written
        (
            b'{"text": "hi", "id": "a\\udc00", "session": "\\ud83d"}',
            AskRequest("hi", "\ufffd", "a\ufffd", named_session=True),
        ),
        # a surrogate pair is a character, not a lone surrogate
        (b'{"text": "hi \\ud83d\\ude00"}', AskRequest("hi \U0001f600", "http")),
        (
            b'{"text": "hi", "id": true}',
            BadRequest("invalid_id", "The id must be a string or a number"),
        ),
        (
            b'{"text": "hi", "id": "' + b"i" * 201 + b'"}',
            BadRequest("invalid_id", "The id must be at most 200 characters"),
        ),
        (
            b'{"text": "' + b"a" * 21 + b'", "id": 1}',
            BadRequest("too_long", "The text is longer than 20 characters", 413, 1),
        ),
        (
            b'"just a string"',
            BadRequest("invalid_json", 'The request must be a JSON object like {"text": "..."}'),
        ),
    ],
)
def test_reading_a_json_request(body: bytes, expected: AskRequest | BadRequest) -> None:
    assert read_json_request(body, "http", 20) == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"  what time is it \n", AskRequest("what time is it", "mqtt")),
        (b"\n", BadRequest("empty", "The request is empty: send the text to answer")),
        ("caf\u00e9".encode(), AskRequest("caf\u00e9", "mqtt")),
    ],
)
def test_reading_a_plain_request(body: bytes, expected: AskRequest | BadRequest) -> None:
    assert read_plain_request(body, "mqtt", 20) == expected


def test_a_request_log_line_escapes_what_was_said() -> None:
    from mnemolis.runtime.answer import Answer

    line = request_line("http", 'k"1', Answer('on\nmnemolis: forged "x"', "Sure.", ms=1.25))
    assert line == (
        'ask via=http session="k\\"1" outcome=not_understood parts=0 sources=- ms=1.2 '
        'query="on\\nmnemolis: forged \\"x\\""'
    )
