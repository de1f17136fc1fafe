"""A follow-up carries the values of the last request, never its free words (issue 26):
after "tell everyone dinner is ready", "what about tomorrow" was broadcast as a message."""

from __future__ import annotations

import pytest

from mnemolis.understand import Context, Understander


def follow(
    understander: Understander, first: str, then: str
) -> tuple[str | None, dict[str, object]]:
    context = Context()
    context.remember(understander.understand(first, context))
    (part,) = understander.understand(then, context).parts()
    return part.intent, part.slots


@pytest.mark.parametrize(
    ("first", "then", "intent", "slots"),
    [
        ("tell everyone dinner is ready", "what about tomorrow", None, {}),
        ("broadcast we leave in five minutes", "and the weather", "weather.forecast", {}),
        ("set a pasta timer for 5 minutes", "what about tomorrow", None, {}),
        # values still carry: the last request's intent with the new value
        (
            "what's the weather today",
            "what about tomorrow",
            "weather.forecast",
            {"day": "tomorrow"},
        ),
        ("set a pasta timer for 5 minutes", "and the bedroom", "timer.start", {"room": "bedroom"}),
    ],
)
def test_a_follow_up_never_fills_a_free_text_slot(
    understander: Understander, first: str, then: str, intent: str | None, slots: dict[str, object]
) -> None:
    found, filled = follow(understander, first, then)
    assert found == intent
    assert {
        k: v for k, v in filled.items() if k in ("day", "room", "broadcast_message", "timer_name")
    } == slots
