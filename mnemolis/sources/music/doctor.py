"""`mnemolis doctor` for the music source: each player reached, and what its library holds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from mnemolis.sources.base import Finding, Level
from mnemolis.sources.music.mpd_link import MpdLink, PlayerDown, PlayerRefused
from mnemolis.sources.music.settings import MusicSettings

if TYPE_CHECKING:
    import mpd


class Checked(Protocol):
    """What the doctor reads of the music source (it never imports the source back)."""

    @property
    def settings(self) -> MusicSettings | None: ...
    @property
    def problem(self) -> str | None: ...
    @property
    def links(self) -> Mapping[str, MpdLink]: ...


FIX = "start MPD there, or fix host: and port: in sources/music.yaml (or MNEMOLIS_MPD)"


def _stats(client: mpd.MPDClient) -> dict[str, Any]:
    stats: dict[str, Any] = client.stats()
    stats["playlists"] = len(client.listplaylists())
    return stats


async def diagnose(music: Checked) -> list[Finding]:
    settings = music.settings
    if settings is None:
        text = music.problem or "the music source is not set up"
        return [Finding("music", Level.BROKEN, text, "fix sources/music.yaml")]
    if not settings.players:
        text = "no music player is set up, so music requests are declined"
        fix = "add one under players: in sources/music.yaml"
        return [Finding("music", Level.WARNING, text, fix)]
    findings = []
    for player in settings.players:
        link = music.links[player.name]
        where = f"the {player.name} player at {player.address}"
        try:
            stats = await link.call(_stats)
        except PlayerDown as exc:
            findings.append(Finding("music", Level.BROKEN, f"{where}: {exc.reason}", FIX))
            continue
        except PlayerRefused as exc:
            fix = "check password: in sources/music.yaml (or MNEMOLIS_MPD_PASSWORD)"
            findings.append(Finding("music", Level.BROKEN, f"{where} refused: {exc.reason}", fix))
            continue
        songs = int(stats.get("songs", 0))
        text = (
            f"{where} (MPD protocol {link.version}): {songs} songs, {stats.get('artists', 0)} "
            f"artists, {stats.get('albums', 0)} albums, {stats['playlists']} playlists"
        )
        if songs == 0:
            fix = "point MPD's music_directory at your music and run `mpc update`"
            findings.append(Finding("music", Level.WARNING, f"{text}: the library is empty", fix))
        else:
            findings.append(Finding("music", Level.OK, text))
    return findings
