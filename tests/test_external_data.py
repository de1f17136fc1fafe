"""Evaluation data written by others is not in a clone (issue 26): a command that needs
it says where it comes from, not only that the file is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemolis.cli.main import main
from mnemolis.evaluation.external import where_to_get


@pytest.mark.parametrize(
    ("name", "origin"),
    [
        ("hwu64.jsonl", "https://github.com/xliuhw/NLU-Evaluation-Data"),
        ("mixsnips_dev.jsonl", "https://github.com/LooperXX/AGIF"),
    ],
)
def test_a_missing_data_set_is_named_with_where_to_get_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, origin: str
) -> None:
    assert main(["eval", str(tmp_path / name)]) != 0
    err = capsys.readouterr().err
    assert f"{tmp_path / name}: cannot read: No such file or directory" in err
    assert "it is not part of Mnemolis" in err and origin in err


def test_a_missing_file_of_ones_own_is_only_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert where_to_get(tmp_path / "kitchen.jsonl") is None
    assert main(["eval", str(tmp_path / "kitchen.jsonl")]) != 0
    assert "not part of Mnemolis" not in capsys.readouterr().err
