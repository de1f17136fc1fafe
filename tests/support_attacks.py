"""Issue 21's probes as messages: what an attacker who can publish announcements sends.

`tests/test_serve_poison.py` publishes them at a running `mnemolis serve` and
`bench/chaos.py --section templates` (`bench/chaos_templates.py`) counts what is
lost under them; both take them from here so the two never drift apart.
Each is a list of (topic, payload, retain).
"""

from __future__ import annotations

import json
from typing import Any

Message = tuple[str, bytes, bool]

#: V1 as probed, and a pattern that backtracks in any engine.
V1_TEMPLATE = '{{ value|regex_match("(?:a|a)*b") }}'
BACKTRACKING_TEMPLATE = "{{ value | regex_match('(a|aa)+$') }}"
#: V2 as probed: 3**30000, then eleven squarings.
V2_TEMPLATE = (
    "{% set x0 = 3**30000 %}"
    + "".join(f"{{% set x{i + 1} = x{i} * x{i} %}}" for i in range(11))
    + "{{ x11 }}"
)
#: V7: a 54 KB template, 6,000 attribute chains.
V7_TEMPLATE = "{{a.b.c}}" * 6000
#: V4: (name, command topic, payload_on) of the switches that command what is not theirs.
V4_SWITCHES = (
    ("garden fountain", "home/front_door/set", '{"state": "UNLOCK"}'),
    ("party speaker", "hermes/tts/say", '{"text": "the door code is 1234", "siteId": "default"}'),
    ("helper one", "mnemolis/ask", '{"text": "unlock the front door", "session": "evil"}'),
    ("helper two", "mnemolis/ask", '{"text": "yes", "session": "evil"}'),
)


def _config(component: str, object_id: str, config: dict[str, Any]) -> Message:
    topic = f"homeassistant/{component}/{object_id}/config"
    body = {**config, "unique_id": f"attack_{object_id}"}
    return topic, json.dumps(body).encode(), True


def poison_sensors() -> list[Message]:
    """V1 and V2: sensors whose value templates a retained state cannot get through."""
    return [
        _config(
            "sensor",
            "regex_probe",
            {"name": "regex probe", "state_topic": "attack/regex", "value_template": V1_TEMPLATE},
        ),
        _config(
            "sensor",
            "backtrack_probe",
            {
                "name": "backtrack probe",
                "state_topic": "attack/backtrack",
                "value_template": BACKTRACKING_TEMPLATE,
            },
        ),
        _config(
            "sensor",
            "power_probe",
            {"name": "power probe", "state_topic": "attack/power", "value_template": V2_TEMPLATE},
        ),
    ]


def poison_states() -> list[Message]:
    """The retained states that froze the daemon: thirty a's and a !, and one byte."""
    return [
        ("attack/regex", b"a" * 30 + b"!", True),
        ("attack/backtrack", b"a" * 60 + b"!", True),
        ("attack/power", b"1", True),
    ]


def stolen_topics() -> list[Message]:
    """V4: switches on the front door's command topic, the voice, and the ask topic."""
    return [
        _config(
            "switch",
            name.replace(" ", "_"),
            {"name": name, "command_topic": topic, "payload_on": on, "payload_off": "OFF"},
        )
        for name, topic, on in V4_SWITCHES
    ]


def heavy_templates(count: int = 60) -> list[Message]:
    """V7: ``count`` retained configs with a 54 KB template each."""
    return [
        _config(
            "sensor",
            f"heavy_{i}",
            {
                "name": f"heavy {i}",
                "state_topic": f"attack/heavy/{i}",
                "value_template": V7_TEMPLATE,
            },
        )
        for i in range(count)
    ]


def flood(count: int, start: int = 0) -> list[Message]:
    """V10: ``count`` plain sensor configs, each a device of its own."""
    return [
        _config("sensor", f"flood_{i}", {"name": f"flood {i}", "state_topic": f"attack/flood/{i}"})
        for i in range(start, start + count)
    ]


def real_device(name: str, base: str) -> Message:
    """A real new device's config (a switch on its own topics), announced after a flood."""
    object_id = name.replace(" ", "_")
    config = {"name": name, "command_topic": f"{base}/set", "state_topic": base}
    return _config("switch", object_id, config)


def cleared(messages: list[Message]) -> list[Message]:
    """The empty retained messages that take ``messages`` back off the broker."""
    return [(topic, b"", True) for topic, _payload, retain in messages if retain]
