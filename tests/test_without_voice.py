"""A text-only install (no `[voice]` extra) runs every text command: the voice
packages are imported only where sound is handled."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

#: The voice extra's packages, made unimportable in the child.
VOICE = ("pocketsphinx", "soxr", "sounddevice", "pymicro_wakeword", "pymicro_vad")

_CHILD = f"""
import sys
for name in {VOICE!r}:
    sys.modules[name] = None  # import fails as on an install without them
from mnemolis.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--help"],
        ["parse", "turn off the kitchen light"],
        ["eval", "tests/data/clock.jsonl", "--no-timing"],
        ["check"],
    ],
)
def test_text_commands_run_without_the_voice_extra(argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ModuleNotFoundError" not in done.stderr
