"""The router's own lemma tables and spaCy imported without its command line."""

from __future__ import annotations

import subprocess
import sys
from importlib.resources import files

import pytest

from mnemolis.config import load_config
from mnemolis.understand.lemma_tables import base_verbs, lemma_lookup
from mnemolis.understand.text import TextPipeline


def test_the_shipped_table_lemmatises_english() -> None:
    table = lemma_lookup("en")
    assert table["turning"] == "turn"
    assert table["lights"] == "light"
    assert len(table) > 40_000


def test_the_shipped_verbs_are_base_forms() -> None:
    verbs = base_verbs("en")
    assert {"help", "locate", "turn"} <= verbs
    assert "turning" not in verbs


def test_a_language_without_a_table_is_named() -> None:
    with pytest.raises(ValueError, match=r"'xx'.*xx_lemma_lookup"):
        lemma_lookup("xx")
    assert base_verbs("xx") == frozenset()


def test_the_licences_travel_with_the_tables() -> None:
    data = files("mnemolis.understand").joinpath("data")
    mit = data.joinpath("LICENSE-spacy-lookups-data.txt").read_text("utf-8")
    wordnet = data.joinpath("LICENSE-WordNet.txt").read_text("utf-8")
    assert "ExplosionAI GmbH" in mit and "MIT License" in mit
    assert "Princeton University" in wordnet


def test_the_pipeline_lemmatises_with_the_shipped_table() -> None:
    text = TextPipeline(load_config(None).language)
    assert text.lemmas("Turning on the lights") == ["turn", "on", "the", "light"]
    assert text.is_verb("locate") and not text.is_verb("kitchen")


def _fresh(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return done.stdout.strip()


def test_understanding_loads_neither_spacys_command_line_nor_its_lookups() -> None:
    out = _fresh(
        "import sys\n"
        "from mnemolis.config import load_config\n"
        "from mnemolis.understand import Understander\n"
        "plan = Understander(load_config(None)).understand('turn on the kitchen light')\n"
        "print(plan.steps[0].intent)\n"
        "heavy = ('spacy.cli', 'spacy_lookups_data', 'requests', 'weasel', 'typer')\n"
        "print(sorted(m for m in sys.modules if m in heavy))\n"
    )
    assert out.splitlines() == ["device.turn_on", "[]"]


def test_spacys_command_line_still_loads_when_asked_for() -> None:
    out = _fresh(
        "import mnemolis.understand.spacy_lite\n"
        "import spacy, spacy.cli\n"
        "print(callable(spacy.cli.download), callable(spacy.info))\n"
    )
    assert out == "True True"


def test_new_words_keep_what_the_router_reads() -> None:
    text = TextPipeline(load_config(None).language)
    tokens = text.tokens(text.doc("Set qwzxv to forty-two, then 17% and $5!"))
    assert [t.lower for t in tokens if t.is_num] == ["forty", "two", "17", "5"]
    assert [t.text for t in tokens if t.is_punct] == ["-", ",", "$", "!"]
    assert [t.lemma for t in tokens][:2] == ["set", "qwzxv"]
