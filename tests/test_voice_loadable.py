"""The compiled grammar in the form pocketsphinx loads fastest: each word's other
pronunciations written in at build (`recognise.loadable`), heard exactly as when
pocketsphinx added them itself at every load."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from mnemolis.config import load_config
from mnemolis.voice.recognise import create_recogniser
from mnemolis.voice.recognise.audio import to_pipeline
from mnemolis.voice.recognise.decoder import ModelDecoder
from mnemolis.voice.recognise.grammar import GRAMMAR
from mnemolis.voice.recognise.loadable import alternates, write_alternates
from mnemolis.voice.recognise.model import DICTIONARY, ModelInfo
from tests.support_recogniser import require_voice, speak

FSG = """FSG_BEGIN home
NUM_STATES 3
START_STATE 0
FINAL_STATE 2
TRANSITION 0 1 0.5 read
TRANSITION 0 1 0.5 lamp
TRANSITION 1 2 1 device:desk_lamp
FSG_END
"""
WORDS = """device:desk_lamp D EH S K L AE M P
device:desk_lamp(2) D EH K L AE M P
lamp L AE M P
read R IY D
read(2) R EH D
read(3) R EH D IY
"""


def test_other_pronunciations_are_transitions_beside_their_words(tmp_path: Path) -> None:
    (tmp_path / "home.fsg").write_text(FSG, encoding="utf-8")
    (tmp_path / "words.dict").write_text(WORDS, encoding="utf-8")
    assert alternates(tmp_path / "words.dict") == {
        "device:desk_lamp": ["device:desk_lamp(2)"],
        "read": ["read(2)", "read(3)"],
    }
    assert write_alternates(tmp_path / "home.fsg", tmp_path / "words.dict") == 3
    lines = (tmp_path / "home.fsg").read_text(encoding="utf-8").splitlines()
    assert lines[-1] == "FSG_END"
    added = [line for line in lines if "(" in line]
    # the same states, the base word's probability
    assert added == [
        "TRANSITION 0 1 0.5 read(2)",
        "TRANSITION 0 1 0.5 read(3)",
        "TRANSITION 1 2 1 device:desk_lamp(2)",
    ]
    assert [line for line in lines if "(" not in line] == FSG.splitlines()


def test_a_dictionary_without_other_pronunciations_leaves_the_grammar(tmp_path: Path) -> None:
    (tmp_path / "home.fsg").write_text(FSG, encoding="utf-8")
    (tmp_path / "words.dict").write_text("lamp L AE M P\nread R IY D\n", encoding="utf-8")
    assert write_alternates(tmp_path / "home.fsg", tmp_path / "words.dict") == 0
    assert (tmp_path / "home.fsg").read_text(encoding="utf-8") == FSG


def _as_pocketsphinx_had_it(folder: Path, to: Path) -> ModelInfo:
    """The compiled model as it was before: no alternates in the grammar, so that
    pocketsphinx adds them itself when it loads it."""
    shutil.copytree(folder, to)
    lines = (to / GRAMMAR).read_text(encoding="utf-8").splitlines()
    bare = [line for line in lines if not (line.startswith("TRANSITION") and "(" in line)]
    assert len(bare) < len(lines)
    (to / GRAMMAR).write_text("\n".join(bare) + "\n", encoding="utf-8")
    info = ModelInfo.from_json((folder / "meta.json").read_text(encoding="utf-8"))
    return dataclasses.replace(info, alternates=False)


@pytest.mark.parametrize("voice", ["en-us", "en-gb+f3"])
def test_the_grammar_with_its_alternates_hears_as_pocketsphinx_adding_them(
    tmp_path: Path, voice: str
) -> None:
    require_voice()
    r = create_recogniser(load_config(), state_dir=tmp_path / "state")
    compiled = r.wait_ready()
    r.close()
    assert compiled.info.alternates
    assert any("(" in line for line in (compiled.path / DICTIONARY).open(encoding="utf-8"))
    fast = ModelDecoder(compiled.path, compiled.info, r.settings)
    old_info = _as_pocketsphinx_had_it(compiled.path, tmp_path / "old")
    old = ModelDecoder(tmp_path / "old", old_info, r.settings)
    for said in (
        "turn off the lights in the bedroom",
        "set the living room lights to fifty percent",
        "what's the weather tomorrow",
        "read me the news and then turn on the kitchen light",
    ):
        pcm = to_pipeline(speak(said, voice)).pcm
        a, b = fast.decode(pcm), old.decode(pcm)
        assert a.words == b.words, said
        assert a.frames == b.frames
