"""The language file (`intents/<lang>/language.yaml`): the words that shape understanding.

Wake words, politeness, contractions, numbers, conjunctions, stop words,
condition cues, yes and no, routing weights and understanding's own replies
are data an owner can read and change, so they live in YAML, not in code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mnemolis.config.areas import AreaWords, load_areas
from mnemolis.config.yaml_at import At, as_mapping, lower_words


@dataclass
class Language:
    """Words that shape understanding, kept in YAML so owners can read them."""

    code: str = "en"
    max_query_chars: int = 500
    wake_words: list[str] = field(default_factory=list)
    politeness: list[str] = field(default_factory=list)
    polite_openers: list[str] = field(default_factory=list)
    contractions: dict[str, str] = field(default_factory=dict)
    #: the same request said another way, read as its plain form ("I'm off to bed" is
    #: "I'm going to bed"), in queries and in phrases alike
    sayings: dict[str, str] = field(default_factory=dict)
    numbers: dict[str, int] = field(default_factory=dict)
    multipliers: dict[str, int] = field(default_factory=dict)
    ordinals: dict[str, int] = field(default_factory=dict)
    months: list[str] = field(default_factory=list)
    conjunctions: list[str] = field(default_factory=list)
    strong_conjunctions: list[str] = field(default_factory=list)
    no_split: list[str] = field(default_factory=list)
    fixed_pairs: list[str] = field(default_factory=list)
    stop_words: set[str] = field(default_factory=set)
    filler_words: set[str] = field(default_factory=set)
    colloquial_questions: list[str] = field(default_factory=list)
    question_words: set[str] = field(default_factory=set)
    clause_starts: set[str] = field(default_factory=set)
    condition_leads: dict[str, str] = field(default_factory=dict)
    condition_trailing: list[str] = field(default_factory=list)
    condition_then: list[str] = field(default_factory=list)
    condition_else: list[str] = field(default_factory=list)
    condition_questions: list[str] = field(default_factory=list)
    condition_report: list[str] = field(default_factory=list)
    condition_asked: list[str] = field(default_factory=list)  # "tell me when X was"
    condition_asked_last: list[str] = field(default_factory=list)  # "when X is"
    pronouns: set[str] = field(default_factory=set)
    plural_pronouns: set[str] = field(default_factory=set)
    subject_pronouns: set[str] = field(default_factory=set)
    #: "it's cold in here": a question's verb said after these is a statement's
    statement_subjects: set[str] = field(default_factory=set)
    #: "tell me if it is on": after these a statement's word order asks all the same
    embedded_question_leads: set[str] = field(default_factory=set)
    #: "is there any sound": what follows is a thing that exists, not a state
    existence_words: set[str] = field(default_factory=set)
    determiners: set[str] = field(default_factory=set)
    naming_determiners: set[str] = field(default_factory=set)  # "the", "my": before a name
    prepositions: set[str] = field(default_factory=set)
    place_prepositions: set[str] = field(default_factory=set)
    all_words: set[str] = field(default_factory=set)
    ellipsis_openers: list[str] = field(default_factory=list)
    topic_framing: list[str] = field(default_factory=list)
    exclusions: list[str] = field(default_factory=list)  # "except", "all but", "other than"
    app_openers: list[str] = field(default_factory=list)  # "open itunes and play ..."
    politeness_kept_before: list[str] = field(default_factory=list)  # "thanks for ..."
    yes_words: set[str] = field(default_factory=set)
    no_words: set[str] = field(default_factory=set)
    lemma_overrides: dict[str, str] = field(default_factory=dict)
    routing: dict[str, float] = field(default_factory=dict)
    replies: dict[str, str] = field(default_factory=dict)
    areas: AreaWords = field(default_factory=AreaWords)


_LANGUAGE_LISTS = {
    "wake_words": "wake_words",
    "politeness": "politeness",
    "polite_openers": "polite_openers",
    "conjunctions": "conjunctions",
    "strong_conjunctions": "strong_conjunctions",
    "no_split": "no_split",
    "fixed_pairs": "fixed_pairs",
    "colloquial_questions": "colloquial_questions",
    "ellipsis_openers": "ellipsis_openers",
    "months": "months",
    "topic_framing": "topic_framing",
    "exclusions": "exclusions",
    "app_openers": "app_openers",
    "politeness_kept_before": "politeness_kept_before",
}
_LANGUAGE_SETS = {
    "stop_words": "stop_words",
    "filler_words": "filler_words",
    "question_words": "question_words",
    "clause_starts": "clause_starts",
    "pronouns": "pronouns",
    "plural_pronouns": "plural_pronouns",
    "subject_pronouns": "subject_pronouns",
    "statement_subjects": "statement_subjects",
    "embedded_question_leads": "embedded_question_leads",
    "existence_words": "existence_words",
    "determiners": "determiners",
    "naming_determiners": "naming_determiners",
    "prepositions": "prepositions",
    "place_prepositions": "place_prepositions",
    "all_words": "all_words",
    "yes_words": "yes_words",
    "no_words": "no_words",
}


def load_language(data: dict[str, Any], at: At) -> Language:
    lang = Language(code=str(data.get("language", "en")))
    known = (
        set(_LANGUAGE_LISTS)
        | set(_LANGUAGE_SETS)
        | {
            "language",
            "max_query_chars",
            "contractions",
            "sayings",
            "numbers",
            "multipliers",
            "ordinals",
            "conditions",
            "lemma_overrides",
            "routing",
            "replies",
            "areas",
        }
    )
    for key in data:
        if key not in known:
            raise (at / key).error(f"unknown key {key!r} in the language file")
    for key, attr in _LANGUAGE_LISTS.items():
        setattr(lang, attr, lower_words(data.get(key), at / key, key))
    for key, attr in _LANGUAGE_SETS.items():
        setattr(lang, attr, set(lower_words(data.get(key), at / key, key)))
    limit = data.get("max_query_chars", lang.max_query_chars)
    if not isinstance(limit, int) or limit < 20:
        raise (at / "max_query_chars").error("max_query_chars must be an integer >= 20")
    lang.max_query_chars = limit
    for key in ("contractions", "sayings", "lemma_overrides"):
        table = as_mapping(data.get(key), at / key, key)
        setattr(lang, key, {str(k).lower(): str(v).lower() for k, v in table.items()})
    for key in ("numbers", "multipliers", "ordinals"):
        table = as_mapping(data.get(key), at / key, key)
        for word, value in table.items():
            if not isinstance(value, int) or isinstance(value, bool):
                raise (at / key / word).error(f"{key}: {word!r} must map to an integer")
        setattr(lang, key, {str(k).lower(): int(v) for k, v in table.items()})
    cond = as_mapping(data.get("conditions"), at / "conditions", "conditions")
    leads = as_mapping(cond.get("leading"), at / "conditions" / "leading", "conditions.leading")
    for word, kind in leads.items():
        if kind not in ("if", "unless", "when"):
            raise (at / "conditions" / "leading" / word).error(
                f"condition word {word!r} must map to if, unless or when, not {kind!r}"
            )
    lang.condition_leads = {" ".join(str(k).lower().split()): str(v) for k, v in leads.items()}
    c = at / "conditions"
    lang.condition_trailing = lower_words(cond.get("trailing"), c / "trailing", "trailing")
    lang.condition_then = lower_words(cond.get("then"), c / "then", "then")
    lang.condition_else = lower_words(cond.get("else"), c / "else", "else")
    lang.condition_questions = lower_words(cond.get("questions"), c / "questions", "questions")
    lang.condition_report = lower_words(cond.get("report"), c / "report", "report")
    lang.condition_asked = lower_words(cond.get("asked"), c / "asked", "asked")
    lang.condition_asked_last = lower_words(cond.get("asked_last"), c / "asked_last", "asked_last")
    lang.areas = load_areas(data.get("areas"), at / "areas")
    routing = as_mapping(data.get("routing"), at / "routing", "routing")
    for key, value in routing.items():
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise (at / "routing" / key).error(f"routing.{key} must be a number")
    lang.routing = {str(k): float(v) for k, v in routing.items()}
    replies = as_mapping(data.get("replies"), at / "replies", "replies")
    lang.replies = {"empty": "", "which": "{options}?", "option": "{name}", "or": " or "}
    lang.replies.update({str(k): str(v) for k, v in replies.items()})
    return lang
