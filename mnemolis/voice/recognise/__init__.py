"""The embedded recogniser, personalised from the configuration.

    vocabulary (config, home, sources) -> templates + classes
        -> pronunciations (owner's file, dictionary, espeak-ng guesses)
        -> compiled model (trigram over templates, one class per slot), cached by digest
        -> pocketsphinx decoder -> judged (confidence, alternatives, rejection) -> Heard

Modules, one job each: `spoken` (names and numbers as said), `vocabulary` (what
can be said), `templates` (examples and phrases as templates), `general` (common
English words), `pronounce`, `model` (compile), `cache`, `build` (the steps in
order), `audio` (format and silence), `decoder`, `judge`, `recogniser` (the
stage), `settings` (the ``recogniser:`` block of ``sources/voice.yaml``), `names`
(what the sources keep: list items, music, titles).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnemolis.config import At, Config
from mnemolis.core.devices import DeviceRegistry
from mnemolis.voice.recognise.settings import (
    RecogniserSettings,
    load_recogniser_settings,
    recogniser_settings,
)

if TYPE_CHECKING:
    from mnemolis.voice.recognise.recogniser import PocketsphinxRecogniser

__all__ = [
    "PocketsphinxRecogniser",
    "RecogniserSettings",
    "create_recogniser",
    "load_recogniser_settings",
    "recogniser_settings",
]


def create_recogniser(
    config: Config,
    settings: RecogniserSettings | object | None = None,
    state_dir: Path | None = None,
    registry: DeviceRegistry | None = None,
    names: Callable[[Config], Mapping[str, Iterable[str]]] | None = None,
) -> PocketsphinxRecogniser:
    """The recogniser for this configuration, compiling in the background.

    ``registry``: the home as the daemon sees it (YAML devices, discovery); a change
    to it recompiles after a short pause. ``names``: a callable giving the names the
    sources keep ({"item": [...], "music": [...], "title": [...]}) for the configuration
    it is given, read at each compile.
    ``settings``: the recogniser's own, or the pipeline's ``VoiceSettings`` (its
    ``recogniser:`` mapping is read here, with file and line), or None (the file's)."""
    if not isinstance(settings, RecogniserSettings):
        # the pipeline's VoiceSettings hands its ``recogniser:`` mapping as written
        raw = getattr(settings, "recogniser", None)
        settings = (
            recogniser_settings(config)
            if raw is None
            else load_recogniser_settings(raw, At(config.source_path("voice")) / "recogniser")
        )
    if state_dir is None:
        from mnemolis.core.state_dir import state_dir as default_state_dir

        state_dir = default_state_dir()
    from mnemolis.voice.recognise.recogniser import PocketsphinxRecogniser

    return PocketsphinxRecogniser(config, settings, Path(state_dir), registry, names)


def __getattr__(name: str) -> Any:
    """`PocketsphinxRecogniser` is imported when asked for: pocketsphinx is the voice
    extra's, and what only spells numbers or reads settings (the evaluation, `serve`'s
    options) must work on an install without it."""
    if name == "PocketsphinxRecogniser":
        from mnemolis.voice.recognise.recogniser import PocketsphinxRecogniser

        return PocketsphinxRecogniser
    raise AttributeError(name)
