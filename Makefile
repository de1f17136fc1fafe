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

# One home's gate: its sentences scored with --holdout, with the floors of intent, entity
# and value accuracy and of parts fully right, and the ceiling of wrong-device actions.
# $(call home_gate, HOME, INTENT, ENTITY, VALUE, FULLY_RIGHT, MAX_WRONG_DEVICE)
define home_gate
$(BIN)/mnemolis --config tests/data/$(strip $(1)) eval tests/data/$(strip $(1))/sentences/*.jsonl \
	--no-timing --errors 0 --holdout \
	--min-intent-accuracy $(strip $(2)) --min-entity-accuracy $(strip $(3)) \
	--min-value-accuracy $(strip $(4)) --min-fully-right $(strip $(5)) \
	--max-wrong-device $(strip $(6))
endef

# The regression gate: the project's own labelled sentences, with floors; then the big
# home (tests/data/big_home: 140 entities, its discovery loaded without a broker), scored
# on the exact devices and values too (floors: the measured figures less a small margin);
# then the second home (written blind), the same way; the third, fourth and
# fifth homes (written blind; issue 24), worked on folds 1-4 only, their floors the
# figures reached less a margin (stop 30 (issue 24) chose one heating rule, the room's own
# climate device first, and the fifth home's bedroom row that said otherwise was
# relabelled; stop 31 looked into the held-out wrong-device actions, fixed their
# mechanisms, and every home's ceiling is 0; it relabelled six third-home questions by
# the project's convention, bench/RESULTS.md says which; stop 33 raised the big, third,
# fifth and takeaway floors to its figures less a margin, and its continuation (homes7)
# the big, third, fifth, takeaway and garden floors); then two
# owner domains that are not home automation (tests/data/takeaway, tests/data/garden:
# intents and list slots of the owner's own in YAML). --max-wrong-device N: at most N
# parts act on a device outside the labelled ones (0 wherever the rows allow).
gate: venv
	$(BIN)/mnemolis eval tests/data/*.jsonl --no-timing --errors 5 \
		--min-macro-f1 0.97 --min-intent-accuracy 0.97 --min-slot-accuracy 0.95 --min-exact 0.97
#                 home          intent  entity  value  fully-right  max-wrong-device
	$(call home_gate, big_home,     0.98,   0.98,   0.98,  0.975,       0)
	$(call home_gate, second_home,  0.99,   0.98,   0.99,  0.98,        0)
	$(call home_gate, third_home,   0.965,  0.985,  0.98,  0.96,        0)
	$(call home_gate, fourth_home,  0.97,   0.97,   0.95,  0.96,        0)
	$(call home_gate, fifth_home,   0.96,   0.955,  0.97,  0.945,       0)
	$(call home_gate, takeaway,     0.985,  0.99,   0.98,  0.985,       0)
	$(call home_gate, garden,       0.97,   0.99,   0.98,  0.965,       0)

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
