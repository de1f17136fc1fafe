"""Labelled data for `mnemolis eval`: three JSON-lines formats read into one `Row` shape.

- ``hwu64``: one request a row, ``text`` plus the dataset's ``intent`` label
  (and ``scenario``, ``fold``); a mapping file turns labels into sources.
- ``mixsnips``: compound requests, ``text`` plus ``parts`` (each with its
  ``text`` and ``intent`` label) and ``connectors``; a mapping file again.
- ``mnemolis``: the project's own regression format, labelled with the
  router's own vocabulary (see `mnemolis.evaluation.command` for the field list).

Every problem names the file and line and raises `DataError`; nothing here
runs the router.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mnemolis.config import Config
from mnemolis.evaluation.external import where_to_get
from mnemolis.evaluation.mappings import (
    DEFAULT_MAPPINGS,
    DataError,
    SourceMapping,
    load_edge_words,
    load_mapping,
    source_name,
)

FORMATS = ("hwu64", "mixsnips", "mnemolis")
#: A line longer than this is not a sentence; refuse it rather than read it.
MAX_LINE_CHARS = 100_000
MAX_TEXT_CHARS = 2_000


@dataclass
class ExpectedPart:
    """What one part of a row should come out as; ``None`` fields are not labelled."""

    text: str | None = None  # None: the row's parts are not labelled (one part implied)
    label: str | None = None  # the dataset's own label ("alarm_set"), for reports
    source: str | None = None  # None = out of scope, when source_known
    source_known: bool = False
    intent: str | None = None  # None = out of scope, when intent_known
    intent_known: bool = False
    slots: dict[str, Any] | None = None
    #: The device ids the part acts on or asks about, as a set (None: not labelled;
    #: [] means none: a "which one" question or a decline).
    entities: list[str] | None = None
    values: dict[str, Any] | None = None  # the value slots it must carry
    intent_defined: bool = True  # False: ``intent`` is not an intent of the config


@dataclass
class Row:
    """One labelled query."""

    line: int
    text: str
    parts: list[ExpectedPart]
    split_known: bool = False  # the parts' texts are labelled
    fold: int | None = None
    conditional: bool | None = None
    file: str = ""
    room: str | None = None  # the area the request is spoken in (its origin)
    audio: str | None = None  # a WAV file of the request spoken: heard, then understood

    @property
    def entity_labelled(self) -> bool:
        return any(p.entities is not None or p.values is not None for p in self.parts)


@dataclass
class Dataset:
    path: str
    format: str
    rows: list[Row]
    mapping: SourceMapping | None = None

    def undefined_intents(self) -> dict[str, int]:
        """Intents rows expect that the config does not define, with their counts:
        said in the report, so that a misspelt intent is seen, not silently scored."""
        counts: dict[str, int] = {}
        for row in self.rows:
            for p in row.parts:
                if not p.intent_defined and p.intent is not None:
                    counts[p.intent] = counts.get(p.intent, 0) + 1
        return dict(sorted(counts.items()))


# --------------------------------------------------------------------------- reading


def _read_objects(path: Path) -> list[tuple[int, dict[str, Any]]]:
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        reason = f"cannot read: {exc.strerror or exc}"
        origin = where_to_get(path) if isinstance(exc, FileNotFoundError) else None
        if origin is not None:
            reason += f"; it is not part of Mnemolis: {origin}"
        raise DataError(path, None, reason) from exc
    out: list[tuple[int, dict[str, Any]]] = []
    with handle:
        try:
            for n, line in enumerate(handle, 1):
                if len(line) > MAX_LINE_CHARS:
                    raise DataError(path, n, f"line longer than {MAX_LINE_CHARS} characters")
                if not line.strip() or line.lstrip().startswith("//"):
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DataError(path, n, f"not JSON: {exc.msg}") from exc
                if not isinstance(obj, dict):
                    raise DataError(path, n, "each line must be a JSON object")
                out.append((n, obj))
        except UnicodeDecodeError as exc:
            raise DataError(path, None, "not UTF-8 text") from exc
    if not out:
        raise DataError(path, None, "no rows")
    return out


def detect_format(obj: dict[str, Any]) -> str:
    """Guess the format from the first row's keys."""
    parts = obj.get("parts")
    if "connectors" in obj or (isinstance(parts, list) and parts and isinstance(parts[0], dict)):
        return "mixsnips"
    if "scenario" in obj:
        return "hwu64"  # HWU64's own rows (which also carry "slots" and "entities")
    if any(k in obj for k in ("entities", "values", "room", "intents", "slots")):
        return "mnemolis"  # the project's own rows label these
    label = obj.get("intent")
    # HWU64's labels are scenario_intent ("alarm_set"); Mnemolis's intents have a dot
    if isinstance(label, str) and "." not in label and "fold" in obj:
        return "hwu64"
    return "mnemolis"


