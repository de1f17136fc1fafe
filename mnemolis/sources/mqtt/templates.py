"""The small, safe subset of Home Assistant templates that Mnemolis understands.

Discovery configs describe payloads with Jinja templates. Running Jinja on
data from the network is neither needed nor wise: almost every real config
uses one of two shapes, and those are handled here without evaluating
anything. ``{{ value_json.a.b }}`` / ``{{ value_json['a'] }}`` (filters such
as ``| float`` are ignored) picks a field out of a JSON state; a command
template may only substitute ``{{ value }}``. Anything else is refused, and
the caller logs and skips that part of the config.
"""

from __future__ import annotations

import json
import re
from typing import Any

Path = tuple[str | int, ...]

_VALUE = re.compile(r"\{\{\s*value\s*(\|[^{}]*)?\}\}")
_VALUE_JSON = re.compile(
    r"^\{\{\s*value_json\s*(?P<path>(?:\.[A-Za-z_]\w*|\[[^\]]+\])*)\s*(\|[^{}]*)?\}\}$"
)
_STEP = re.compile(
    r"\.(?P<attr>[A-Za-z_]\w*)|\[\s*(?:'(?P<sq>[^']*)'|\"(?P<dq>[^\"]*)\"|(?P<idx>\d+))\s*\]"
)


class UnsupportedTemplate(ValueError):
    """A template uses more of Jinja than this subset allows."""


def parse_value_template(template: str) -> Path:
    """``{{ value_json.a['b'] | float }}`` -> ("a", "b"); ``{{ value }}`` -> ()."""
    text = template.strip()
    if _VALUE.fullmatch(text):
        return ()
    match = _VALUE_JSON.match(text)
    if not match:
        raise UnsupportedTemplate(f"unsupported value template {template[:80]!r}")
    path: list[str | int] = []
    raw = match.group("path")
    pos = 0
    while pos < len(raw):
        step = _STEP.match(raw, pos)
        if not step:
            raise UnsupportedTemplate(f"unsupported value template {template[:80]!r}")
        if step.group("idx") is not None:
            path.append(int(step.group("idx")))
        else:
            path.append(step.group("attr") or step.group("sq") or step.group("dq") or "")
        pos = step.end()
    return tuple(path)


def check_command_template(template: str) -> str:
    """Return the template when it only substitutes ``{{ value }}``."""
    rest = _VALUE.sub("", template)
    if "{{" in rest or "{%" in rest or "{#" in rest:
        raise UnsupportedTemplate(f"unsupported command template {template[:80]!r}")
    return template


def render_command(template: str, value: str) -> str:
    return _VALUE.sub(lambda _m: value, template)


def extract(payload: str, path: Path) -> Any:
    """The value at ``path`` in a JSON payload; the payload itself for ``()``.

    Raises ValueError when the payload is not JSON or the path is missing.
    """
    if not path:
        return payload
    try:
        node: Any = json.loads(payload)
    except json.JSONDecodeError as exc:
        raise ValueError("the payload is not JSON") from exc
    for step in path:
        in_list = isinstance(step, int) and isinstance(node, list) and 0 <= step < len(node)
        in_object = isinstance(step, str) and isinstance(node, dict) and step in node
        if in_list or in_object:
            node = node[step]
        else:
            raise ValueError(f"the payload has no {'.'.join(str(s) for s in path)}")
    return node
