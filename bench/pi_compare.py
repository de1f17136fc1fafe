"""pi-check's checks and timings: the emulated Pi beside a native install of the same clone.

Emulated commands are timed inside the chroot by bash's `time` (so the
emulated sudo, runuser and shell around them are not counted); the
daemon's start is timed from the moment `systemctl` (the shim) started it
to its first 200 on ``GET /health`` over its unix socket, polled from this
machine. Native runs use a fresh venv with `pip install` of the clone, the
page's configuration copied, and a network namespace of their own.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.pi_check import CLONE, DEMO_ASK, PARSED, SOCKET, Chroot, health, wait_ready
from bench.pi_root import NETNS

MNEMOLIS = "/opt/mnemolis/bin/mnemolis"
AS_SERVICE = f"sudo -u mnemolis env $MNEMOLIS_ENV {MNEMOLIS}"


def fail(why: str) -> None:
    sys.exit(f"pi-check failed: {why}")


def emulated_seconds(pi: Chroot, command: str, runs: int) -> tuple[float, str]:
    """Median seconds of ``command`` in the chroot (bash's own `time`), and its output."""
    spans, out = [], ""
    for _ in range(runs):
        done = pi.as_pi(f"TIMEFORMAT=%R; time ( {command} )")
        if done.returncode != 0:
            fail(f"{command!r} in the chroot: {done.stdout}{done.stderr}")
        *_, last = done.stderr.strip().splitlines()
        spans.append(float(last))
        out = done.stdout
    return statistics.median(spans), out


def native_seconds(argv: list[str], env: dict[str, str], runs: int) -> tuple[float, str]:
    spans, out = [], ""
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, text=True)
        spans.append(time.perf_counter() - started)
        if done.returncode != 0:
            fail(f"native {argv}: {done.stdout}{done.stderr}")
        out = done.stdout
    return statistics.median(spans), out


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def emulated_daemon(pi: Chroot, root: Path, runs: int) -> dict[str, Any]:
    """The page's daemon: its token, an `ask` it answers, its start and memory."""
    token = root / "var" / "lib" / "mnemolis" / "token"
    if not token.is_file():
        fail("the daemon made no token file in /var/lib/mnemolis")
    mode = token.stat().st_mode & 0o777
    passwd = (root / "etc" / "passwd").read_text().splitlines()
    users = {int(line.split(":")[2]): line.split(":")[0] for line in passwd if line.count(":") >= 2}
    owner = users.get(token.stat().st_uid)
    if mode != 0o600 or owner != "mnemolis":
        fail(f"the token file is {owner}'s, mode {mode:o}: not the service user's, 600")
    log = root / "var" / "log" / "mnemolis.log"
    before = log.read_text(errors="replace")
    ask, answer = emulated_seconds(pi, f'{MNEMOLIS} ask "what time is it"', runs)
    if "what time is it" not in log.read_text(errors="replace")[len(before) :]:
        fail(f"`ask` as {CLONE.split('/')[2]} was not answered by the daemon: {answer}")
    starts, rss = [], 0.0
    for _ in range(runs):
        pi.as_pi("sudo systemctl stop mnemolis")
        pi.as_pi("sudo systemctl start mnemolis")
        started = float((root / "run" / "mnemolis.started").read_text())
        wait_ready(root / SOCKET.lstrip("/"), time.perf_counter())
        starts.append(time.time() - started)
        time.sleep(1.0)
        rss = rss_mib(int((root / "run" / "mnemolis.pid").read_text()))
    return {"token_owner": owner, "ask_s": ask, "answer": answer.strip(),
            "serve_ready_s": statistics.median(starts), "serve_rss_mib": rss}  # fmt: skip


