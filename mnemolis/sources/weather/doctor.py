"""`mnemolis doctor` for the weather source: a forecast fetched, or only a saved one."""

from __future__ import annotations

from typing import Protocol

from mnemolis.core.plan import Part
from mnemolis.sources.base import Finding, Level, PartAnswer, Request, Status
from mnemolis.sources.weather.settings import WeatherSettings


class Checked(Protocol):
    """What the doctor reads of the weather source (it never imports the source back)."""

    @property
    def settings(self) -> WeatherSettings | None: ...
    @property
    def problem(self) -> str | None: ...
    async def answer(self, part: Part, request: Request) -> PartAnswer: ...


async def diagnose(weather: Checked) -> Finding:
    settings = weather.settings
    fix = "check the network, or base_url: in sources/weather.yaml (or MNEMOLIS_WEATHER_URL)"
    if settings is None:
        text = weather.problem or "the weather source is not set up"
        return Finding("weather", Level.BROKEN, text, "fix sources/weather.yaml")
    part = Part("weather today", "weather.forecast", "weather", {"day": "today"})
    answer = await weather.answer(part, Request(timeout_s=settings.timeout_s))
    origin = answer.provenance.get("from")
    if origin == "open-meteo":
        reached = f"{settings.base_url} answered for {answer.data.get('place')}"
        if answer.status is Status.OK:
            return Finding("weather", Level.OK, reached)
        return Finding("weather", Level.WARNING, f"{reached}, but: {answer.text}", fix)
    if answer.status is Status.OK:
        problem = answer.data.get("problem") or "unreachable"
        text = f"{settings.base_url} failed ({problem}); answering from the {origin}"
        return Finding("weather", Level.WARNING, text, fix)
    return Finding("weather", Level.BROKEN, answer.text, fix)
