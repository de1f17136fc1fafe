"""The words that are never a name heard wrong.

Fuzzy matching hears names in speech errors ("kitchen lite"); it must never hear one
in a word the language file gives a meaning of its own: a value, a state, a number,
a stop word ("halfway" is no "hallway", "hot" no "hob").
"""

from __future__ import annotations

from mnemolis.config import Config


def meaningful_words(config: Config) -> set[str]:
    """Words the language file gives a meaning of their own (values, states,
    numbers, stop words ...): never a device or room heard wrong."""
    lang = config.language
    words: set[str] = set(lang.areas.not_names)
    words |= lang.stop_words | lang.filler_words | lang.all_words | lang.question_words
    words |= lang.yes_words | lang.no_words | lang.pronouns
    words |= set(lang.numbers) | set(lang.ordinals) | set(lang.multipliers)
    for states in config.device_states.values():
        words.update(states)
    for slot in config.slots.values():
        for form in slot.values:
            if " " not in form:
                words.add(form.lower())
    return {w for w in words if " " not in w}
