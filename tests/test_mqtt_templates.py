"""Home Assistant templates with Jinja2: what real configs render, what is refused, the bounds.

The templates are the ones discovery payloads carry (Tasmota, zigbee2mqtt,
ESPHome, Home Assistant's own docs). A template from the network can
neither crash a render nor run past its bound: hypothesis writes thousands.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemolis.sources.mqtt import template_budget
from mnemolis.sources.mqtt.templates import ENGINE, Bounds, TemplateEngine, TemplateError

VALUES = [
    # Tasmota (xdrv_12_home_assistant.ino): the first three channels of Color
    ("{{value_json.Color.split(',')[0:3]|join(',')}}", '{"Color":"255,128,0,0,0"}', "255,128,0"),
    ("{{value_json.POWER}}", '{"POWER":"ON","Dimmer":45}', "ON"),
    ("{{value_json['ENERGY']['Power']}}", '{"ENERGY":{"Power":12.5}}', "12.5"),
    # zigbee2mqtt climate action, with {% set %}
    (
        "{% set values = {None:None,'idle':'idle','heat':'heating','cool':'cooling',"
        "'fan_only':'fan'} %}{{ values[value_json.running_state] }}",
        '{"running_state":"heat"}',
        "heating",
    ),
    # zigbee2mqtt fan percentage from a mode, with a default for an unknown key
    (
        "{{ {'off':0, 'low':1, 'medium':2, 'high':3, 'on':4}[value_json.fan_mode] | default('None') }}",
        '{"fan_mode":"medium"}',
        "2",
    ),
    (
        "{{ {'off':0, 'low':1, 'medium':2, 'high':3, 'on':4}[value_json.fan_mode] | default('None') }}",
        '{"fan_mode":"smart"}',
        "None",
    ),
    # zigbee2mqtt cover moving state, with its leading and trailing spaces stripped
    (
        '{% if "moving" in value_json and value_json.moving %} {{ value_json.moving }} '
        "{% else %} STOP {% endif %}",
        '{"moving":"UP"}',
        "UP",
    ),
    ("{{ value_json.log_level | lower }}", '{"log_level":"INFO"}', "info"),
    ("{{ value_json.temperature | float | round(1) }}", '{"temperature":"21.456"}', "21.5"),
    ("{{ value_json.temperature | round(0) }}", '{"temperature":21.6}', "22"),
    ("{{ value | int(0) * 2 }}", "21", "42"),
    ("{{ value | float(0) }}", "oops", "0"),
    ("{{ iif(value_json.occupancy, 'ON', 'OFF') }}", '{"occupancy":true}', "ON"),
    ("{{ value_json.occupancy | iif('ON', 'OFF') }}", '{"occupancy":false}', "OFF"),
    ("{{ value_json.occupancy }}", '{"occupancy":true}', "True"),
    ("{{ value_json.missing }}", '{"x":1}', ""),
    ("{{ value_json.a is defined }}", '{"a":1}', "True"),
    ("{{ (value_json.rgb | from_json)[1] }}", '{"rgb":"[1, 2, 3]"}', "2"),
    ("{{ value_json.rgb | join(',') }}", '{"rgb":[255,0,0]}', "255,0,0"),
    ("{{ value_json | to_json }}", '{"a": 1, "b": "é"}', '{"a":1,"b":"é"}'),
    ("{{ value | regex_replace('[^0-9.]', '') }}", "21.5 °C", "21.5"),
    ("{{ value | regex_search('^ON') }}", "ON now", "True"),
    ("{{ value | regex_findall_index('(\\\\d+)', 1) }}", "a1b22", "22"),
    ("{{ max(1, 5, 3) }}-{{ min([4, 2]) }}", "", "5-2"),
    ("{{ value_json.v | is_number }}", '{"v":"3.5"}', "True"),
    ("{{ (value_json.ts | timestamp_custom('%Y', false)) }}", '{"ts":0}', "1970"),
    ("{{ value | bitwise_and(8) > 0 }}", "12", "True"),
    ("ON", "anything", "ON"),  # a text without {{ }} is its own value, as Home Assistant has it
    ("{% for i in range(3) %}{{ i }}{% endfor %}", "", "012"),
    (
        "{% set ns = namespace(t=0) %}{% for v in value_json %}{% set ns.t = ns.t + v %}"
        "{% endfor %}{{ ns.t }}",
        "[1, 2, 3]",
        "6",
    ),
]


@pytest.mark.parametrize(("template", "payload", "expected"), VALUES)
def test_value_templates(template: str, payload: str, expected: str) -> None:
    assert ENGINE.render_value(template, payload) == expected


COMMANDS = [
    ('{"state": "{{ value }}"}', "LOCK", {}, '{"state": "LOCK"}'),
    ('{ "position": {{ position }} }', 50, {"position": 50}, '{ "position": 50 }'),
    ("{{ value }}", 21.0, {}, "21.0"),
    (
        "{% set values = { 'auto':'schedule','heat':'manual','off':'pause'} %}"
        '{"operating_mode": "{{ values[value] if value in values.keys() else \'pause\' }}"}',
        "heat",
        {},
        '{"operating_mode": "manual"}',
    ),
    (
        "{{ {0:'off', 1:'low', 2:'medium', 3:'high', 4:'on'}[value] | default('') }}",
        2,
        {},
        "medium",
    ),
    (
        "{{ '%02X%02X%02X' | format(red, green, blue) }}",
        "255,0,0",
        {"red": 255, "green": 0, "blue": 0},
        "FF0000",
    ),
    (
        "on,{{ brightness|d }},{{ red|d }}-{{ green|d }}-{{ blue|d }}",
        None,
        {"brightness": 128, "red": 255, "green": 0, "blue": 0},
        "on,128,255-0-0",
    ),
]


@pytest.mark.parametrize(("template", "value", "variables", "expected"), COMMANDS)
def test_command_templates(
    template: str, value: Any, variables: dict[str, Any], expected: str
) -> None:
    assert ENGINE.render_command(template, value, variables) == expected


def test_a_rendered_bytes_literal_is_sent_as_bytes() -> None:
    assert ENGINE.render_command("{{ value }}", "b'\\x01\\x02'") == b"\x01\x02"
    assert ENGINE.render_command(None, 5) == 5  # no template: the value itself


REFUSED = [
    ("{% if %}{% endif %}", "does not compile"),
    ("{{ states('sensor.outside') }}", "needs Home Assistant's own states"),
    ("{{ is_state('light.x', 'on') }}", "needs Home Assistant's own states"),
    ("{% set __x = 1 %}{{ __x }}", "not allowed"),
    ("{{ value | nosuchfilter }}", "does not compile"),
]


@pytest.mark.parametrize(("template", "reason"), REFUSED)
def test_templates_refused_at_compile(template: str, reason: str) -> None:
    with pytest.raises(TemplateError) as caught:
        ENGINE.compile(template)
    assert reason in str(caught.value)


BOUNDED = [
    ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", "took"),
    ("{{ 'x' * 100000000 }}", "characters"),
    (
        "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}"
        "{% endfor %}{{ ns.s | length }}",
        "characters",
    ),
    ("{{ 'a' | replace('', 'x' * 60000) }}", "characters"),
    ("{{ range(100000) | join('x' * 1000) }}", "characters"),
    ("{{ range(100000) | map('string') | join('x' * 1000) }}", "characters|took"),
    ("{{ '%999999d' % 1 }}", "format"),
    ("{{ '{:99999999}'.format(1) }}", "format"),
    ("{{ 'x'.center(1000000000) }}", "wider"),
    ("{{ 99 ** 99999999 }}", "integer"),
    ("{{ ('a' * 60 ~ '!') | regex_match('(a|aa)+$') }}", "ran out of time"),
    ("{% set x = 3 ** 30000 %}{{ x }}", "integer"),
    ("{% set x = 3 ** 2000 %}{% set x = x * x %}{% set x = x * x %}{{ x }}", "integer"),
    ("{{ ('f' * 4000) | int(base=16) }}", "integer"),
    ("{{ (2).to_bytes(100000000, 'big') }}", "characters"),
    ("{{ 'x'.encode().center(100000000) }}", "wider"),
    ("{{ {'a': [1]} | tojson(indent=10000000) }}", "wider"),
    ("{{ '{:>{}}'.format('x', 100000000) }}", "format"),
    ("{{ '%*d' % (100000000, 1) }}", "format"),
    ("{% macro f(n) %}{{ f(n) }}{{ f(n) }}{% endmacro %}{{ f(1) }}", "room"),
    ("{{ ().__class__.__mro__ }}", ""),
    ("{{ value_json.a.b.c }}", "UndefinedError"),
]


@pytest.mark.parametrize(("template", "reason"), BOUNDED)
def test_renders_are_bounded(template: str, reason: str) -> None:
    try:
        rendered = ENGINE.render_value(template, '{"b": 1}')
    except TemplateError as exc:
        assert any(r in str(exc) for r in reason.split("|")), exc  # steps and time both bound
    else:
        assert reason == "" and len(rendered) <= ENGINE.bounds.output_chars


def test_the_clock_stops_a_render_the_steps_would_not(monkeypatch: pytest.MonkeyPatch) -> None:
    """The time bound, on a clock that moves 10 ms at every look: no wall clock asserted."""
    now = iter(range(10**9))
    monkeypatch.setattr(template_budget.time, "perf_counter", lambda: next(now) * 0.01)
    patient = TemplateEngine(Bounds(steps=10**9, seconds=0.05))
    with pytest.raises(TemplateError, match="longer than 50 ms"):
        patient.render_value("{% for i in range(100000) %}{% endfor %}", "")
    # a short render looks at the clock once, when it starts: the clock never decides it
    assert patient.render_value("{{ value }}", "ok") == "ok"


def test_the_bounds_are_configurable() -> None:
    tight = TemplateEngine(Bounds(steps=50, seconds=1.0, output_chars=10))
    with pytest.raises(TemplateError, match="steps"):
        tight.render_value("{% for i in range(100) %}{% endfor %}", "")
    with pytest.raises(TemplateError, match="characters"):
        tight.render_value("{{ 'x' * 11 }}", "")
    assert tight.render_value("{{ 'x' * 10 }}", "") == "x" * 10


# --------------------------------------------------------------------------- fuzzing

FILTERS = [
    "float",
    "int",
    "round(1)",
    "lower",
    "upper",
    "default('d')",
    "string",
    "length",
    "is_defined",
    "from_json",
    "to_json",
    "abs",
    "first",
    "last",
    "join(',')",
    "list",
    "float(0)",
    "int(0)",
    "iif('a', 'b')",
    "regex_replace('a', 'b')",
    "replace('a', 'bb')",
    "multiply(2)",
    "trim",
    "reverse",
    "unique | list",
    "sum",
    "sort",
]
ATOMS = [
    "value",
    "value_json",
    "value_json.a",
    "value_json['b']",
    "value_json.a.b",
    "1",
    "2.5",
    "'text'",
    "[1, 2, 3]",
    "{'k': 1}",
    "none",
    "true",
    "range(10)",
]


@st.composite
def expressions(draw: Any, depth: int = 0) -> str:
    atom = draw(st.sampled_from(ATOMS))
    for name in draw(st.lists(st.sampled_from(FILTERS), max_size=3)):
        atom = f"{atom} | {name}"
    if depth < 2 and draw(st.booleans()):
        other = draw(expressions(depth + 1))
        op = draw(st.sampled_from(["~", "+", "*", "==", "and", "in", "%"]))
        atom = f"({atom}) {op} ({other})"
    return atom


@st.composite
def templates(draw: Any) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["expr", "text", "if", "for", "set"]))
        expr = draw(expressions())
        if kind == "expr":
            parts.append("{{ " + expr + " }}")
        elif kind == "text":
            parts.append(draw(st.text(max_size=10)))
        elif kind == "if":
            parts.append("{% if " + expr + " %}y{% else %}n{% endif %}")
        elif kind == "for":
            parts.append("{% for x in " + expr + " %}{{ x }}{% endfor %}")
        else:
            parts.append("{% set v = " + expr + " %}{{ v }}")
    return "".join(parts)


PAYLOADS = st.one_of(
    st.text(max_size=40),
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False)
        | st.text(max_size=8),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.sampled_from(["a", "b", "c"]), children, max_size=3)
        ),
        max_leaves=10,
    ).map(json.dumps),
)


#: The fuzzed renders are bounded by steps and size only, so that what they do never
#: depends on how busy the machine is (the clock bound has its own test above).
STEPPED = TemplateEngine(Bounds(seconds=float("inf")))


def _bounded(template: str, payload: str) -> None:
    try:
        rendered = STEPPED.render_value(template, payload)
    except TemplateError:
        pass
    else:
        assert isinstance(rendered, str)
        assert len(rendered) <= STEPPED.bounds.output_chars


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(templates(), PAYLOADS)
def test_generated_templates_never_crash_nor_overrun(template: str, payload: str) -> None:
    _bounded(template, payload)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="{}%#|.[]()'\"~+*-=<>!,:abcvxyz_01 ", max_size=60), PAYLOADS)
def test_arbitrary_text_never_crashes(template: str, payload: str) -> None:
    _bounded(template, payload)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_arbitrary_command_values_render_or_refuse(value: str) -> None:
    rendered = ENGINE.render_command('{"state": "{{ value }}"}', value)
    assert isinstance(rendered, str | bytes)
