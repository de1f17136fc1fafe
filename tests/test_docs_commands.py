"""Every command of the README and of the getting-started page runs as written.

Each fenced ``sh`` block of those pages runs with bash (``-euo pipefail``), in
order, in a copy of the clone (its `.venv` the one under test), with a home,
cache, state and runtime directory of its own, no ``MNEMOLIS_*`` setting of
the machine's, and an MQTT URL where no broker listens: only the demo's own
broker is ever reached. A block fails the test when any command in it fails.

Two exceptions, both visible: a block that opens with the line
``# Needs a Raspberry Pi and root`` is not run; and ``make test`` itself is
run as ``make -n test`` (it runs this test: running it here would never end).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("README.md", "docs/getting-started.md")
NEEDS_PI = "# Needs a Raspberry Pi and root"
_FENCE = re.compile(r"^```(?:sh|bash|shell)[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_MAKE_TEST = re.compile(r"^make test\b", re.MULTILINE)
_COPY_SKIPS = (".venv", ".git", "build", "cache", "__pycache__", ".*_cache", ".hypothesis")


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    code: str

    @property
    def runs(self) -> bool:
        return not self.code.startswith(NEEDS_PI)


def blocks(page: str, text: str) -> list[Block]:
    return [
        Block(page, text.count("\n", 0, m.start()) + 1, m.group(1)) for m in _FENCE.finditer(text)
    ]


def _clone(where: Path) -> Path:
    """A copy of the clone; its `.venv` is the one running these tests."""
    copy = where / "clone"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(*_COPY_SKIPS), symlinks=True)
    (copy / ".venv").symlink_to(Path(sys.executable).parent.parent, target_is_directory=True)
    os.utime(copy / "pyproject.toml", (0, 0))  # `make` finds the venv up to date
    return copy


def _environment(where: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MNEMOLIS_", "MAKE", "XDG_"))
        and k not in ("MFLAGS", "RUNTIME_DIRECTORY", "STATE_DIRECTORY", "CACHE_DIRECTORY")
    }
    home = where / "home"
    for name, path in (("HOME", home), ("XDG_RUNTIME_DIR", where / "run")):
        path.mkdir(mode=0o700, exist_ok=True)
        env[name] = str(path)
    env["MNEMOLIS_MQTT_URL"] = "mqtt://127.0.0.1:9"  # no broker there: only the demo's own
    return env


def _run(block: Block, clone: Path, env: dict[str, str]) -> None:
    code = _MAKE_TEST.sub("make -n test", block.code)
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", code],
        cwd=clone,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, (
        f"{block.page}:{block.line}: the block failed (exit {done.returncode})\n{block.code}\n"
        f"--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
    )


def test_the_pages_show_the_two_commands() -> None:
    readme = "\n".join(b.code for b in blocks("README.md", (ROOT / "README.md").read_text()))
    assert re.search(r"^make demo\b", readme, re.MULTILINE)
    assert re.search(r"^make test\b", readme, re.MULTILINE)
    for page in PAGES:
        text = (ROOT / page).read_text(encoding="utf-8")
        bare = re.findall(r"^mnemolis .*$", "\n".join(b.code for b in blocks(page, text)), re.M)
        assert bare == [], f"{page}: a bare `mnemolis` is not on the PATH after make demo"


def test_make_test_builds_the_documentation() -> None:
    done = subprocess.run(
        ["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "make docs" in done.stdout


def test_a_failing_command_fails_its_block(tmp_path: Path) -> None:
    """The runner can fail: the first failing command of a block is a failure."""
    text = "```sh\ntrue\nfalse\ntrue\n```\n\n```sh\n# Needs a Raspberry Pi and root\nfalse\n```\n"
    found = blocks("x.md", text)
    assert [(b.line, b.runs) for b in found] == [(1, True), (7, False)]
    with pytest.raises(AssertionError, match=r"x\.md:1: the block failed"):
        _run(found[0], tmp_path, _environment(tmp_path))


@pytest.mark.parametrize("page", PAGES)
def test_every_command_of_the_page_runs(page: str, tmp_path: Path) -> None:
    found = blocks(page, (ROOT / page).read_text(encoding="utf-8"))
    assert found, f"{page} shows no commands"
    clone, env = _clone(tmp_path), _environment(tmp_path)
    for block in found:
        if block.runs:
            _run(block, clone, env)