def read_dataset(
    path: Path | str,
    config: Config,
    fmt: str | None = None,
    mapping_path: Path | str | None = None,
    allow_undefined: bool = False,
) -> Dataset:
    """One file; ``allow_undefined`` keeps rows whose intent the config does not
    define (an intent still to be written), scored as wrong, instead of refusing."""
    path = Path(path)
    objects = _read_objects(path)
    fmt = fmt or detect_format(objects[0][1])
    if fmt not in FORMATS:
        raise DataError(path, None, f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    mapping: SourceMapping | None = None
    if fmt == "mnemolis":
        if mapping_path is not None:
            raise DataError(
                mapping_path,
                None,
                "--mapping applies to hwu64 and mixsnips; mnemolis rows "
                "name their sources and intents themselves",
            )
    else:
        mapping = load_mapping(mapping_path or DEFAULT_MAPPINGS[fmt])
    rows = []
    for n, obj in objects:
        if fmt == "hwu64":
            assert mapping is not None
            rows.append(_hwu64_row(path, n, obj, mapping))
        elif fmt == "mixsnips":
            assert mapping is not None
            rows.append(_mixsnips_row(path, n, obj, mapping))
        else:
            rows.append(_mnemolis_row(path, n, obj, config, allow_undefined))
        rows[-1].file = str(path)
    return Dataset(path=str(path), format=fmt, rows=rows, mapping=mapping)


def read_datasets(
    paths: list[str],
    config: Config,
    fmt: str | None = None,
    mapping_path: Path | str | None = None,
    allow_undefined: bool = False,
) -> Dataset:
    """Several files of one format read as one ("tests/data/*.jsonl")."""
    parts = [read_dataset(p, config, fmt, mapping_path, allow_undefined) for p in paths]
    first = parts[0]
    for other in parts[1:]:
        if other.format != first.format:
            raise DataError(
                other.path,
                None,
                f"is {other.format}, but {first.path} is {first.format}: give files of one format",
            )
    rows = [row for d in parts for row in d.rows]
    return Dataset(", ".join(d.path for d in parts), first.format, rows, first.mapping)


def _text(path: Path, n: int, value: Any, what: str = "text") -> str:
    if not isinstance(value, str) or not value.strip():
        raise DataError(path, n, f"{what!r} must be a non-empty string")
    if len(value) > MAX_TEXT_CHARS:
        raise DataError(path, n, f"{what!r} is longer than {MAX_TEXT_CHARS} characters")
    return value


def _fold(path: Path, n: int, obj: dict[str, Any]) -> int | None:
    fold = obj.get("fold")
    if fold is None:
        return None
    if isinstance(fold, bool) or not isinstance(fold, int):
        raise DataError(path, n, "'fold' must be an integer")
    return fold


def _hwu64_row(path: Path, n: int, obj: dict[str, Any], mapping: SourceMapping) -> Row:
    label = obj.get("intent")
    if not isinstance(label, str):
        raise DataError(path, n, "an hwu64 row needs an 'intent' label")
    part = ExpectedPart(label=label, source=mapping.source_of(label, path, n), source_known=True)
    return Row(line=n, text=_text(path, n, obj.get("text")), parts=[part], fold=_fold(path, n, obj))


def _mixsnips_row(path: Path, n: int, obj: dict[str, Any], mapping: SourceMapping) -> Row:
    raw = obj.get("parts")
    if not isinstance(raw, list) or not raw or not all(isinstance(p, dict) for p in raw):
        raise DataError(path, n, "a mixsnips row needs 'parts': [{text, intent}, ...]")
    parts = []
    for p in raw:
        label = p.get("intent")
        if not isinstance(label, str):
            raise DataError(path, n, "each part needs an 'intent' label")
        parts.append(
            ExpectedPart(
                text=_text(path, n, p.get("text"), "parts[].text"),
                label=label,
                source=mapping.source_of(label, path, n),
                source_known=True,
            )
        )
    return Row(
        line=n,
        text=_text(path, n, obj.get("text")),
        parts=parts,
        split_known=True,
        fold=_fold(path, n, obj),
    )


_MNEMOLIS_KEYS = {
    "text",
    "audio",
    "parts",
    "sources",
    "intents",
    "slots",
    "source",
    "intent",
    "conditional",
    "fold",
    "note",
    "entities",
    "values",
    "room",
}


def _entities(path: Path, n: int, obj: dict[str, Any], count: int) -> list[list[str] | None]:
    """``entities``: a list of ids for a one-part row, else one list per part."""
    raw = obj.get("entities")
    if raw is None:
        return [None] * count
    if not isinstance(raw, list):
        raise DataError(path, n, "'entities' must be a list of device ids (one list per part)")
    nested = bool(raw) and all(isinstance(x, list) or x is None for x in raw)
    per_part: list[Any] = list(raw) if nested or count > 1 else [raw]
    if len(per_part) != count:
        raise DataError(path, n, f"'entities' has {len(per_part)} entries but the parts {count}")
    out: list[list[str] | None] = []
    for ids in per_part:
        if ids is not None and not all(isinstance(i, str) and i for i in ids):
            raise DataError(path, n, "'entities' must hold device ids (strings)")
        out.append(None if ids is None else list(ids))
    return out


def _values(path: Path, n: int, obj: dict[str, Any], count: int) -> list[dict[str, Any] | None]:
    """``values``: a mapping for a one-part row, else one mapping (or null) per part."""
    raw = obj.get("values")
    if raw is None:
        return [None] * count
    per_part = [raw] if isinstance(raw, dict) else raw
    if not isinstance(per_part, list) or len(per_part) != count:
        raise DataError(path, n, f"'values' must be a mapping, or a list of {count} per part")
    if not all(v is None or isinstance(v, dict) for v in per_part):
        raise DataError(path, n, "'values' entries must be mappings of slot -> value")
    return list(per_part)


def _room(path: Path, n: int, obj: dict[str, Any], config: Config) -> str | None:
    room = obj.get("room")
    if room is None:
        return None
    if not isinstance(room, str) or " ".join(room.lower().split()) not in config.rooms:
        raise DataError(path, n, f"'room' {room!r} is not an area of the home")
    return " ".join(room.lower().split())


def _per_part(
    path: Path, n: int, obj: dict[str, Any], plural: str, singular: str
) -> list[Any] | None:
    """``sources: [..]`` per part, or ``source: x`` for a one-part row."""
    if plural in obj and singular in obj:
        raise DataError(path, n, f"give either {plural!r} or {singular!r}, not both")
    if singular in obj:
        return [obj[singular]]
    value = obj.get(plural)
    if value is None:
        return None
    if not isinstance(value, list):
        raise DataError(path, n, f"{plural!r} must be a list with one entry per part")
    return value


def _mnemolis_row(
    path: Path, n: int, obj: dict[str, Any], config: Config, allow_undefined: bool = False
) -> Row:
    unknown = sorted(set(obj) - _MNEMOLIS_KEYS)
    if unknown:
        raise DataError(path, n, f"unknown field(s) {', '.join(map(repr, unknown))}")
    text = _text(path, n, obj.get("text"))
    texts = obj.get("parts")
    if texts is not None and (not isinstance(texts, list) or not texts):
        raise DataError(path, n, "'parts' must be a non-empty list of strings")
    sources = _per_part(path, n, obj, "sources", "source")
    intents = _per_part(path, n, obj, "intents", "intent")
    slots = obj.get("slots")
    slot_list = [slots] if isinstance(slots, dict) else slots
    if slot_list is not None and not isinstance(slot_list, list):
        raise DataError(path, n, "'slots' must be a mapping, or a list of mappings per part")
    lengths = {
        name: len(v)
        for name, v in (
            ("parts", texts),
            ("sources", sources),
            ("intents", intents),
            ("slots", slot_list),
        )
        if v is not None
    }
    count = lengths.get("parts", max(lengths.values(), default=1))
    for name, length in lengths.items():
        if length != count:
            what = "'parts'" if "parts" in lengths else "the other lists"
            raise DataError(path, n, f"{name!r} has {length} entries but {what} {count}")
    if texts is None and count > 1:
        raise DataError(path, n, "a row with more than one part must list its 'parts'")
    conditional = obj.get("conditional")
    if conditional is not None and not isinstance(conditional, bool):
        raise DataError(path, n, "'conditional' must be true or false")
    entities = _entities(path, n, obj, count)
    values = _values(path, n, obj, count)
    parts = []
    for i in range(count):
        part = ExpectedPart(entities=entities[i], values=values[i])
        if texts is not None:
            part.text = _text(path, n, texts[i], f"parts[{i}]")
        if intents is not None:
            intent = intents[i]
            if intent is not None:
                if not isinstance(intent, str) or not intent.strip():
                    raise DataError(path, n, f"intent {intent!r} must be an intent name")
                spec = config.intents.get(intent)
                if spec is None and not allow_undefined:
                    raise DataError(path, n, f"intent {intent!r} is not defined in the config")
                if spec is None:
                    # an intent this config does not (yet) define: no router built on it
                    # can get the part right; its source is whatever `sources` says
                    part.intent_defined = False
                else:
                    # a decline.* intent is out of scope: its source is null
                    part.source, part.source_known = spec.source, True
            else:
                part.source, part.source_known = None, True
            part.intent, part.intent_known = intent, True
        if sources is not None:
            source = source_name(sources[i], path, f"sources[{i}]", n)
            if part.source_known and source != part.source:
                raise DataError(
                    path,
                    n,
                    f"intent {part.intent!r} routes to {part.source or 'null'}, "
                    f"but sources[{i}] says {source or 'null'}",
                )
            part.source, part.source_known = source, True
        if slot_list is not None:
            value = slot_list[i]
            if value is not None and not isinstance(value, dict):
                raise DataError(path, n, f"slots[{i}] must be a mapping of slot -> value")
            part.slots = value
        parts.append(part)
    return Row(
        line=n,
        text=text,
        parts=parts,
        split_known=texts is not None,
        fold=_fold(path, n, obj),
        conditional=conditional,
        room=_room(path, n, obj, config),
        audio=_audio(path, n, obj.get("audio")),
    )


def _audio(path: Path, n: int, value: Any) -> str | None:
    """A row's ``audio``: a WAV file, relative to the rows' file unless absolute."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise DataError(path, n, "'audio' must be the path of a WAV file")
    found = Path(value) if Path(value).is_absolute() else path.parent / value
    if not found.is_file():
        raise DataError(path, n, f"audio file not found: {found}")
    return str(found)


__all__ = [
    "DEFAULT_MAPPINGS",
    "FORMATS",
    "DataError",
    "Dataset",
    "ExpectedPart",
    "Row",
    "SourceMapping",
    "detect_format",
    "load_edge_words",
    "load_mapping",
    "read_dataset",
    "read_datasets",
]
