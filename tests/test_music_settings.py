"""`sources/music.yaml` and $MNEMOLIS_MPD: players checked, mistakes named by file and line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemolis.config import ConfigError, load_config
from mnemolis.sources.music.settings import load_music_settings, parse_address
from tests.conftest import ROOT


def config_with(tmp_path: Path, music_yaml: str) -> Path:
    for folder in ("intents", "sources"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    (tmp_path / "sources" / "music.yaml").write_text(music_yaml, encoding="utf-8")
    return tmp_path


ADDRESSES = [
    ("127.0.0.1:6601", ("127.0.0.1", 6601)),
    ("kitchen-pi.local", ("kitchen-pi.local", 6600)),
    ("kitchen-pi.local:6700", ("kitchen-pi.local", 6700)),
    ("[::1]:6602", ("::1", 6602)),
    ("[fe80::1]", ("fe80::1", 6600)),
    ("::1", ("::1", 6600)),
    ("/run/mpd/socket", ("/run/mpd/socket", 0)),
    ("@mpd", ("@mpd", 0)),
]


@pytest.mark.parametrize(("text", "address"), ADDRESSES)
def test_an_address_is_read_as_mpd_clients_write_it(text: str, address: tuple[str, int]) -> None:
    assert parse_address(text) == address


@pytest.mark.parametrize("text", ["", ":6600", "host:port", "host:0", "host:70000", "[::1"])
def test_a_bad_address_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_address(text)


@given(st.text(max_size=40))
def test_any_address_text_is_read_or_refused_with_a_reason(text: str) -> None:
    try:
        host, port = parse_address(text)
    except ValueError as exc:
        assert str(exc)
    else:
        assert host and 0 <= port < 65536


def test_the_shipped_file_has_no_player_and_the_environment_makes_one(config: object) -> None:
    shipped = load_config(ROOT)
    assert load_music_settings(shipped, {}).players == ()
    (made,) = load_music_settings(shipped, {"MNEMOLIS_MPD": "10.0.0.5:6601"}).players
    assert (made.name, made.host, made.port, made.address) == (
        "default",
        "10.0.0.5",
        6601,
        "10.0.0.5:6601",
    )


def test_the_environment_replaces_the_first_players_address_only(tmp_path: Path) -> None:
    root = config_with(
        tmp_path,
        (
            "players:\n"
            "  - {name: Living Room, host: 10.0.0.2, areas: [living room, lounge]}\n"
            "  - {name: kitchen, host: /run/mpd/socket}\n"
        ),
    )
    config = load_config(root)
    first, second = load_music_settings(
        config, {"MNEMOLIS_MPD": "[::1]:6699", "MNEMOLIS_MPD_PASSWORD": "pw"}
    ).players
    assert (first.name, first.host, first.port, first.areas) == (
        "living room",
        "::1",
        6699,
        ("living room", "lounge"),
    )
    assert first.password == "pw" and "pw" not in repr(first)
    assert (second.host, second.port, second.areas, second.address) == (
        "/run/mpd/socket",
        0,
        ("kitchen",),
        "/run/mpd/socket",
    )
    settings = load_music_settings(config, {})
    assert settings.player_for("lounge") is settings.players[0]
    assert settings.player_for("garage") is None


BROKEN = [
    ("players: {name: x}\n", "music.yaml:1: players must be a list"),
    ("players:\n  - {host: x}\n", "music.yaml:2: a player needs a name"),
    ("players:\n  - {name: a, port: 99999}\n", "music.yaml:2: port must be a number"),
    ("players:\n  - {name: a, colour: red}\n", "music.yaml:2: unknown key 'colour' for a player"),
    ("players:\n  - {name: a}\n  - {name: A}\n", "music.yaml:3: two players are called 'a'"),
    (
        "players:\n  - {name: a, areas: [kitchen]}\n  - {name: b, areas: [kitchen]}\n",
        "music.yaml:3: the kitchen already has the a player",
    ),
    ("players:\n  - {name: a, password: 1234}\n", "music.yaml:2: password must be text"),
    ("volume_step: 0\n", "music.yaml:1: volume_step must be a number from 1 to 100"),
    ("timeout_s: soon\n", "music.yaml:1: timeout_s must be a number"),
    ("speakers: []\n", "music.yaml:1: unknown key 'speakers'"),
]


@pytest.mark.parametrize(("text", "message"), BROKEN)
def test_a_mistake_names_its_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    config = load_config(config_with(tmp_path, text))
    with pytest.raises(ConfigError) as caught:
        load_music_settings(config, {})
    assert message in str(caught.value)


def test_a_bad_environment_address_is_a_config_error(config: object) -> None:
    with pytest.raises(ConfigError, match=r"\$MNEMOLIS_MPD: .*write host:port"):
        load_music_settings(load_config(ROOT), {"MNEMOLIS_MPD": "host:port"})


def test_owner_words_and_replies_lie_over_the_shipped_ones(tmp_path: Path) -> None:
    root = config_with(
        tmp_path,
        (
            "words:\n  play_verbs: [spin]\n"
            "replies:\n  paused: 'hush{where}'\n  what: {genre: 'some {name}'}\n"
        ),
    )
    settings = load_music_settings(load_config(root), {})
    assert settings.words.play_verbs == (("spin",),)
    assert settings.words.fillers  # the shipped ones stay
    assert settings.replies.say("paused", where="") == "hush"
    assert settings.replies.say("what.genre", name="jazz") == "some jazz"
    assert settings.replies.say("what.album", name="x") == "the album x"  # shipped
