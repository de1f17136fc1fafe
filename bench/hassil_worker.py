"""Runs inside bench/.venv-hassil: Home Assistant's matcher on the sentences it is sent.

Reads one JSON object on stdin: ``{"language", "names": [[name, domain], ...],
"areas": [...], "texts": [...]}``. Writes one JSON object: the versions, the
start-up time, and per text the best intent (or null) and the milliseconds
`recognize_best` took. Started by bench/compare_hassil.py, not by hand.
"""

from __future__ import annotations

import gc
import json
import sys
import time
from importlib.metadata import version


def main() -> None:
    request = json.load(sys.stdin)
    t0 = time.perf_counter()
    from hassil import Intents, TextSlotList, recognize_best
    from home_assistant_intents import get_intents

    intents = Intents.from_dict(get_intents(request["language"]))
    names = TextSlotList.from_tuples(
        [(name, name, {"domain": domain}) for name, domain in request["names"]],
        allow_template=False,
    )
    areas = TextSlotList.from_strings(request["areas"], allow_template=False)
    slot_lists = {"name": names, "area": areas, "floor": TextSlotList.from_strings([])}

    def best(text: str) -> str | None:
        result = recognize_best(
            text,
            intents,
            slot_lists=slot_lists,
            language=request["language"],
            best_metadata_key="hass_custom_sentence",
            best_slot_name="name",
        )
        return result.intent.name if result is not None else None

    best("turn on the kitchen light")  # warm-up, as on the Mnemolis side
    load_ms = (time.perf_counter() - t0) * 1000
    results = []
    for text in request["texts"]:
        gc.disable()  # as on the Mnemolis side (and in timeit): collections wait outside
        t = time.perf_counter()
        intent = best(text)
        ms = (time.perf_counter() - t) * 1000
        gc.enable()
        results.append({"intent": intent, "ms": ms})
    json.dump(
        {
            "versions": {p: version(p) for p in ("hassil", "home-assistant-intents")},
            "load_ms": load_ms,
            "results": results,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
