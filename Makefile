# Mnemolis: the commands the README and docs/ show.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: venv tools test gate lint typecheck check bench demo docs clean pi-check

$(BIN)/mnemolis: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Mnemolis needs Python 3.11 or newer, and $(PYTHON) is " + sys.version.split()[0] + ": run make with PYTHON=python3.11 (or newer)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(BIN)/mnemolis

venv: $(BIN)/mnemolis

# The programs the tests start for real (tests/tools.py, one table): found, installed with
# apt-get when run as root, or make stops at once and names them and the command that
# installs them; MISSING=skip runs the tests without them (skipped, counted at the end).
tools:
	@$(PYTHON) tests/tools.py $(if $(filter skip,$(MISSING)),--allow-missing)

test: tools venv
	$(BIN)/ruff check mnemolis tests bench
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/mnemolis check
	$(MAKE) docs
	$(BIN)/pytest
	$(MAKE) gate

# The regression gate: the project's own labelled sentences, with floors; then the big
# home (tests/data/big_home: 140 entities, its discovery loaded without a broker), scored
# on the exact devices and values too (floors: the measured figures less a small margin);
# then the second and third homes (written blind), the same way; the third, written last,
# is measured, not worked on (its floors: as first measured, less a margin); the fourth
# and fifth homes (written blind, issue 24), worked on folds 1-4 only, their floors the
# figures reached less a margin (wrong-device actions are not at 0 yet: the third 1 and the
# fourth 4, all held out, the fifth 2, 1 held out and "turn the heating up" in the bedroom,
# whose label the big home's contradicts; their ceilings are the counts reached); then two
# owner domains that are not home automation (tests/data/takeaway, tests/data/garden:
# intents and list slots of the owner's own in YAML). --max-wrong-device N: at most N
# parts act on a device outside the labelled ones (0 wherever the rows allow).
gate: venv
	$(BIN)/mnemolis eval tests/data/*.jsonl --no-timing --errors 5 \
		--min-macro-f1 0.97 --min-intent-accuracy 0.97 --min-slot-accuracy 0.95 --min-exact 0.97
	$(BIN)/mnemolis --config tests/data/big_home eval tests/data/big_home/sentences/*.jsonl \
		--no-timing --errors 0 --holdout \
		--min-intent-accuracy 0.96 --min-entity-accuracy 0.96 --min-value-accuracy 0.96 \
		--min-fully-right 0.95 --max-wrong-device 0
	$(BIN)/mnemolis --config tests/data/second_home eval tests/data/second_home/sentences/*.jsonl \
		--no-timing --errors 0 --holdout \
		--min-intent-accuracy 0.97 --min-entity-accuracy 0.97 --min-value-accuracy 0.97 \
		--min-fully-right 0.96 --max-wrong-device 0
	$(BIN)/mnemolis --config tests/data/third_home eval tests/data/third_home/sentences/*.jsonl \
		--no-timing --errors 0 --holdout \
		--min-intent-accuracy 0.93 --min-entity-accuracy 0.95 --min-value-accuracy 0.93 \
		--min-fully-right 0.90 --max-wrong-device 1
	$(BIN)/mnemolis --config tests/data/fourth_home eval tests/data/fourth_home/sentences/*.jsonl \
		--no-timing --errors 0 --holdout \
		--min-intent-accuracy 0.96 --min-entity-accuracy 0.96 --min-value-accuracy 0.92 \
		--min-fully-right 0.95 --max-wrong-device 4
	$(BIN)/mnemolis --config tests/data/fifth_home eval tests/data/fifth_home/sentences/*.jsonl \
		--no-timing --errors 0 --holdout \
		--min-intent-accuracy 0.90 --min-entity-accuracy 0.89 --min-value-accuracy 0.93 \
		--min-fully-right 0.87 --max-wrong-device 2
	$(BIN)/mnemolis --config tests/data/takeaway eval tests/data/takeaway/sentences/*.jsonl \
		--no-timing --errors 0 --holdout \
		--min-intent-accuracy 0.95 --min-entity-accuracy 0.98 --min-value-accuracy 0.94 \
		--min-fully-right 0.94 --max-wrong-device 0
	$(BIN)/mnemolis --config tests/data/garden eval tests/data/garden/sentences/*.jsonl \
		--no-timing --errors 0 --holdout \
		--min-intent-accuracy 0.95 --min-entity-accuracy 0.98 --min-value-accuracy 0.96 \
		--min-fully-right 0.94 --max-wrong-device 0

lint: venv
	$(BIN)/ruff check mnemolis tests bench
	$(BIN)/lint-imports

typecheck: venv
	$(BIN)/mypy

check: venv
	$(BIN)/mnemolis check

bench: venv
	$(BIN)/python bench/parse.py
	$(BIN)/python bench/mqtt.py
	$(BIN)/python bench/discovery.py
	$(BIN)/python bench/kiwix.py
	$(BIN)/python bench/weather.py
	$(BIN)/python bench/demo.py
	$(BIN)/python bench/execute.py
	$(BIN)/python bench/load.py
	$(BIN)/python bench/chaos.py
	$(BIN)/python bench/cli.py
	$(BIN)/python bench/routines.py
	$(BIN)/python bench/music.py
	$(BIN)/python bench/timers.py
	$(BIN)/python bench/big_home.py

# The documentation site (mkdocs.yml) into build/site: every link and anchor checked, and
# any warning fails the build. Open build/site/index.html, or `.venv/bin/mkdocs serve`.
docs: venv
	NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true $(BIN)/mkdocs build --strict

# The README's main command: set-up on a fresh machine, then the demo home and a chat
# with it; ASK="..." answers one request instead.
demo: venv
	$(BIN)/mnemolis demo $(if $(ASK),--ask "$(ASK)")

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info

# The Raspberry Pi page (docs/raspberry-pi.md) followed on an emulated Debian bookworm arm64
# (debootstrap + qemu-user-static; the root is cached in /var/cache/mnemolis-pi-check), with
# the emulated timings beside native ones. Minutes long, so not in CI: run it before a release.
pi-check:
	$(PYTHON) bench/pi_check.py
