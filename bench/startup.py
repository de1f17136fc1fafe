"""Issue 25's figures on fresh installs: cold `parse`, the daemon's start and memory, size.

    sudo nice python bench/startup.py [--runs 9] [--against REF] [--voice]

Installs this tree with `pip install .` (no extras, as docs/raspberry-pi.md
does) into a new venv, and with ``--against REF`` the tree of git REF the same
way, then, the two interleaved run by run so that their ratio is measured in
one run on the same machine:

* cold ``mnemolis parse "hello"`` on the demo home (the shipped configuration)
  and on a home of 2,000 devices (the shipped ones copied into numbered rooms,
  "kitchen light 7" in "kitchen 7"): median wall and user+sys CPU seconds;
* ``mnemolis serve`` from exec to every ready line, against Mosquitto and the
  simulated demo home (as `bench/cli.py`), and its RSS a second later, idle;
* the venv's size and its largest packages; with ``--voice``, the size the
  voice extra adds (a third venv with ``.[voice]``).

CPU seconds move less than wall seconds when neighbours load the machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.cli import FLAGS, du_mib, largest_packages
from bench.load import rss_mib
from tests.support_kiwix import build_test_zims
from tests.support_serve import ServeHome, running_daemon, running_home

ROOT = Path(__file__).resolve().parent.parent


def install(source: Path, venv: Path, extras: str = "") -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "pip"), "install", "--quiet", f"{source}{extras}"]
    subprocess.run(pip, check=True, stderr=subprocess.DEVNULL)
    return venv / "bin" / "mnemolis"


def tree_of(ref: str, target: Path) -> Path:
    target.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True
    )
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target


def big_home(config_dir: Path, target: Path, size: int) -> Path:
    """``config_dir`` with its devices copied into numbered rooms up to ``size`` devices."""
    shutil.copytree(config_dir, target)
    path = target / "sources" / "mqtt.yaml"
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    devices: list[dict[str, Any]] = list(data["devices"])
    rooms: list[Any] = list(data.get("rooms") or [])
    shipped = list(devices)
    copy = 1
    while len(devices) < size:
        copy += 1
        for device in shipped:
            if len(devices) >= size:
                break
            new = dict(device, name=f"{device['name']} {copy}")
            if device.get("room"):
                new["room"] = f"{device['room']} {copy}"
                if new["room"] not in rooms:
                    rooms.append(new["room"])
            new["aliases"] = [f"{a} {copy}" for a in device.get("aliases", [])]
            new["topics"] = {k: f"{v}_{copy}" for k, v in device.get("topics", {}).items()}
            new.pop("id", None)
            devices.append(new)
    data["devices"], data["rooms"] = devices, rooms
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return target


def cold(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and user+sys CPU seconds of one run."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if status != 0:
        sys.exit(f"{argv} failed: {process.stderr.read() if process.stderr else ''!r}")
    return wall, usage.ru_utime + usage.ru_stime


def serve_start(home: ServeHome, mnemolis: Path, config: Path) -> tuple[float, float]:
    """Seconds from exec to every ready line, and RSS (MiB) a second later."""
    started = time.perf_counter()
    with running_daemon(
        home, FLAGS, ["http", "mqtt-api"], config_dir=config, command=[str(mnemolis)]
    ) as daemon:
        ready = time.perf_counter() - started
        time.sleep(1.0)
        rss, _ = rss_mib(daemon.process.pid)
    return ready, rss


def med(values: list[float]) -> float:
    return statistics.median(values)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--against", help="a git ref to install and time beside this tree")
    parser.add_argument("--size", type=int, default=2000, help="devices of the big home")
    parser.add_argument("--voice", action="store_true", help="measure the voice extra's size")
    parser.add_argument(
        "--parse-only", action="store_true", help="time the cold parse only, not the daemon"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mnemolis-startup-") as scratch:
        folder = Path(scratch)
        installs = {"this tree": install(ROOT, folder / "venv")}
        if args.against:
            src = tree_of(args.against, folder / "against-src")
            installs[args.against] = install(src, folder / "venv-against")
        sizes = {name: du_mib(path.parent.parent) for name, path in installs.items()}
        biggest = largest_packages(folder / "venv", 8)
        voice = None
        if args.voice:
            voiced = install(ROOT, folder / "venv-voice", "[voice]").parent.parent
            voice = du_mib(voiced) - sizes["this tree"]
        zims = build_test_zims(folder)
        with running_home(folder, zims.main) as home:
            big = big_home(home.config_dir, folder / "big", args.size)
            homes = {"demo home": home.config_dir, f"{args.size:,} devices": big}
            env = {**home.environ(folder / "cli-cache"), "HOME": str(folder)}
            parse: dict[tuple[str, str], list[tuple[float, float]]] = {}
            serve: dict[tuple[str, str], list[tuple[float, float]]] = {}
            for _ in range(args.runs):
                for name, mnemolis in installs.items():
                    for label, config in homes.items():
                        argv = [str(mnemolis), "--config", str(config), "parse", "hello"]
                        parse.setdefault((name, label), []).append(cold(argv, env))
            for _ in range(0 if args.parse_only else max(3, args.runs // 3)):
                for name, mnemolis in installs.items():
                    for label, config in homes.items():
                        serve.setdefault((name, label), []).append(
                            serve_start(home, mnemolis, config)
                        )
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; {args.runs} runs each")
    print("\n| install | home | parse wall s | parse CPU s | serve ready s | serve RSS MiB |")
    print("|---|---|---|---|---|---|")
    for key, runs in parse.items():
        starts = serve.get(key) or [(float("nan"), float("nan"))]
        print(f"| {key[0]} | {key[1]} | {med([w for w, _ in runs]):.2f} | "
              f"{med([c for _, c in runs]):.2f} | {med([r for r, _ in starts]):.2f} | "
              f"{med([m for _, m in starts]):.0f} |")  # fmt: skip
    for name, mib in sizes.items():
        print(f"\ninstall ({name}) without extras: {mib:.0f} MiB")
    print("largest packages: " + ", ".join(f"{n} {m:.0f} MiB" for n, m in biggest))
    if voice is not None:
        print(f"the voice extra adds {voice:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
