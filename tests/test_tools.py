"""The table of programs the tests start for real (`tests/tools.py`): found where they
are, a missing one named with the command that installs it, its tests skipped and counted
(never failed) outside CI, and `make test` stopped at once rather than half run."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests import tools
from tests.conftest import ROOT

GHOST = tools.Tool("ghost-player", ("ghost-player",), "ghost-tools", "the ghost tests")


@pytest.fixture(name="ghost")
def fixture_ghost(monkeypatch: pytest.MonkeyPatch) -> tools.Tool:
    """One more row in the table: a program no machine has."""
    monkeypatch.setattr(tools, "TOOLS", (*tools.TOOLS, GHOST))
    monkeypatch.setitem(tools.BY_NAME, GHOST.name, GHOST)
    monkeypatch.delenv("CI", raising=False)
    return GHOST


def test_a_program_is_found_on_path_only_when_it_can_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = tmp_path / "ghost-player"
    program.write_text("#!/bin/sh\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    program.chmod(0o644)
    assert tools.find(GHOST) is None, "a file that cannot run is no program"
    program.chmod(0o755)
    assert tools.find(GHOST) == str(program)
    library = tools.Tool("ghost-lib", (), "libghost0", "the ghost tests", "ghost-lib-nowhere")
    assert tools.find(library) is None, "a library is looked up as one, never on PATH"


def test_a_missing_program_skips_its_test_with_the_command_that_installs_it(
    ghost: tools.Tool, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(pytest.skip.Exception) as skipped:
        tools.require(ghost.name)
    reason = str(skipped.value)
    assert reason.startswith("ghost-player is not installed (the ghost tests): ")
    assert reason.endswith("apt-get install ghost-tools")
    assert tools.tool_of_skip(f"Skipped: {reason}") is ghost
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI runs every test"):
        tools.require(ghost.name)


def test_the_run_ends_with_one_line_counting_what_could_not_run(ghost: tools.Tool) -> None:
    mpd = tools.BY_NAME["mpd"]
    reasons = [
        tools.SKIP_REASON.format(name=t.name, used_by=t.used_by, install="x")
        for t in (ghost, mpd, ghost)
    ]
    line = tools.skip_line(["Skipped: the platform has no fork", *reasons])
    assert line is not None
    assert line.startswith("3 tests could not run (2 for want of ghost-player, 1 for want of mpd)")
    assert line.endswith("apt-get install ghost-tools mpd` installs them")
    assert tools.skip_line(["Skipped: the platform has no fork"]) is None


def test_make_test_stops_at_once_and_names_what_to_install(
    ghost: tools.Tool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(tools, "_is_root", lambda: False)
    with pytest.raises(SystemExit) as stopped:
        tools.main([])
    assert stopped.value.code == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert "ghost-player" in line and "`sudo apt-get install ghost-tools`" in line
    assert "MISSING=skip" in line
    assert tools.main(["--allow-missing"]) == 0
    (line,) = capsys.readouterr().err.splitlines()
    assert "skipped and counted at the end" in line


def test_every_program_a_test_requires_is_a_row_of_the_table() -> None:
    named = {
        match
        for path in (ROOT / "tests").glob("*.py")
        for match in re.findall(r'\b(?:require|need)\("([^"]+)"\)', path.read_text(encoding="utf-8"))
    }
    assert named and named <= set(tools.BY_NAME), named - set(tools.BY_NAME)


def test_no_test_starts_a_broker_or_a_player_it_did_not_require() -> None:
    """A `Mosquitto()` or `Mpd()` without the binary `require` gave looks the program up
    itself and fails (FileNotFoundError) where it is missing, instead of skipping."""
    unrequired = []
    for path in (ROOT / "tests").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("Mosquitto", "Mpd")
                and not node.args
            ):
                unrequired.append(f"{path.name}:{node.lineno}")
    assert unrequired == []


def test_the_table_runs_before_anything_is_installed() -> None:
    """`make test` runs tests/tools.py with the machine's python3: standard library only."""
    tree = ast.parse((ROOT / "tests" / "tools.py").read_text(encoding="utf-8"))
    top_level = {
        alias.name.split(".")[0]
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])
    }
    standard = {"__future__", "collections", "dataclasses", "os", "re", "shutil", "subprocess"}
    assert top_level <= {*standard, "sys", "typing"}
