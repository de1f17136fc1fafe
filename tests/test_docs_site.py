"""`make docs` fails on a broken link or anchor; a new page always joins the navigation,
and a section whose pages have not arrived yet is not shown."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _recipe() -> str:
    """The command `make docs` runs, as make prints it."""
    done = subprocess.run(
        ["make", "-s", "-n", "docs"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    lines = [line for line in done.stdout.splitlines() if "mkdocs build" in line]
    assert len(lines) == 1, done.stdout
    return lines[0]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("site")
    for name in ("docs", "sources", "intents"):
        shutil.copytree(ROOT / name, copy / name)
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    (copy / ".venv").symlink_to(Path(sys.executable).parent.parent, target_is_directory=True)
    return copy


def _build(site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", _recipe()], cwd=site, capture_output=True, text=True, timeout=300
    )


def test_the_recipe_is_strict_and_not_quiet() -> None:
    """--quiet hides the warnings that --strict counts: the build would pass anyway."""
    recipe = _recipe()
    assert "--strict" in recipe and "--quiet" not in recipe and " -q" not in recipe


def test_a_broken_link_fails_the_build(site: Path) -> None:
    page = site / "docs" / "index.md"
    kept = page.read_text(encoding="utf-8")
    page.write_text(kept + "\n[gone](no-such-page.md)\n", encoding="utf-8")
    try:
        done = _build(site)
    finally:
        page.write_text(kept, encoding="utf-8")
    assert done.returncode != 0
    assert "no-such-page.md" in done.stderr


def test_a_new_page_joins_the_navigation_and_empty_sections_do_not_show(site: Path) -> None:
    for owners in (site / "docs").glob("owner*.md"):  # the Owners section: left empty here
        owners.unlink()
    (site / "docs" / "voice-later.md").write_text("# Voice, later\n", encoding="utf-8")
    (site / "docs" / "some-new-page.md").write_text("# Some new page\n", encoding="utf-8")
    try:
        done = _build(site)
    finally:
        (site / "docs" / "voice-later.md").unlink()
        (site / "docs" / "some-new-page.md").unlink()
    assert done.returncode == 0, done.stderr
    home = (site / "build" / "site" / "index.html").read_text(encoding="utf-8")
    nav = home[home.index("md-nav--primary") :]
    assert "Voice, later" in nav and "Some new page" in nav
    assert "Owners" not in nav  # a section whose pattern matched nothing
