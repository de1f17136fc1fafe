"""Satellites: end of speech to the first audio of the answer on a satellite, and ten
satellites talking at once, each in its own room, over the demo home.

    python bench/voice_net.py [--satellites 10] [--rounds 4] [--recogniser grammar|personalised]

Real wyoming-satellite processes (their own venv, as the tests make it), each with a
microphone playing espeak-ng's "okay nabu, turn off the light" / "... turn on the light"
at real time; the daemon (`mnemolis serve`, a subprocess) hears the wake word itself,
answers, and speaks the answer back. Satellites are put two to an area (the demo home
has five areas with a light). The daemon logs, per request, how long after the end of
speech the first chunk of the answer left for the satellite; the benchmark reads those
lines, checks every answer came back to the satellite that asked and names its own
room's light, and reads the daemon's peak RSS (VmHWM). The recogniser is pocketsphinx
over a grammar of the two requests (bench/voice_net_daemon.py, as in the tests), or the
project's personalised recogniser (``--recogniser personalised``: plain `mnemolis serve`),
which does not yet hear espeak-ng's voice reliably: its turns are timed all the same (a
"Sorry, I didn't catch that" is an answer spoken back too).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support_kiwix import build_test_zims  # noqa: E402
from tests.support_satellite import satellite  # noqa: E402
from tests.support_serve import config_variant, running_daemon, running_home  # noqa: E402
from tests.support_voice import render  # noqa: E402

AREAS = {
    "kitchen": "kitchen light",
    "living room": "living room lamp",
    "bedroom": "bedroom light",
    "porch": "porch light",
    "hallway": "hallway light",
}
LINE = re.compile(
    r"satellite (\S+) heard '(.*)' \(\S+\): (.*) \[first audio (\d+) ms after the end of speech\]"
)
ROUND_S = 15.0  # a round: wake word and request (~3 s), the answer (~2 s), and a pause


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def run(count: int, rounds: int, recogniser: str) -> None:
    with tempfile.TemporaryDirectory() as scratch, ExitStack() as stack:
        folder = Path(scratch)
        off = render("okay nabu, turn off the light", folder / "off.wav", rate=16000, pad_s=0.5)
        on = render("okay nabu, turn on the light", folder / "on.wav", rate=16000, pad_s=0.5)
        sounds: list[str | Path] = []
        for number in range(rounds):
            sounds += [off if number % 2 == 0 else on, f"silence:{ROUND_S - 3}"]
        (folder / "zims").mkdir()
        zims = build_test_zims(folder / "zims")
        home = stack.enter_context(running_home(folder / "home", zims.main))
        names = list(AREAS)
        sats = []
        for n in range(count):
            area = names[n % len(names)]
            sats.append(
                stack.enter_context(satellite(folder / "sats", f"sat{n}", sounds, area=area))
            )
        yaml = "satellites:\n" + "".join(
            f"  - {{name: sat{n}, address: '{s.address}', area: {names[n % len(names)]}}}\n"
            for n, s in enumerate(sats)
        )
        config = config_variant(home, "bench-config", yaml)
        command = [sys.executable, str(ROOT / "bench" / "voice_net_daemon.py")]
        if recogniser == "personalised":
            command = [sys.executable, "-m", "mnemolis"]
        daemon = stack.enter_context(
            running_daemon(
                home,
                ("--no-http", "--no-wyoming", "--no-mqtt-api"),
                ("satellites",),
                config_dir=config,
                command=command,
            )
        )
        for n in range(count):
            daemon.wait_for(rf"satellite sat{n} connected", 0, 60)
        daemon.wait_for(r"voice: recogniser", 0, 60)
        mark = daemon.mark()
        began = time.monotonic()
        for one in sats:  # all at once
            one.start_talking()
        deadline = began + rounds * ROUND_S + 60
        while time.monotonic() < deadline:
            if len(LINE.findall(daemon.output(mark))) >= count * rounds:
                break
            time.sleep(0.5)
        turns = LINE.findall(daemon.output(mark))
        expected = len(turns) // count if turns else 0
        played_by = time.monotonic() + 20  # the last answers are still being played
        while time.monotonic() < played_by and any(len(s.answers()) < expected for s in sats):
            time.sleep(0.2)
        status = Path(f"/proc/{daemon.process.pid}/status").read_text()
        peak = int(re.search(r"VmHWM:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]
        rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]
        played = [len(s.answers()) for s in sats]
    latency = [float(ms) for _name, _heard, _said, ms in turns]
    right = 0
    for name, heard, said, _ms in turns:
        device = AREAS[names[int(name.removeprefix("sat")) % len(names)]]
        right += heard.endswith("the light") and device in said
    print(f"recogniser: {recogniser}")
    print(f"{count} satellites x {rounds} rounds: {len(turns)} of {count * rounds} requests "
          f"answered, {right} in the asking satellite's own room; answers played per "
          f"satellite: {played}")
    if latency:
        print(f"end of speech to first audio back: p50 {statistics.median(latency):.0f} ms, "
              f"p95 {percentile(latency, 95):.0f} ms, max {max(latency):.0f} ms")
    print(f"daemon RSS: {rss:.0f} MB now, {peak:.0f} MB peak")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--satellites", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--recogniser", choices=("grammar", "personalised"), default="grammar")
    options = parser.parse_args()
    run(options.satellites, options.rounds, options.recogniser)
