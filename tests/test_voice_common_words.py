"""The common words are kept in the state directory: a start with a cached model
does not load pocketsphinx's general model again."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pocketsphinx")

from mnemolis.voice.recognise import general


def test_common_words_are_read_once_then_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []

    def fake(count: int) -> tuple[tuple[str, float], ...]:
        calls.append(count)
        return (("the", 0.05), ("of", 0.03))[:count]

    monkeypatch.setattr(general, "common_words", fake)
    first = general.common_words_kept(2, tmp_path)
    again = general.common_words_kept(2, tmp_path)
    assert first == again == (("the", 0.05), ("of", 0.03))
    assert calls == [2]
    assert general.common_words_kept(2, None) == first and calls == [2, 2]


def test_an_unwritable_folder_still_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(general, "common_words", lambda count: (("a", 1.0),))
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert general.common_words_kept(1, blocked) == (("a", 1.0),)
