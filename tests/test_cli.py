"""`mnemolis parse` and `explain` as a person or a script uses them."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from mnemolis.cli.main import main
from mnemolis.understand import Understander

PART_KEYS = {"text", "intent", "source", "slots", "confidence", "provenance"}


def _lines(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_parse_prints_one_json_object_per_query(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", "turn on the kitchen light", "if the back door is unlocked lock it"]) == 0
    first, second = _lines(capsys.readouterr().out)
    assert first["query"] == "turn on the kitchen light"
    assert first["clarify"] is None
    (step,) = first["steps"]  # type: ignore[misc]
    assert set(step) >= PART_KEYS
    assert step["source"] == "mqtt"
    (cond,) = second["steps"]  # type: ignore[misc]
    assert set(cond) >= {"if", "negate", "then", "else"}
    assert set(cond["if"]) >= PART_KEYS
    assert cond["then"][0]["slots"] == {"device": "back door"}


def test_parse_reads_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("what time is it\n\nplay the radio\n"))
    assert main(["parse"]) == 0
    lines = _lines(capsys.readouterr().out)
    assert [line["query"] for line in lines] == ["what time is it", "play the radio"]
    assert lines[1]["steps"][0]["intent"] is None  # type: ignore[index]


def test_parse_conversation_carries_context(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("turn on the kitchen light\nturn it off\n"))
    assert main(["parse", "--conversation"]) == 0
    second = _lines(capsys.readouterr().out)[1]
    assert second["steps"][0]["slots"]["device"] == "kitchen light"  # type: ignore[index]


def test_parse_without_conversation_keeps_turns_apart(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("turn on the kitchen light\nturn it off\n"))
    assert main(["parse"]) == 0
    second = _lines(capsys.readouterr().out)[1]
    assert "device" not in second["steps"][0]["slots"]  # type: ignore[index]


def test_explain_shows_every_stage_with_its_time(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "explain",
                "ok mnemolis what's the difference between alligators and crocodiles and lock the front door",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    for stage in (
        "[normalise]",
        "[analyse]",
        "[condition]",
        "[decompose]",
        "[route]",
        "[clarify]",
        "[plan]",
    ):
        assert stage in out
    assert "wake word" in out
    assert "protected (no-split: difference between)" in out
    assert "split point" in out
    assert " ms" in out
    assert "device.lock" in out and "confidence" in out


def test_explain_shows_the_condition_and_the_guard(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["explain", "tell me about Iran and Israel and if the back door is unlocked lock it"])
        == 0
    )
    out = capsys.readouterr().out
    assert "proper-noun pair" in out
    assert "leading 'if'" in out


@pytest.mark.parametrize("query", ["", "   ", "\t\n", "!!!", "\x00\x07"])
def test_empty_query_gives_an_empty_plan_that_asks(understander: Understander, query: str) -> None:
    plan = understander.understand(query)
    assert plan.steps == []
    assert plan.clarify and "didn't catch" in plan.clarify


def test_control_characters_are_removed(understander: Understander) -> None:
    plan = understander.understand("turn on\x00 the kitchen\u200b light\x07")
    assert plan.normalized == "turn on the kitchen light"
    assert plan.parts()[0].slots == {"device": "kitchen light"}


def test_a_huge_query_is_cut_at_a_word_boundary_and_says_so(understander: Understander) -> None:
    query = "turn on the kitchen light and " + "lorem ipsum " * 1000
    plan = understander.understand(query)
    limit = understander.config.language.max_query_chars
    assert len(plan.normalized) <= limit
    assert plan.normalized.endswith(("lorem", "ipsum"))
    assert any("cut" in note for note in plan.notes)
    assert plan.parts()[0].intent == "device.turn_on"


def test_unknown_device_is_routed_but_unnamed(understander: Understander) -> None:
    part = understander.understand("turn on the x-ray machine").parts()[0]
    assert part.intent == "device.turn_on"
    assert "device" not in part.slots


def test_console_script_runs() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mnemolis", "parse", "what time is it"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(out)["steps"][0]["intent"] == "clock.time"
