"""The configuration reference cannot drift: every key a loader reads is in it.

The site's reference pages are made from the shipped files (`config.reference`).
Here each loader reads its file through a mapping that notes every key asked
for; a key it reads that the shipped file neither sets nor shows commented out
(``# key: value`` at its depth) is missing from the reference, and fails.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from mnemolis.config import TOP_LEVEL_KEYS, At, Config, load_config, overlay
from mnemolis.config.home import load_home
from mnemolis.config.intents import INTENT_KEYS
from mnemolis.config.language import load_language
from mnemolis.config.reference import Key, document
from mnemolis.config.routines import KINDS
from mnemolis.config.source_kinds import BUILTIN
from mnemolis.runtime.settings import AssistantSettings
from mnemolis.serve.settings import load_serve_settings
from mnemolis.sources.clock.source import ClockSettings
from mnemolis.sources.mqtt.replies import Phrasebook
from mnemolis.sources.mqtt.settings import load_mqtt_settings
from mnemolis.sources.timers.settings import TimersSettings
from mnemolis.voice.settings import load_voice_settings

ROOT = Path(__file__).resolve().parents[1]


class Noted(dict[str, Any]):
    """A mapping that notes the path of every key read from it (and from what it holds)."""

    def __init__(self, data: Any = (), path: str = "", seen: set[str] | None = None) -> None:
        super().__init__(data)
        self.path = path
        self.seen: set[str] = set() if seen is None else seen

    def _note(self, key: Any) -> str:
        path = f"{self.path}{key}"
        self.seen.add(path)
        return path

    def _wrap(self, key: Any, value: Any) -> Any:
        path = self._note(key)
        if isinstance(value, dict) and not isinstance(value, Noted):
            return Noted(value, f"{path}.", self.seen)
        if isinstance(value, list) and any(isinstance(v, dict) for v in value):
            return [Noted(v, f"{path}[].", self.seen) if isinstance(v, dict) else v for v in value]
        return value

    def __getitem__(self, key: Any) -> Any:
        return self._wrap(key, super().__getitem__(key))

    def get(self, key: Any, default: Any = None) -> Any:
        return self._wrap(key, super().get(key, default))

    def __contains__(self, key: object) -> bool:
        self._note(key)
        return super().__contains__(key)

    def items(self) -> Iterator[tuple[Any, Any]]:  # type: ignore[override]
        return iter([(k, self[k]) for k in self.keys()])

    def values(self) -> Iterator[Any]:  # type: ignore[override]
        return iter([self[k] for k in self.keys()])


def _noted_merged(real: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """`overlay.merged` that keeps noting what is read from the owner's side."""

    def merged(owner: Any, default: Any) -> Any:
        out = real(owner, default)
        if isinstance(owner, Noted) and isinstance(out, dict):
            return Noted(out, owner.path, owner.seen)
        return out

    return merged


@pytest.fixture
def noted(monkeypatch: pytest.MonkeyPatch) -> Callable[[Config, str], set[str]]:
    """Swap one file's settings for a noting mapping; return the set it fills."""
    import sys

    patched = _noted_merged(overlay.merged)
    for name, module in list(sys.modules.items()):
        if name.startswith("mnemolis.") and getattr(module, "merged", None) is overlay.merged:
            monkeypatch.setattr(module, "merged", patched)

    def swap(config: Config, stem: str) -> set[str]:
        wrapped = Noted(config.sources.get(stem) or {})
        config.sources[stem] = wrapped
        return wrapped.seen

    return swap


def _checker(stem: str) -> Callable[[Config], None]:
    kind = next(k for k in BUILTIN if k.settings == f"{stem}.yaml")
    return kind.check


#: Each shipped settings file and what reads it, as the sources and the daemon do.
READERS: dict[str, list[Callable[[Config], object]]] = {
    "assistant": [AssistantSettings.from_config],
    "serve": [lambda c: load_serve_settings(c, env={})],
    "mqtt": [
        lambda c: load_mqtt_settings(c, env={}),
        lambda c: load_home(c.sources["mqtt"], At(c.source_path("mqtt"))),
        Phrasebook.from_config,
    ],
    "clock": [ClockSettings.from_config],
    "timers": [lambda c: TimersSettings.from_config(c, Path("/nonexistent"))],
    "voice": [load_voice_settings],
    **{
        stem: [_checker(stem)]
        for stem in ("kiwix", "weather", "routines", "external", "music", "lists", "broadcast")
    },
}


def _missing(keys: set[str], path: Path) -> list[str]:
    reference = document(path)
    return sorted(k for k in keys if not reference.covers(k))


@pytest.mark.parametrize("stem", sorted(READERS))
def test_every_key_a_source_reads_is_in_the_reference(
    stem: str, noted: Callable[[Config, str], set[str]]
) -> None:
    config = load_config(ROOT)
    seen = noted(config, stem)
    for read in READERS[stem]:
        read(config)
    assert seen, f"nothing was read from sources/{stem}.yaml: the reader is not noted"
    missing = _missing(seen, ROOT / "sources" / f"{stem}.yaml")
    assert not missing, f"sources/{stem}.yaml does not show: {', '.join(missing)}"


def test_every_shipped_settings_file_is_read_here() -> None:
    shipped = {p.stem for p in (ROOT / "sources").glob("*.yaml")}
    unread = sorted(shipped - set(READERS))
    assert not unread, (
        f"no reader for sources/{', '.join(unread)}.yaml: add the function that loads it to "
        "READERS here, so that its reference page is checked against what it reads"
    )


def test_every_key_the_language_file_reads_is_in_the_reference() -> None:
    path = ROOT / "intents" / "en" / "language.yaml"
    data = Noted(yaml.safe_load(path.read_text(encoding="utf-8")))
    load_language(data, At(path))
    assert data.seen
    assert _missing(data.seen, path) == []


def test_a_key_read_but_not_shipped_is_found_missing(tmp_path: Path) -> None:
    """The check above can fail: a key the file does not write is reported."""
    path = tmp_path / "x.yaml"
    path.write_text("a: 1\nb:\n  c: 2\n# d: 3  # optional\ncolors: {red: [255, 0, 0]}\n")
    assert _missing({"a", "b.c", "d", "colors.red", "b.e", "z"}, path) == ["b.e", "z"]


def test_the_reference_reads_comments_and_commented_out_keys(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(
        "# The file.\n\n"
        "# Above a.\na: 1    # on a's line\n"
        "b:\n  c: '#'  # c's\n"
        "          # and more\n"
        "  # e: 5  # an option\n"
        "  d: [x]\n"
    )
    keys = {k.path: k for k in document(path).keys}
    assert document(path).intro == ["The file."]
    assert keys["a"] == Key("a", "1", "Above a. on a's line")
    assert keys["b.c"] == Key("b.c", "'#'", "c's and more")
    assert keys["b.e"] == Key("b.e", "5", "an option", optional=True)
    assert keys["b.d"].comment == ""


@pytest.mark.parametrize(
    ("what", "keys"),
    [("intent", INTENT_KEYS), ("intents file", TOP_LEVEL_KEYS), ("routine step", KINDS)],
)
def test_the_intents_page_names_every_key_the_loader_knows(
    what: str, keys: tuple[str, ...]
) -> None:
    page = (ROOT / "docs" / "configuration" / "intents.md").read_text(encoding="utf-8")
    missing = [key for key in keys if f"| `{key}` |" not in page]
    assert missing == [], f"docs/configuration/intents.md names no {what} key {missing}"
