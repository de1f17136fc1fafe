"""The configuration reference, made at build time from the shipped files (mkdocs-gen-files).

One page per file under `sources/` and for `intents/en/language.yaml`: its opening
comment, a table of every key with its shipped value and comment, and the file
itself. `tests/test_docs_reference.py` checks that every key a loader reads is there.
"""

from __future__ import annotations

from pathlib import Path

import mkdocs_gen_files

from mnemolis.config.reference import document, page

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FILES = [*sorted((ROOT / "sources").glob("*.yaml")), ROOT / "intents" / "en" / "language.yaml"]


def lead(path: Path) -> str:
    """What the page says before its keys: where the file's own page is, and how to change it."""
    said = [
        f"A `{path.name}` of your own needs only the keys you change: the rest comes from this "
        "shipped file ([your own files over the shipped ones](../configuration/index.md))."
    ]
    if (DOCS / "sources" / f"{path.stem}.md").exists():
        said.append(f"What the source does and how to set it up: [{path.stem}](../sources/{path.stem}.md).")
    return " ".join(said)


INDEX = """# Configuration reference

One page per shipped settings file, made from the file itself when the site is
built: its opening comment, every key with its shipped value and the comment
written beside it, the optional keys that are not set by default (written
commented out in the file), and the whole file. A key a source reads that its
file does not show fails the tests (`tests/test_docs_reference.py`), so these
pages cannot fall behind the code.

Your own file of the same name needs only the keys you change
([your files over the shipped ones](../configuration/index.md#your-files-over-the-shipped-ones)).
The keys of an intent, a slot and a routine's steps are in
[writing intents and routines](../configuration/intents.md#reference).

| file | |
|---|---|
"""


def summary(intro: list[str]) -> str:
    """The first sentence of a file's opening comment."""
    first = " ".join(intro).split(". ")[0].strip().rstrip(".")
    if len(first) > 90:
        first = first.split(" (")[0]
    return first.replace("|", "/").replace("<", "&lt;")


rows = []
for shipped in FILES:
    name = shipped.relative_to(ROOT).as_posix()
    doc = document(shipped)
    with mkdocs_gen_files.open(f"reference/{shipped.stem}.md", "w") as out:
        out.write(page(doc, name, shipped.read_text(encoding="utf-8"), lead(shipped)))
    rows.append(f"| [`{name}`]({shipped.stem}.md) | {summary(doc.intro)} |")
with mkdocs_gen_files.open("reference/index.md", "w") as out:
    out.write(INDEX + "\n".join(rows) + "\n")
