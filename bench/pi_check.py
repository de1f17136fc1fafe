"""`make pi-check`: the Raspberry Pi page, followed on an emulated arm64 Debian.

Builds (once, then cached: `pi_root.py`) a Debian bookworm arm64 root run
through qemu-user-static, clones this repository's HEAD into it (committed
work only: a clean clone), and runs every `sh` block of
docs/raspberry-pi.md in order, as the Pi's login `pi` with sudo, exactly as
written: `sudoedit` writes the page's minimal ``mqtt.yaml``; `systemctl` and
`journalctl` are `pi_systemctl.py` (no systemd in a chroot); a line that
says to log out and in again starts a new login. Blocks without a
``pip install`` run in a network namespace of their own (loopback only, a
Mosquitto of this machine's on 127.0.0.1:1883 as the page's broker), so the
daemon's ports never meet another program's; there is no Internet in it, so
`doctor`'s one BROKEN finding may be the weather service (the only exit 1
accepted). Then it checks that the
daemon answers `ask` through its socket (its log shows the request), made
its token (0600, the service user's), that `parse` and `demo --ask` print
what a native install of the same clone prints, and times cold `parse`,
the daemon's start to its socket answering, `ask` through the daemon, and
`demo --ask`, emulated beside native. Not in CI (it takes minutes); run
before a release. Figures: bench/RESULTS.md.

    sudo python3 bench/pi_check.py [--runs 3] [--cache /var/cache/mnemolis-pi-check]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pi_root import (
    NETNS,
    PI_USER,
    base_tarball,
    check_host,
    fresh_root,
    isolated_network,
    mounted,
    trust_host_ca,
)

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "raspberry-pi.md"
CLONE = f"/home/{PI_USER}/mnemolis"
SOCKET = "/run/mnemolis/mnemolis.sock"
PARSED = ["turn on the kitchen light and what's the weather tomorrow", "hello"]
DEMO_ASK = "turn on the kitchen light"


def page_blocks(text: str) -> tuple[list[str], str]:
    """The page's `sh` blocks in order, and its first `yaml` block (the minimal mqtt.yaml)."""
    blocks = re.findall(r"^```sh\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    yamls = re.findall(r"^```yaml\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    if not blocks or not yamls:
        sys.exit(f"{PAGE}: no sh blocks or no yaml block")
    return blocks, yamls[0]


def sessions(block: str) -> list[str]:
    """A block split where it says to log out and in again (a new login sees new groups)."""
    out, current = [], []
    for line in block.splitlines():
        current.append(line)
        if re.search(r"log out and in again", line):
            out.append("\n".join(current))
            current = []
    return [*out, "\n".join(current)] if current else out


class Chroot:
    """Commands in the emulated Pi: as `pi` in a login shell, or as root."""

    def __init__(self, root: Path, log: Path) -> None:
        self.root = root
        self.log = log
        self.variables: list[str] = []  # NAME=... lines earlier blocks defined

    def _command(self, argv: list[str], network: bool) -> list[str]:
        inside = ["chroot", str(self.root), *argv]
        return inside if network else ["ip", "netns", "exec", NETNS, *inside]

    def as_pi(
        self, script: str, network: bool = False, cwd: str = CLONE
    ) -> subprocess.CompletedProcess[str]:
        body = "\n".join(
            ["set -e", f"cd {cwd}", "export SUDO_EDITOR=/usr/local/bin/pi-check-editor",
             *self.variables, script]
        )  # fmt: skip
        argv = ["/usr/sbin/runuser", "-l", PI_USER, "-c", f"bash -c {shlex.quote(body)}"]
        done = subprocess.run(self._command(argv, network), capture_output=True, text=True)
        with self.log.open("a") as log:
            log.write(f"$ {script}\n{done.stdout}{done.stderr}[exit {done.returncode}]\n\n")
        return done

    def remember(self, block: str) -> None:
        self.variables += re.findall(r"^[A-Z_]+=\".*\"$", block, re.MULTILINE)


def timed(run: Callable[[], object], times: int) -> float:
    """Median wall seconds of ``times`` runs of ``run``."""
    spans = []
    for _ in range(times):
        started = time.perf_counter()
        run()
        spans.append(time.perf_counter() - started)
    return statistics.median(spans)


def health(path: Path) -> bool:
    """The daemon answers GET /health on its unix socket."""
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(2)
            s.connect(str(path))
            s.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            return s.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def wait_ready(path: Path, since: float, limit: float = 180.0) -> float:
    while time.perf_counter() - since < limit:
        if health(path):
            return time.perf_counter() - since
        time.sleep(0.05)
    sys.exit(f"the daemon did not answer on {path} within {limit:.0f} s")


def setup(root: Path, yaml_text: str) -> None:
    """The clone (from a bare copy inside, so `git pull` works), the shims, the editor."""
    bare = root / "srv" / "mnemolis.git"
    subprocess.run(["git", "clone", "--quiet", "--bare", str(ROOT), str(bare)], check=True)
    owner = ["chroot", str(root), "chown", "-R", f"{PI_USER}:", "/srv/mnemolis.git"]
    subprocess.run(owner, check=True)  # git refuses a repository of another user
    local = root / "usr" / "local" / "bin"  # on every user's PATH, as /usr/bin/systemctl is
    for tool in ("systemctl", "journalctl"):
        shutil.copy(ROOT / "bench" / "pi_systemctl.py", local / tool)
        (local / tool).chmod(0o755)
    editor = root / "usr" / "local" / "bin" / "pi-check-editor"
    editor.write_text(f"#!/bin/sh\ncat > \"$1\" <<'EOF'\n{yaml_text}EOF\n")
    editor.chmod(0o755)


def follow_the_page(pi: Chroot, first: int = 1) -> dict[str, float]:
    blocks, _ = page_blocks(PAGE.read_text(encoding="utf-8"))
    spent: dict[str, float] = {}
    for n, block in enumerate(blocks, 1):
        if n < first:  # done by an earlier run on this root (--from-block)
            pi.remember(block)
            continue
        network = "pip install" in block
        for part in sessions(block):
            started = time.perf_counter()
            done = pi.as_pi(part, network=network)
            spent[f"block {n}"] = spent.get(f"block {n}", 0.0) + time.perf_counter() - started
            if done.returncode != 0 and not offline_doctor(part, done.stdout):
                sys.exit(f"the page's block {n} failed:\n{part}\n{done.stdout}{done.stderr}")
        pi.remember(block)
        print(f"pi-check: block {n} of {len(blocks)} done ({spent[f'block {n}']:.0f} s)")
    return spent


def offline_doctor(script: str, out: str) -> bool:
    """`doctor` ended the script and found only the weather service broken: this
    namespace has no Internet (a Pi has); everything else it checks must be OK."""
    last = [line for line in script.splitlines() if line.strip()][-1]
    broken = re.findall(r"^BROKEN +(\S+)", out, re.MULTILINE)
    if "mnemolis doctor" in last and broken == ["weather"]:
        print("pi-check: doctor: only the weather service is unreachable (no Internet here)")
        return True
    return False


def native_install(cache: Path, clone: Path) -> Path:
    venv = cache / "native"
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", str(clone)], check=True)
    return venv / "bin" / "mnemolis"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=Path("/var/cache/mnemolis-pi-check"))
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each command")
    parser.add_argument(
        "--ca-bundle",
        default=os.environ.get("PIP_CERT"),
        help="the host's CA bundle for pip in the chroot (default $PIP_CERT)",
    )
    parser.add_argument(
        "--from-block",
        type=int,
        default=1,
        help="go on from this block of the page on the last run's root (when mending a block)",
    )
    args = parser.parse_args()
    check_host()
    if subprocess.run(["git", "-C", str(ROOT), "diff", "--quiet", "HEAD"]).returncode:
        print("pi-check: uncommitted changes are not in the clone it checks", file=sys.stderr)
    args.cache.mkdir(parents=True, exist_ok=True)
    if args.from_block > 1:
        root = args.cache / "run" / "root"
    else:
        root = fresh_root(args.cache, base_tarball(args.cache))
        trust_host_ca(root, args.ca_bundle)
        _, yaml_text = page_blocks(PAGE.read_text(encoding="utf-8"))
        setup(root, yaml_text)
    log = args.cache / "run" / "pi-check.log"
    pi = Chroot(root, log)
    results: dict[str, object] = {}
    with mounted(root, args.cache / "pip"), isolated_network(args.cache / "run"):
        try:
            cloned = (
                args.from_block > 1
                or not pi.as_pi(f"git clone --quiet /srv/mnemolis.git {CLONE}", cwd="~").returncode
            )
            if not cloned:
                sys.exit(f"cloning into the chroot failed: see {log}")
            results["blocks_s"] = follow_the_page(pi, args.from_block)
            from bench.pi_compare import compare  # the checks and timings, beside native

            results.update(compare(pi, args.cache, args.runs, native_install))
        finally:
            pi.as_pi("sudo systemctl stop mnemolis")
    (args.cache / "last-run.json").write_text(json.dumps(results, indent=2))
    print(f"pi-check: passed; the log of every command is {log}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
