"""The programs the tests start for real: one table, and what happens when one is missing.

A new need (the voice tests' espeak-ng, say) is one more row in `TOOLS`;
everything else follows from the table:

* ``make test`` runs this file first (``python3 tests/tools.py``), before
  the virtual environment is made. With every tool found it says nothing;
  as root with apt-get it installs what is missing, as ``.ci/run`` does;
  otherwise it stops at once, with one line naming what is missing and the
  command that installs it. ``--allow-missing`` (``make test
  MISSING=skip``) only says that line and lets the tests run without them.
* A test (or a fixture) calls `require` for the program's path. Found, the
  test runs; missing, it fails under CI (``CI=true``: nothing may skip
  there) and elsewhere skips with a reason naming the tool, and
  ``tests/conftest.py`` adds up those skips in one line at the end of the
  run: how many tests could not run, for want of what.

Standard library only, and no syntax newer than Python 3.8: it runs before
anything is installed, under whatever ``python3`` the machine has.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NoReturn


@dataclass(frozen=True)
class Tool:
    """One program some tests start for real."""

    name: str
    candidates: tuple[str, ...]  # commands looked up on PATH (and sbin), or absolute paths
    package: str  # the Debian package that installs it
    used_by: str  # which tests need it, said when it is missing
    library: str | None = None  # a shared library instead of a command (ctypes' name)


#: Every program the tests need, and the Debian package that brings it.
TOOLS: tuple[Tool, ...] = (
    Tool("mosquitto", ("mosquitto",), "mosquitto", "the MQTT tests start a real broker"),
    Tool("mosquitto_passwd", ("mosquitto_passwd",), "mosquitto", "a broker with users"),
    Tool("openssl", ("openssl",), "openssl", "a broker over TLS"),
    Tool("kiwix-serve", ("kiwix-serve",), "kiwix-tools", "the encyclopedia served over HTTP"),
    Tool("mpd", ("mpd",), "mpd", "the music tests and the demo's music play on a real MPD"),
    Tool("systemd-analyze", ("systemd-analyze",), "systemd", "systemd reads the service unit"),
    Tool("espeak-ng", ("espeak-ng",), "espeak-ng", "the voice tests speak their requests"),
    Tool("sox", ("sox",), "sox", "the voice tests make and convert sounds"),
    Tool("arecord", ("arecord",), "alsa-utils", "the voice tests' microphone command"),
    Tool("portaudio", (), "libportaudio2", "sounddevice's microphone and speaker", "portaudio"),
)
BY_NAME = {tool.name: tool for tool in TOOLS}
#: Where a program may be when it is not on a user's PATH (mosquitto lives in /usr/sbin).
EXTRA_PATH = ("/usr/local/sbin", "/usr/sbin", "/sbin")
#: The reason a test skips for want of a tool; `conftest` reads it back for its summary.
SKIP_REASON = "{name} is not installed ({used_by}): {install}"
SKIPPED = re.compile(r"^(?:Skipped: )?(\S+) is not installed \(")


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def find(tool: Tool) -> str | None:
    """The program's path (a library's name), or None."""
    if tool.library is not None:
        from ctypes.util import find_library

        return find_library(tool.library)
    path = os.pathsep.join([os.environ.get("PATH", os.defpath), *EXTRA_PATH])
    for candidate in tool.candidates:
        found = shutil.which(candidate, path=path)
        if found is not None:
            return found
    return None


def missing() -> list[Tool]:
    return [tool for tool in TOOLS if find(tool) is None]


def packages(tools: list[Tool]) -> list[str]:
    return list(dict.fromkeys(tool.package for tool in tools))


def install_command(tools: list[Tool]) -> str:
    sudo = "" if _is_root() else "sudo "
    return f"{sudo}apt-get install {' '.join(packages(tools))}"


def require(name: str) -> str:
    """The path of tool ``name`` for a test; without it the test skips (fails under CI)."""
    import pytest  # here: the script itself runs before pytest is installed

    tool = BY_NAME[name]
    found = find(tool)
    if found is not None:
        return found
    reason = SKIP_REASON.format(name=name, used_by=tool.used_by, install=install_command([tool]))
    if in_ci():
        pytest.fail(f"{reason}; CI runs every test")
    pytest.skip(reason)


def tool_of_skip(reason: str) -> Tool | None:
    """The tool a skip's reason names, if it is one of `require`'s."""
    match = SKIPPED.match(reason)
    return BY_NAME.get(match.group(1)) if match else None


def skip_line(reasons: Iterable[str]) -> str | None:
    """The run's last word on the tests that could not run for want of a program (the
    reasons of every skip of the run), or None when there were none."""
    wanting: Counter[str] = Counter()
    for reason in reasons:
        tool = tool_of_skip(reason)
        if tool is not None:
            wanting[tool.name] += 1
    if not wanting:
        return None
    absent = [BY_NAME[name] for name in wanting]
    counts = ", ".join(f"{count} for want of {name}" for name, count in wanting.most_common())
    return (
        f"{sum(wanting.values())} tests could not run ({counts}): {summary(absent)}; "
        f"`{install_command(absent)}` installs them"
    )


def summary(tools: list[Tool]) -> str:
    return f"the tests start {', '.join(tool.name for tool in tools)} for real"


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _install(tools: list[Tool]) -> bool:
    """apt-get install, with an update first only when the package lists are stale."""
    command = ["apt-get", "install", "-y", "-q", *packages(tools)]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    quiet = subprocess.DEVNULL
    if subprocess.run(command, env=env, stdout=quiet, stderr=quiet, check=False).returncode == 0:
        return True
    subprocess.run(["apt-get", "update", "-q"], env=env, stdout=quiet, stderr=quiet, check=False)
    return subprocess.run(command, env=env, stdout=quiet, check=False).returncode == 0


def _stop(line: str) -> NoReturn:
    print(f"make test: {line}", file=sys.stderr)
    sys.exit(1)


def main(argv: list[str]) -> int:
    allow_missing = "--allow-missing" in argv
    absent = missing()
    if not absent:
        return 0
    if allow_missing:
        print(
            f"make test: {summary(absent)}, and this machine lacks them: their tests are "
            f"skipped and counted at the end (`{install_command(absent)}` installs them)",
            file=sys.stderr,
        )
        return 0
    if _is_root() and shutil.which("apt-get") is not None:
        wanted = " ".join(packages(absent))
        print(f"make test: installing {wanted} with apt-get: {summary(absent)}", file=sys.stderr)
        still = missing() if _install(absent) else absent
        if still:
            _stop(f"apt-get could not install {' '.join(packages(still))}: {summary(still)}")
        return 0
    _stop(
        f"{summary(absent)}, and this machine lacks them: `{install_command(absent)}` "
        "installs them (`make test MISSING=skip` runs the other tests)"
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
