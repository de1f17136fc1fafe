"""The compiled grammar put in the form pocketsphinx loads fastest, once, when it is built.

pocketsphinx gives a grammar's words their other pronunciations ("word(2)" in the
dictionary) itself, when it loads it (``fsgusealtpron``): for each such word it scans
every transition of the grammar, so its load grew with words x transitions (1.5 of a
2,000-device home's 1.7 s). The same transitions written into the file once, at build,
load in a tenth of the time: the search pocketsphinx builds is the same (one transition
per pronunciation, each with its base word's probability, read back as the base word),
so the grammar hears exactly what it heard.
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

TRANSITION = "TRANSITION"


def alternates(dictionary: Path) -> dict[str, list[str]]:
    """Each word with other pronunciations -> their entries ("word(2)", ...), in order."""
    out: defaultdict[str, list[str]] = defaultdict(list)
    with dictionary.open(encoding="utf-8") as lines:
        for line in lines:
            name = line.split(maxsplit=1)[0] if line.strip() else ""
            if name.endswith(")") and "(" in name:
                out[name[: name.rindex("(")]].append(name)
    return dict(out)


def write_alternates(grammar: Path, dictionary: Path) -> int:
    """Add a transition for each other pronunciation of each word of ``grammar`` (an FSG
    file; rewritten in place, atomically) beside its word's; the number added. Load the
    grammar with ``fsgusealtpron`` off afterwards, or pocketsphinx adds them again."""
    alts = alternates(dictionary)
    if not alts:
        return 0
    lines = grammar.read_text(encoding="utf-8").splitlines()
    added: list[str] = []
    for line in lines:
        if not line.startswith(TRANSITION):
            continue
        parts = line.split()
        if len(parts) > 4:
            for alt in alts.get(parts[4], ()):
                added.append(f"{TRANSITION} {parts[1]} {parts[2]} {parts[3]} {alt}")
    if not added:
        return 0
    end = max(i for i, line in enumerate(lines) if line.strip() == "FSG_END")
    tmp = grammar.with_name(grammar.name + ".tmp")
    tmp.write_text("\n".join([*lines[:end], *added, *lines[end:]]) + "\n", encoding="utf-8")
    os.replace(tmp, grammar)
    return len(added)
