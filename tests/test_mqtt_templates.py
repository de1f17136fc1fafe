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
from mnemolis.sources.mqtt.template_faults import TIME_STRIKES
from mnemolis.sources.mqtt.templates import (
    ENGINE,
    BoundBroken,
    Bounds,
    TemplateDisabled,
    TemplateEngine,
    TemplateError,
)

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


# --------------------------------------------------------------------------- issue 21: V1, V2, V7

#: V1 as probed, and a pattern that backtracks in any engine.
V1 = '{{ value|regex_match("(?:a|a)*b") }}'
BACKTRACKS = "{{ value|regex_match('(a|aa)+$') }}"
#: V2 as probed: 3**30000, then eleven squarings.
V2 = "{% set x0 = 3**30000 %}" + "".join(
    f"{{% set x{i + 1} = x{i} * x{i} %}}" for i in range(11)
) + "{{ x11 % 10 }}"


def test_v1_the_probed_pattern_is_answered_and_a_backtracking_one_stops_at_its_bound() -> None:
    engine = TemplateEngine()
    assert engine.render_value(V1, "a" * 30 + "!") == "False"
    assert engine.render_value(V1, "a" * 30 + "b") == "True"
    with pytest.raises(BoundBroken, match="ran out of time") as caught:
        engine.render_value(BACKTRACKS, "a" * 60 + "!")
    assert caught.value.kind == "time"
    assert engine.render_value(BACKTRACKS, "aaaa") == "True"  # the same pattern, a fair text


def test_v2_big_integers_are_refused_before_they_are_computed() -> None:
    with pytest.raises(BoundBroken, match="integer over 4096 bits") as caught:
        TemplateEngine().render_value(V2, "1")
    assert caught.value.kind == "integer"
    doubling = "{% set x = 3 ** 1200 %}{% set x = x * x %}{% set x = x * x %}{{ x }}"
    with pytest.raises(BoundBroken, match="integer"):
        TemplateEngine().render_value(doubling, "")
    # 64-bit arithmetic, the kind devices need, is far inside the bound
    assert ENGINE.render_value("{{ (value | int) * 2 ** 32 }}", "3") == str(3 * 2**32)


def test_a_template_that_breaks_a_bound_is_disabled_for_that_device_only() -> None:
    engine = TemplateEngine()
    owner = ("ha_poison", "value_template")
    with pytest.raises(TemplateDisabled, match=r"value_template disabled: .*integer"):
        engine.render_value(V2, "1", owner=owner)
    # disabled at once: a step bound breaks the same way on every message
    with pytest.raises(TemplateDisabled):
        engine.render_value(V2, "anything", owner=owner)
    assert engine.faults.of("ha_poison") == {
        "value_template": "value_template disabled: the template would make an integer over 4096 bits"
    }
    # another device with the same text is judged on its own messages
    assert engine.faults.of("ha_other") == {}
    # rediscovered with another template, the device starts afresh
    assert engine.render_value("{{ value }}", "ok", owner=owner) == "ok"


def test_a_time_out_disables_only_at_the_third_strike() -> None:
    """The clock may be the machine's fault: a template that ran out of time once runs
    again; the third time-out in a row disables it."""
    engine = TemplateEngine()
    owner = ("ha_slow", "value_template")
    for _ in range(TIME_STRIKES - 1):
        with pytest.raises(BoundBroken, match="ran out of time"):
            engine.render_value(BACKTRACKS, "a" * 60 + "!", owner=owner)
    assert engine.faults.of("ha_slow") == {}
    with pytest.raises(TemplateDisabled, match="ran out of time"):
        engine.render_value(BACKTRACKS, "a" * 60 + "!", owner=owner)
    with pytest.raises(TemplateDisabled):
        engine.render_value(BACKTRACKS, "aaaa", owner=owner)  # no longer run at all


