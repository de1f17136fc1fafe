"""Fixtures shared by every test module.

Fixtures that start real services live in their own modules
(``tests/support_*.py``) and are imported by the tests that need them.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from mnemolis.config import Config, load_config
from mnemolis.understand import Understander
from tests import tools

ROOT = Path(__file__).resolve().parent.parent
IN_CI = tools.in_ci()
# what sources keep (timers, lists) goes to a scratch folder, never the home directory
_STATE = tempfile.TemporaryDirectory(prefix="mnemolis-state-")
os.environ["MNEMOLIS_STATE"] = _STATE.name

# Timing is measured in bench/, never asserted in tests: on a shared machine a slow
# example or slow input generation is the neighbours' load, not a failure.
_UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("default", max_examples=150, **_UNTIMED)
settings.register_profile("thorough", max_examples=3000, **_UNTIMED)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(scope="session")
def config() -> Config:
    return load_config(ROOT)


@pytest.fixture(scope="session")
def understander(config: Config) -> Understander:
    return Understander(config)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under CI every program the tests start must be there: stop at once, not test by test."""
    absent = tools.missing()
    if IN_CI and absent:
        pytest.exit(f"{tools.summary(absent)}: {tools.install_command(absent)}", returncode=1)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line for the tests that could not run for want of a program, and why."""
    reasons = (
        str(report.longrepr[2])
        for report in terminalreporter.stats.get("skipped", [])
        if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3
    )
    line = tools.skip_line(reasons)
    if line is not None:
        terminalreporter.write_line(line, yellow=True)
    skipped = len(terminalreporter.stats.get("skipped", []))
    if IN_CI and skipped:
        terminalreporter.write_line(f"CI runs every test, and {skipped} skipped", red=True)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Under CI a skipped test is a failed run: nothing there may go untested."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    stats = getattr(reporter, "stats", {})
    if IN_CI and stats.get("skipped") and exitstatus == 0:
        session.exitstatus = 1
