"""Fixtures shared by every test module.

Fixtures that start real services live in their own modules
(``tests/support_*.py``) and are imported by the tests that need them.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from mnemolis.config import Config, load_config
from mnemolis.understand import Understander

ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
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
