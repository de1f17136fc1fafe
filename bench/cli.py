"""The CLI's start-up, with and without a running daemon, and the install's footprint.

Starts a Mosquitto, the simulated default home, the replayed Open-Meteo
server and a test ZIM on free loopback ports, then a `mnemolis serve` of
that home, and times cold runs of

* ``mnemolis --help``;
* ``mnemolis ask "what time is it"`` through the running daemon (its socket);
* the same ``ask --local``: in-process, as with no daemon running;

with hyperfine when it is on PATH (``apt-get install hyperfine``), else with
a loop of its own; medians and the spread, the machine being shared. With
``--footprint`` it first installs Mnemolis without its dev extras into a
fresh virtual environment, as docs/raspberry-pi.md's steps do, reports its size and
largest packages, and times that install instead; in both cases the
daemon's start-up (to every ready line) and resident memory are measured.

    .venv/bin/python bench/cli.py [--runs 20] [--footprint]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load import rss_mib
from tests.support_kiwix import build_test_zims
from tests.support_serve import ServeHome, running_daemon, running_home

ROOT = Path(__file__).resolve().parent.parent
FLAGS = ["--http", "127.0.0.1:0", "--no-wyoming", "--mqtt-api", "--no-hermes"]


def install_without_dev(target: Path) -> Path:
    """A fresh venv with `pip install .` (no dev extras); its `mnemolis`."""
    subprocess.run([sys.executable, "-m", "venv", str(target)], check=True)
    pip = target / "bin" / "pip"
    subprocess.run([str(pip), "install", "--quiet", str(ROOT)], check=True)
    return target / "bin" / "mnemolis"


def du_mib(path: Path) -> float:
    total = sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())
    return total / (1 << 20)


def largest_packages(venv: Path, count: int = 6) -> list[tuple[str, float]]:
    (site,) = venv.glob("lib/python*/site-packages")
    sizes = [(p.name, du_mib(p)) for p in site.iterdir() if p.is_dir()]
    return sorted(sizes, key=lambda s: -s[1])[:count]


def time_runs(command: list[str], env: dict[str, str], runs: int) -> tuple[float, float, float]:
    """Median, fastest and slowest wall time of ``command``, in seconds."""
    hyperfine = shutil.which("hyperfine")
    if hyperfine is not None:
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            quoted = " ".join(f"'{c}'" for c in command)
            subprocess.run(
                [hyperfine, "--warmup", "2", "--runs", str(runs), "--export-json", out.name,
                 "--shell", "none", "--ignore-failure", quoted],
                check=True, env=env, capture_output=True,
            )  # fmt: skip
            result = json.loads(Path(out.name).read_text())["results"][0]
            return result["median"], result["min"], result["max"]
    times = []
    for _ in range(runs + 2):
        started = time.perf_counter()
        subprocess.run(command, env=env, capture_output=True)
        times.append(time.perf_counter() - started)
    times = times[2:]
    return statistics.median(times), min(times), max(times)


def start_up(home: ServeHome, mnemolis: Path) -> tuple[float, float, float]:
    """Seconds from exec to every ready line, and the daemon's RSS (MiB) idle and peak."""
    started = time.perf_counter()
    with running_daemon(home, FLAGS, ["http", "mqtt-api"], command=[str(mnemolis)]) as daemon:
        ready = time.perf_counter() - started
        time.sleep(1.0)
        rss, peak = rss_mib(daemon.process.pid)
    return ready, rss, peak


def measure(home: ServeHome, mnemolis: Path, runs: int) -> list[tuple[str, float, float, float]]:
    rows: list[tuple[str, float, float, float]] = []
    with running_daemon(home, FLAGS, ["http", "mqtt-api"], command=[str(mnemolis)]) as daemon:
        env = dict(daemon.environ)
        config = ["--config", str(home.config_dir)]
        rows.append(("mnemolis --help", *time_runs([str(mnemolis), "--help"], env, runs)))
        ask = [str(mnemolis), *config, "ask", "what time is it"]
        rows.append(('ask "what time is it", daemon running', *time_runs(ask, env, runs)))
    local = [str(mnemolis), *config, "ask", "--local", "what time is it"]
    rows.append(('ask "what time is it", no daemon (in-process)', *time_runs(local, env, runs)))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--footprint", action="store_true", help="measure a fresh install")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mnemolis-cli-") as scratch:
        folder = Path(scratch)
        mnemolis = ROOT / ".venv" / "bin" / "mnemolis"
        if args.footprint:
            venv = folder / "venv"
            mnemolis = install_without_dev(venv)
            size, biggest = du_mib(venv), largest_packages(venv)
        zims = build_test_zims(folder)
        with running_home(folder, zims.main) as home:
            rows = measure(home, mnemolis, args.runs)
            ready, rss, peak = start_up(home, mnemolis)
    print(f"install: {mnemolis.parent.parent}")
    print("| command | median s | fastest s | slowest s |")
    print("|---|---|---|---|")
    for name, median, fastest, slowest in rows:
        print(f"| {name} | {median:.3f} | {fastest:.3f} | {slowest:.3f} |")
    print(f"\nmnemolis serve: ready in {ready:.2f} s; RSS {rss:.0f} MiB idle, peak {peak:.0f} MiB")
    if args.footprint:
        print(f"install without dev extras: {size:.0f} MiB; largest packages:")
        print(", ".join(f"{name} {mib:.0f} MiB" for name, mib in biggest))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
