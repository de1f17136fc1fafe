"""Issue 21's defences as pieces, without a daemon: the web rules, JSON's depth, session
keys and whose yes counts, connection counts per client, the token file, private state.
The attacks themselves, on a running daemon, are in test_serve_web.py,
test_serve_private.py and test_serve_sessions.py."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemolis.core.heard import Heard
from mnemolis.core.plan import Part, Plan
from mnemolis.core.state_dir import private_places, private_state_dir, tighten
from mnemolis.runtime.conversation import Conversation, Waiting, scoped
from mnemolis.runtime.doubt import Doubted
from mnemolis.serve.listeners import ClientCounts, client_address
from mnemolis.serve.sessions import as_named
from mnemolis.serve.token_file import TokenFileError, ensure_token, read_token, token_path
from mnemolis.serve.web_guard import WebGuard, host_of, normal_host, normal_origin
from mnemolis.serve.wire import MAX_DEPTH, NotJson, depth, loads

# --------------------------------------------------------------------------- the web rules

GUARD = WebGuard("127.0.0.1", ["mnemolis.lan"], ["http://dash.lan:8123"])


@pytest.mark.parametrize(
    ("header", "ours"),
    [
        ("127.0.0.1:8686", True),
        ("localhost:8686", True),
        ("LOCALHOST", True),
        ("[::1]:8686", True),
        ("127.0.0.5", True),  # a loopback address cannot be rebound
        ("mnemolis.lan:8686", True),
        ("mnemolis.lan.", True),
        ("evil.example:8686", False),  # a rebinding page's own name
        ("localhost.evil.example", False),
        ("192.168.1.20:8686", False),  # another address than the one listened on
        ("", False),
        ("a b", False),
    ],
)
def test_the_host_must_be_this_daemons(header: str, ours: bool) -> None:
    refused = GUARD.host(header)
    assert (refused is None) == ours
    if refused is not None:
        assert (refused.status, refused.code) == (421, "misdirected")
        assert "http.allowed_hosts" in refused.message


def test_listening_on_every_address_any_address_is_ours_but_no_other_name() -> None:
    everywhere = WebGuard("0.0.0.0", [], [])
    assert everywhere.host("192.168.1.20:8686") is None
    assert everywhere.host("raspberrypi.local:8686") is not None
    assert everywhere.host(None) is None  # HTTP/1.0 without a Host: not a browser


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        ("http://dash.lan:8123", True),
        ("HTTP://Dash.LAN:8123", True),
        ("http://dash.lan", False),
        ("https://dash.lan:8123", False),
        ("http://evil.example", False),
        ("null", False),  # a sandboxed page or a file
        ("", False),
    ],
)
def test_only_allowed_origins_pass(origin: str, allowed: bool) -> None:
    refused = GUARD.origin(origin)
    assert (refused is None) == allowed
    assert GUARD.origin(None) is None  # a program, not a page
    assert bool(GUARD.cors(origin)) == allowed


@pytest.mark.parametrize(
    ("method", "length", "content_type", "ok"),
    [
        ("POST", 10, "application/json", True),
        ("POST", 10, "application/json; charset=UTF-8", True),
        ("POST", 0, "Application/JSON", True),
        ("POST", 10, "text/plain", False),  # what a page may send anywhere
        ("POST", 10, "application/x-www-form-urlencoded", False),
        ("POST", 10, "multipart/form-data; boundary=x", False),
        ("POST", 10, "application/json; charset=utf-16", False),
        ("POST", 0, None, False),
        ("GET", 0, None, True),
        ("GET", 5, "text/plain", False),
    ],
)
def test_a_body_must_be_json(method: str, length: int, content_type: str | None, ok: bool) -> None:
    refused = WebGuard.content(method, length, content_type)
    assert (refused is None) == ok
    if refused is not None:
        assert refused.status == 415 and "application/json" in refused.message


def test_origins_and_hosts_are_written_as_browsers_send_them() -> None:
    assert normal_origin("HTTPS://Dash.lan:443/") == "https://dash.lan"
    assert normal_origin("http://[::1]:8123") == "http://[::1]:8123"
    for bad in ("dash.lan", "ftp://dash.lan", "http://dash.lan/path", "http://x:port", "*"):
        with pytest.raises(ValueError):
            normal_origin(bad)
    assert normal_host("Pi.Local.") == "pi.local"
    assert normal_host("[::1]") == "::1"
    for bad in ("pi.local:8686", "http://pi", "", "a..b"):
        with pytest.raises(ValueError):
            normal_host(bad)


@given(st.from_regex(r"[a-z][a-z0-9-]{0,20}(\.[a-z][a-z0-9-]{0,20}){0,3}", fullmatch=True))
def test_a_host_header_names_its_host_with_or_without_a_port(name: str) -> None:
    assert host_of(name) == host_of(f"{name}:8686") == host_of(f"{name.upper()}:1") == name


# --------------------------------------------------------------------------- JSON's depth


def test_the_probes_30000_brackets_are_refused_in_words() -> None:
    with pytest.raises(NotJson, match=f"nested deeper than {MAX_DEPTH} levels"):
        loads(b"[" * 30_000)
    with pytest.raises(NotJson, match="nested deeper"):
        loads(json.dumps({"text": "hi", "x": [[[[]]]]}).replace("[]", "[" * 70 + "]" * 70))
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None


nested = st.recursive(
    st.one_of(st.integers(), st.text(alphabet='ab[]{}"\\ ', max_size=8), st.none()),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=30,
)


def true_depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((true_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((true_depth(v) for v in value.values()), default=0)
    return 0


@given(nested)
def test_depth_counts_nesting_and_never_brackets_in_strings(value: object) -> None:
    text = json.dumps(value)
    assert depth(text) == true_depth(value)
    assert loads(text) == value


# --------------------------------------------------------------------------- sessions


@given(st.sampled_from(["http", "mqtt", "hermes", "wyoming", "local"]), st.text(), st.text())
def test_a_session_key_belongs_to_one_front_end_and_one_name(
    front_end: str, one: str, other: str
) -> None:
    for elsewhere in ("http", "mqtt", "hermes", "wyoming", "local"):
        same = scoped(front_end, one) == scoped(elsewhere, other)
        assert same == (front_end == elsewhere and one == other)
    assert as_named(scoped(front_end, one)) == one


def test_a_front_end_name_cannot_hold_the_separator() -> None:
    with pytest.raises(ValueError):
        scoped("mqtt:hermes", "kitchen")


def test_a_yes_counts_only_from_the_client_that_was_asked() -> None:
    conversation = Conversation("hermes:kitchen", 0.0)
    assert conversation.turn_of("session:a") == []
    conversation.waiting.append(Waiting(Part(text="unlock the front door"), 0.0))
    assert conversation.turn_of("session:a") == []  # its own yes: still waiting
    assert len(conversation.waiting) == 1
    conversation.doubted = Doubted(Plan("turn off the lights"), Heard("turn off the lights", 0.3), 0.0)
    dropped = conversation.turn_of("session:b")  # someone else's turn: dropped
    assert [w.part.text for w in dropped] == ["unlock the front door"]
    assert conversation.waiting == [] and conversation.doubted is None
    assert conversation.turn_of("session:a") == []


# --------------------------------------------------------------------------- connections


def test_each_address_holds_its_own_share_of_a_listener() -> None:
    counts = ClientCounts(2)
    assert counts.admit("10.0.0.2") and counts.admit("10.0.0.2")
    assert not counts.admit("10.0.0.2")
    assert counts.admit("10.0.0.3")
    assert counts.admit(None) and counts.admit(None)  # a unix socket's: not counted
    counts.release("10.0.0.2")
    assert counts.admit("10.0.0.2") and counts.refused == 1
    assert client_address(("::ffff:10.0.0.2", 5, 0, 0)) == "10.0.0.2"
    assert client_address(("127.0.0.1", 5)) == "127.0.0.1"
    assert client_address("") is None


# --------------------------------------------------------------------------- the token file


def test_the_token_file_is_made_once_private_and_read_back(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        path = tmp_path / "state" / "token"
        token, made = ensure_token(path)
        again, made_again = ensure_token(path)
    finally:
        os.umask(old)
    assert made and not made_again and token == again and len(token) >= 40
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_token(path) == token
    os.chmod(path, 0o644)
    assert ensure_token(path) == (token, False)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_token_file_that_holds_no_token_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("two words\n")
    with pytest.raises(TokenFileError, match=f"{path} does not hold a token"):
        ensure_token(path)
    assert read_token(path) is None and read_token(tmp_path / "missing") is None


def test_the_token_file_is_in_the_state_directory_unless_named(tmp_path: Path) -> None:
    env = {"MNEMOLIS_STATE": str(tmp_path)}
    assert token_path("auto", env) == tmp_path / "token"
    assert token_path("/etc/mnemolis/token", env) == Path("/etc/mnemolis/token")
    assert token_path(None, env) is None


# --------------------------------------------------------------------------- private state


def test_the_state_directory_and_what_is_in_it_are_made_private(tmp_path: Path) -> None:
    state = tmp_path / "state"
    (state / "sub").mkdir(parents=True)
    (state / "lists.db").write_text("milk")
    (state / "run.sh").write_text("")
    os.chmod(state, 0o777)
    os.chmod(state / "sub", 0o755)
    os.chmod(state / "lists.db", 0o666)
    os.chmod(state / "run.sh", 0o775)
    (state / "link").symlink_to(tmp_path)
    os.chmod(tmp_path, 0o755)
    assert private_state_dir({"MNEMOLIS_STATE": str(state)}) == state

    def mode(path: Path) -> int:
        return stat.S_IMODE(path.stat().st_mode)

    assert (mode(state), mode(state / "sub"), mode(state / "lists.db")) == (0o700, 0o700, 0o600)
    assert mode(state / "run.sh") == 0o700  # the owner's own bits are kept
    assert mode(tmp_path) == 0o755  # a link is not followed
    assert tighten(state) == []


def test_a_missing_state_directory_is_made_private(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        state = private_state_dir({"MNEMOLIS_STATE": str(tmp_path / "a" / "state")})
    finally:
        os.umask(old)
    assert stat.S_IMODE(state.stat().st_mode) == 0o700


def test_the_caches_named_by_the_environment_are_private_places(tmp_path: Path) -> None:
    env = {"MNEMOLIS_STATE": "/s", "CACHE_DIRECTORY": "/c:/d", "MNEMOLIS_WEATHER_CACHE": "/w"}
    assert private_places(env) == [Path("/s"), Path("/c"), Path("/w")]
    assert private_places({"MNEMOLIS_STATE": "/s", "HOME": str(tmp_path)}) == [
        Path("/s"),
        tmp_path / ".cache" / "mnemolis",
    ]
