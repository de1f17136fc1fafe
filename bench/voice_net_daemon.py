"""`mnemolis serve` with the stand-in recogniser of the tests (pocketsphinx over a grammar of
the requests bench/voice_net.py says), until the personalised recogniser is merged: the
daemon the satellites benchmark measures. Arguments are `mnemolis`'s."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mnemolis.cli.main import main  # noqa: E402
from mnemolis.voice import engines  # noqa: E402
from tests.support_voice import GrammarRecogniser  # noqa: E402

REQUESTS = ("turn off the light", "turn on the light", "what time is it")

if __name__ == "__main__":
    recogniser = GrammarRecogniser(REQUESTS)
    engines.load_recogniser = lambda *_args: recogniser  # type: ignore[assignment]
    sys.exit(main(sys.argv[1:]))
