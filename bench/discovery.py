"""Benchmark discovery at start: thousands of retained configs on the broker, then Mnemolis.

The configs are the corpus's real ones (tests/data/discovery/), copied with
their own topics, names and unique ids (``bench/<n>/...``) until there are
``--configs`` of them, and retained on a Mosquitto this script starts. A
fresh child process then loads the config, builds an Understander on the
registry (as the daemon does: its name index follows every change), starts
the MQTT source and waits until every config is read: it reports the time to
ready, the devices known and its resident memory before and after.

    .venv/bin/python bench/discovery.py [--configs 2000] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import dataclasses
import itertools
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mnemolis.demo.mosquitto import Mosquitto  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "discovery"
CONSONANTS = "bdfgklmnprstvz"
VOWELS = "aeiou"


def corpus_entries() -> list[dict[str, Any]]:
    """Every corpus config that becomes a device (the skipped ones are left out)."""
    entries = []
    for path in sorted(CORPUS.glob("*.json")):
        for entry in json.loads(path.read_text(encoding="utf-8"))["devices"]:
            if entry["devices"]:
                entries.append(entry)
    return entries


def words() -> list[str]:
    """Pronounceable, meaningless words ("bado", "kesu"): names no intent phrase uses."""
    return [
        a + b + c + d for a, b, c, d in itertools.product(CONSONANTS, VOWELS, CONSONANTS, VOWELS)
    ]


def _retopic(value: Any, prefix: str) -> Any:
    """Every topic of a config under its own prefix (``~``-relative ones stay relative)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            topical = key in ("~", "topic", "t") or key.endswith(("_topic", "_t"))
            if topical and isinstance(item, str) and not item.startswith("~"):
                out[key] = prefix + item
            else:
                out[key] = _retopic(item, prefix)
        return out
    if isinstance(value, list):
        return [_retopic(v, prefix) for v in value]
    return value


def copies(count: int) -> list[tuple[str, bytes, int]]:
    """``count`` discovery configs: (topic, payload, devices it announces)."""
    entries = corpus_entries()
    names = words()
    out = []
    for n in range(count):
        entry = entries[n % len(entries)]
        config = _retopic(copy.deepcopy(entry["config"]), f"bench/{n}/")
        word = names[n % len(names)] + ("" if n < len(names) else f" {n // len(names)}")
        for key in ("name", "device", "dev"):
            if isinstance(config.get(key), str):
                config[key] = f"{word} {config[key]}"
            elif isinstance(config.get(key), dict) and isinstance(config[key].get("name"), str):
                config[key]["name"] = f"{word} {config[key]['name']}"
        if not any(isinstance(config.get(k), str) for k in ("name",)) and not any(
            isinstance(config.get(k), dict) and config[k].get("name") for k in ("device", "dev")
        ):
            config["name"] = word
        for key in ("unique_id", "uniq_id"):
            if isinstance(config.get(key), str):
                config[key] = f"{config[key]}_{n}"
        for part in (config.get("cmps") or config.get("components") or {}).values():
            for key in ("unique_id", "uniq_id"):
                if isinstance(part.get(key), str):
                    part[key] = f"{part[key]}_{n}"
        for key in ("device", "dev"):
            dev = config.get(key)
            if isinstance(dev, dict):
                for ids in ("identifiers", "ids"):
                    if ids in dev:
                        dev[ids] = [f"bench{n}"]
                dev.pop("connections", None)
                dev.pop("cns", None)
        parts = entry["topic"].split("/")
        topic = "/".join([parts[0], parts[1], f"bench{n}", parts[-2], "config"])
        out.append((topic, json.dumps(config).encode(), len(entry["devices"])))
    return out


async def child(url: str, expected: int) -> dict[str, Any]:
    """In the fresh process: start, wait until every config is known, measure."""
    from mnemolis.config import load_config
    from mnemolis.sources.mqtt.settings import load_mqtt_settings
    from mnemolis.sources.mqtt.source import MqttSource
    from mnemolis.understand import Understander, registry_from_config

    config = dataclasses.replace(load_config(ROOT), devices=[])
    registry = registry_from_config(config)
    Understander(config, registry)  # its name index follows the registry, as in the daemon
    before = rss_mb()
    settings = load_mqtt_settings(config, env={"MNEMOLIS_MQTT_URL": url})
    limits = dataclasses.replace(settings.limits, devices=10**6)
    settings = dataclasses.replace(settings, limits=limits)
    source = MqttSource(config, registry, settings)
    t0 = time.perf_counter()
    await source.start()
    report = await source.wait_for_devices(300.0)
    while len(registry.devices()) < expected and time.perf_counter() - t0 < 300:
        await asyncio.sleep(0.01)  # a flush still running
    ready = (time.perf_counter() - t0) * 1000
    after = rss_mb()
    known = len(registry.devices())
    refused = len(source.refusals())
    await source.close()
    return {
        "ready_ms": ready,
        "devices": known,
        "refused": refused,
        "complete": report.complete,
        "rss_before_mb": before,
        "rss_after_mb": after,
        "peak_mb": peak_mb(),
    }


def rss_mb() -> float:
    return _status("VmRSS")


def peak_mb() -> float:
    return _status("VmHWM")


def _status(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run(configs: int, runs: int) -> list[dict[str, Any]]:
    made = copies(configs)
    expected = sum(n for _t, _p, n in made)
    results = []
    with Mosquitto() as broker:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
        client.connect(broker.host, broker.port)
        client.loop_start()
        infos = [client.publish(t, p, qos=1, retain=True) for t, p, _n in made]
        for info in infos:
            info.wait_for_publish(30)
        client.disconnect()
        client.loop_stop()
        for _ in range(runs):
            out = subprocess.run(
                [sys.executable, __file__, "--child", broker.url, "--expected", str(expected)],
                capture_output=True,
                text=True,
                check=True,
            )
            results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    for result in results:
        result["configs"], result["expected"] = configs, expected
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--expected", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(child(args.child, args.expected))))
        return
    for configs in sorted({20, args.configs}):
        results = run(configs, args.runs)
        ready = statistics.median(r["ready_ms"] for r in results)
        each = ", ".join(f"{r['ready_ms']:.0f}" for r in results)
        last = results[-1]
        print(
            f"{configs} retained configs -> {last['devices']} devices "
            f"(expected {last['expected']}, refused {last['refused']}): ready in "
            f"{ready:.0f} ms (median of {len(results)}, runs "
            f"{each}); RSS "
            f"{last['rss_before_mb']:.0f} MB before start, {last['rss_after_mb']:.0f} MB after, "
            f"peak {last['peak_mb']:.0f} MB"
        )


if __name__ == "__main__":
    main()
