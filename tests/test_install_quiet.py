"""The first install prints no screen of setuptools warnings (issue 26): `make venv`'s
editable install, as a newcomer runs it, says nothing but errors."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

from tests.conftest import ROOT


def test_the_editable_install_says_nothing(tmp_path: Path) -> None:
    target = tmp_path / "venv"
    venv.create(target, with_pip=False)
    python = target / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    done = subprocess.run(
        [*pip, "install", "--quiet", "--no-deps", "--no-input", "-e", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    said = [
        line
        for line in (done.stdout + done.stderr).splitlines()
        if line.strip() and "Location 'file:" not in line  # a local index's own notice
    ]
    assert said == []
    found = subprocess.run(
        [str(python), "-c", "import mnemolis.cli.main as m; print(m.__file__)"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert found.stdout.strip() == str(ROOT / "mnemolis" / "cli" / "main.py"), found.stderr