@pytest.mark.parametrize(
    ("template", "reason"),
    [
        ("{{a.b.c}}" * 6000, "longer than 16384 characters"),  # V7's 54 KB template
        ("{{a.b.c}}" * 300, "more than 2000 tokens"),
        ("{{ x" + "+x" * 600 + " }}", "more than 1000 parts"),
        ("{{ " + "9" * 1300 + " }}", "integer of more than 4096 bits"),
        ("{{ " + "9" * 5000 + " }}", "does not compile"),
    ],
)
def test_v7_compilation_is_bounded_in_size(template: str, reason: str) -> None:
    with pytest.raises(TemplateError, match=reason):
        TemplateEngine().compile(template)


def test_compiled_templates_are_kept_by_weight_least_recently_used_out_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine = TemplateEngine(cache_nodes=200)
    big = ["{{ [" + ",".join(str(i + n) for n in range(40)) + "] }}" for i in range(10)]
    for source in big:
        engine.compile(source)
    assert engine.cache.held <= 200 and len(engine.cache) < len(big)
    engine.compile(big[-2])  # used again: the latest stay
    compiles: list[str] = []
    original = engine._compile
    monkeypatch.setattr(engine, "_compile", lambda s: compiles.append(s) or original(s))
    engine.compile(big[-1])
    engine.compile(big[-2])
    assert compiles == []  # still cached
    engine.compile(big[0])
    assert compiles == [big[0]]  # it had gone
    # a refusal is remembered too: a retained poison config is not compiled again
    for _ in range(3):
        with pytest.raises(TemplateError):
            engine.compile("{{a.b.c}}" * 300)
    assert compiles.count("{{a.b.c}}" * 300) == 1


# --------------------------------------------------------------------------- fuzzing the bounds

REGEX_PIECES = ["a", "b", ".", "a|aa", "(a|a)", "(?:a|b)", "\\d", "[ab]", "a+", "(a+)+", "(a*)*"]
REPEATS = ["", "*", "+", "?", "{2,}", "{1,3}"]


@st.composite
def patterns(draw: Any) -> str:
    pieces = draw(st.lists(st.sampled_from(REGEX_PIECES), min_size=1, max_size=4))
    body = "".join(f"({p}){draw(st.sampled_from(REPEATS))}" for p in pieces)
    return body + draw(st.sampled_from(["", "$", "b", "!"]))


@settings(max_examples=200, deadline=None)
@given(patterns(), st.text(alphabet="ab!1", max_size=80), st.sampled_from(["match", "search"]))
def test_any_regex_on_any_text_ends_within_its_bound(pattern: str, text: str, test: str) -> None:
    template = "{{ value | regex_" + test + "(" + repr(pattern) + ") }}"
    try:
        rendered = STEPPED.render_value(template, text)
    except BoundBroken as exc:
        assert exc.kind == "time"
    except TemplateError as exc:
        assert "does not compile" in str(exc) or "ValueError" in str(exc), exc
    else:
        assert rendered in ("True", "False")


INT_ATOMS = ["value | int", "3", "2 ** 64", "(value | int) ** 20", "7 ** 300", "-5", "1"]


@st.composite
def arithmetic(draw: Any, depth: int = 0) -> str:
    if depth >= 4 or draw(st.booleans()):
        return draw(st.sampled_from(INT_ATOMS))
    op = draw(st.sampled_from(["*", "**", "+", "-", "//", "%"]))
    return f"({draw(arithmetic(depth + 1))}) {op} ({draw(arithmetic(depth + 1))})"


@settings(max_examples=300, deadline=None)
@given(st.lists(arithmetic(), min_size=1, max_size=6), st.integers(-(10**6), 10**6))
def test_integer_arithmetic_stays_within_its_bits(chain: list[str], value: int) -> None:
    """Each step squares, multiplies or raises what came before: the result either fits the
    bits bound or the render is refused before the big product is computed."""
    template = "{% set x = 1 %}" + "".join(
        "{% set x = (" + expression.replace("value | int", "x") + ") %}" for expression in chain
    ) + "{{ x }}"
    try:
        rendered = STEPPED.render_value(template, str(value))
    except TemplateError:
        return
    number = int(rendered) if rendered.lstrip("-").isdigit() else None
    assert number is None or number.bit_length() <= STEPPED.bounds.int_bits