def native_daemon(mnemolis: Path, env: dict[str, str], runs: int) -> dict[str, Any]:
    sock = Path(env["RUNTIME_DIRECTORY"]) / "mnemolis.sock"
    starts, rss, ask = [], 0.0, 0.0
    for n in range(runs):
        started = time.perf_counter()
        daemon = subprocess.Popen(
            ["ip", "netns", "exec", NETNS, str(mnemolis), "serve"], env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        try:
            starts.append(wait_ready(sock, started))
            time.sleep(1.0)
            rss = rss_mib(daemon.pid)  # ip netns exec execs: the daemon's own pid
            if n == runs - 1:
                ask, _ = native_seconds([str(mnemolis), "ask", "what time is it"], env, runs)
        finally:
            os.killpg(daemon.pid, signal.SIGTERM)
            daemon.wait(30)
        while health(sock):
            time.sleep(0.1)
    return {"ask_s": ask, "serve_ready_s": statistics.median(starts), "serve_rss_mib": rss}


def compare(
    pi: Chroot, cache: Path, runs: int, native_install: Callable[[Path, Path], Path]
) -> dict[str, Any]:
    root = pi.root
    quoted = " ".join(f'"{s}"' for s in PARSED)
    parse_out = pi.as_pi(f"{AS_SERVICE} parse {quoted}")
    demo_out = pi.as_pi(f'{MNEMOLIS} demo --ask "{DEMO_ASK}"')  # builds the demo ZIM once
    if parse_out.returncode or demo_out.returncode:
        fail(f"parse or demo --ask: {parse_out.stderr}{demo_out.stderr}")
    emulated: dict[str, Any] = {
        "parse_s": emulated_seconds(pi, f"{AS_SERVICE} parse hello", runs)[0],
        "demo_ask_s": emulated_seconds(pi, f'{MNEMOLIS} demo --ask "{DEMO_ASK}"', runs)[0],
        **emulated_daemon(pi, root, runs),
    }
    pi.as_pi("sudo systemctl stop mnemolis")  # the native daemon takes the same ports
    print("pi-check: emulated runs done; installing the same clone natively", flush=True)
    mnemolis = native_install(cache, root / CLONE.lstrip("/"))
    scratch = cache / "native-run"
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(root / "etc" / "mnemolis", scratch / "etc")
    for sub in ("state", "cache", "run", "home"):
        (scratch / sub).mkdir(parents=True, exist_ok=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(scratch / "home"), "LANG": "C.UTF-8",
           "MNEMOLIS_CONFIG": str(scratch / "etc"), "MNEMOLIS_STATE": str(scratch / "state"),
           "MNEMOLIS_CACHE": str(scratch / "cache"), "RUNTIME_DIRECTORY": str(scratch / "run"),
           "MNEMOLIS_WEATHER_CACHE": str(scratch / "cache" / "weather")}  # fmt: skip
    native_parse = native_seconds([str(mnemolis), "parse", *PARSED], env, 1)[1]
    if native_parse != parse_out.stdout:
        fail(f"parse differs:\nemulated {parse_out.stdout}\nnative   {native_parse}")
    demo = [str(mnemolis), "demo", "--ask", DEMO_ASK]
    native_seconds(demo, env, 1)  # the demo ZIM, once
    native: dict[str, Any] = {
        "parse_s": native_seconds([str(mnemolis), "parse", "hello"], env, max(runs, 5))[0],
        "demo_ask_s": native_seconds(demo, env, max(runs, 5))[0],
        **native_daemon(mnemolis, env, runs),
    }
    native_demo = native_seconds(demo, env, 1)[1]
    if _answer(native_demo) != _answer(demo_out.stdout):
        fail(f"demo --ask differs:\nemulated {demo_out.stdout}\nnative   {native_demo}")
    report(emulated, native)
    return {"emulated": emulated, "native": native}


def _answer(out: str) -> str:
    """demo --ask's answer without its timings (which differ by nature)."""
    return re.sub(r"\d+(\.\d+)? ?(ms|s)\b", "<t>", out)


def report(emulated: dict[str, Any], native: dict[str, Any]) -> None:
    rows = [
        ("cold `mnemolis parse hello` (service user)", "parse_s", "s"),
        ("`mnemolis serve`: start to /health answering", "serve_ready_s", "s"),
        ('`mnemolis ask "what time is it"` through the daemon', "ask_s", "s"),
        ('`mnemolis demo --ask "turn on the kitchen light"`', "demo_ask_s", "s"),
        ("daemon RSS (emulated: qemu's own memory included)", "serve_rss_mib", "MiB"),
    ]
    print("| what | emulated arm64 | native x86_64 | ratio |")
    print("|---|---|---|---|")
    for name, key, unit in rows:
        e, n = emulated[key], native[key]
        print(f"| {name} | {e:.2f} {unit} | {n:.2f} {unit} | {e / n:.1f}x |")
