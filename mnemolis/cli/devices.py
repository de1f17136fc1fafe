"""`mnemolis devices`: the command line of the MQTT source's listing (`sources/mqtt/listing`).

Here, not in the source, so that the listing never imports the command line back.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from mnemolis.cli.subcommand import add_command
from mnemolis.sources.mqtt.listing import collect, format_listing


def add_devices_parser(sub: Any) -> None:
    """Register ``mnemolis devices`` on the CLI's subparsers."""
    p = add_command(
        sub,
        "devices",
        cmd_devices,
        help="list the devices known over MQTT, and the configs that were refused",
        description="Connect to the broker, wait for the retained announcements and states, "
        "and list every device (name, type, area, floor, origin, what it can do, last state "
        "and its age) and every announced config that was refused, with the reason.",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--wait", type=float, default=None, help="seconds to wait for announcements")


def cmd_devices(args: argparse.Namespace) -> int:
    from mnemolis.config import load_config

    config = load_config(args.config)
    listing = asyncio.run(collect(config, args.wait))
    if args.json:
        print(json.dumps(listing, ensure_ascii=False, indent=2))
    else:
        for line in format_listing(listing):
            print(line)
    return 0 if listing["connected"] else 1
