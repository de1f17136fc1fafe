"""The weather source's words: question cues, WMO code descriptions, answer
templates and unit formats, read from ``data/weather_words.yaml`` and
``data/wmo_codes.yaml``.

Templates are lists tried in order; `fill` takes the first whose values are
all known, so a figure the forecast lacks is left out rather than printed
as "None".
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from mnemolis.core.package_data import load_package_yaml

_FORMATTER = string.Formatter()


@dataclass(frozen=True)
class QuestionCues:
    """Phrases that tell how a weather question is meant."""

    leading_fillers: tuple[str, ...]
    yes_no_openers: tuple[str, ...]
    present_openers: tuple[str, ...]
    future_markers: tuple[str, ...]
    advice_openers: tuple[str, ...]
    now_metrics: frozenset[str]
    cold_words: frozenset[str]
    hot_words: frozenset[str]
    below_words: tuple[str, ...]
    above_words: tuple[str, ...]


@dataclass(frozen=True)
class UnitFormat:
    template: str
    decimals: int


@dataclass(frozen=True)
class WeatherWords:
    cues: QuestionCues
    codes: dict[int, str]
    code_kinds: dict[int, frozenset[str]]
    unknown_code: str
    default_thresholds: dict[str, dict[str, float]]
    tonight_from_hour: int
    tonight_to_hour: int
    metric_names: dict[str, str]
    units: dict[str, UnitFormat]
    when: dict[str, str]
    label: dict[str, str]
    place: str
    facts: dict[str, dict[str, tuple[str, ...]]]
    span_none: dict[str, tuple[str, ...]]
    span_temperature: tuple[str, ...]
    span_summary: tuple[str, ...]
    sentences: dict[str, str]
    age: dict[str, str]
    reasons: dict[str, str]
    origins: dict[str, str]  # a saved forecast that did not come from the service, by origin

    def describe(self, code: int | None) -> str:
        return self.codes.get(code, self.unknown_code) if code is not None else self.unknown_code

    def kinds(self, codes: frozenset[int]) -> frozenset[str]:
        out: set[str] = set()
        for code in codes:
            out |= self.code_kinds.get(code, frozenset())
        return frozenset(out)

    def value(self, value: float | None, unit: str) -> str | None:
        """``12°C``, ``3.2 mm``: the unit's format, rounded to its decimals."""
        if value is None:
            return None
        fmt = self.units.get(unit, UnitFormat("{value} " + unit, 1))
        shown = f"{value:.{fmt.decimals}f}"
        if shown in ("-0", "-0.0", "-0.00"):
            shown = shown[1:]
        return fmt.template.format(value=shown)

    def sentence(self, key: str, **values: Any) -> str:
        return self.sentences[key].format(**values)


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in _FORMATTER.parse(template) if name}


def fill(templates: tuple[str, ...], values: Mapping[str, Any]) -> str | None:
    """The first template whose every field has a value, filled in."""
    for template in templates:
        if all(values.get(name) is not None for name in fields(template)):
            return template.format(**values)
    return None


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def _tuple(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in (value or ()))


@cache
def weather_words() -> WeatherWords:
    data = load_package_yaml("mnemolis.sources.weather", "weather_words")
    wmo = load_package_yaml("mnemolis.sources.weather", "wmo_codes")
    q = data["question"]
    cues = QuestionCues(
        leading_fillers=_tuple(q["leading_fillers"]),
        yes_no_openers=_tuple(q["yes_no_openers"]),
        present_openers=_tuple(q["present_openers"]),
        future_markers=_tuple(q["future_markers"]),
        advice_openers=_tuple(q["advice_openers"]),
        now_metrics=frozenset(_tuple(q["now_metrics"])),
        cold_words=frozenset(_tuple(q["cold_words"])),
        hot_words=frozenset(_tuple(q["hot_words"])),
        below_words=_tuple(q["below_words"]),
        above_words=_tuple(q["above_words"]),
    )
    facts = {
        metric: {form: _tuple(templates) for form, templates in forms.items()}
        for metric, forms in data["facts"].items()
    }
    return WeatherWords(
        cues=cues,
        codes={int(code): str(entry["text"]) for code, entry in wmo["codes"].items()},
        code_kinds={
            int(code): frozenset(_tuple(entry.get("kinds"))) for code, entry in wmo["codes"].items()
        },
        unknown_code=str(wmo["unknown"]),
        default_thresholds={
            str(metric): {str(k): float(v) for k, v in limits.items()}
            for metric, limits in data["thresholds"].items()
        },
        tonight_from_hour=int(data["tonight"]["from_hour"]),
        tonight_to_hour=int(data["tonight"]["to_hour"]),
        metric_names={str(k): str(v) for k, v in data["metric_names"].items()},
        units={
            str(unit): UnitFormat(str(spec["format"]), int(spec["decimals"]))
            for unit, spec in data["units"].items()
        },
        when={str(k): str(v) for k, v in data["when"].items()},
        label={str(k): str(v) for k, v in data["label"].items()},
        place=str(data["place"]),
        facts=facts,
        span_none={str(k): _tuple(v) for k, v in data["span_none"].items()},
        span_temperature=_tuple(data["span_temperature"]),
        span_summary=_tuple(data["span_summary"]),
        sentences={str(k): str(v) for k, v in data["sentences"].items()},
        age={str(k): str(v) for k, v in data["age"].items()},
        reasons={str(k): str(v) for k, v in data["reasons"].items()},
        origins={str(k): str(v) for k, v in (data.get("origins") or {}).items()},
    )
