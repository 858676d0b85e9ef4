# forumbot — every target installs what it needs into .venv first.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: help install test lint typecheck pytest demo bench clean chromium catalogue catalogue-check

help:
	@echo "make demo   - set up and run the main job on the bundled demo forum"
	@echo "make test   - set up and run ruff, mypy and the whole test suite; as root with apt, installs"
	@echo "              Debian's chromium for the browser test first (skip: make test CHROMIUM=no)"
	@echo "make bench  - benchmarks (not part of make test)"
	@echo "make catalogue - extract the messages into forumbot/locale/*/forumbot.po and compile the .mo"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check forumbot fakeboard tests bench tools

typecheck: $(STAMP)
	$(BIN)/mypy forumbot fakeboard tests tools

pytest: $(STAMP)
	$(BIN)/python -m pytest

test: chromium lint typecheck catalogue-check pytest

# The browser test needs headless Chromium: install Debian's package where it is missing and we may
# (root, apt), saying so before it starts; otherwise say so, and the test skips itself. CHROMIUM=no: never
# install it (the browser test is skipped).
CHROMIUM ?= auto
chromium:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$(CHROMIUM)" = no ]; then \
		echo "CHROMIUM=no: chromium is not installed; the browser test will be skipped"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "make test: the browser test needs headless Chromium, so Debian's chromium package is installed now"; \
		echo "  with apt-get, as root (about 115 packages with what it depends on; apt-get update first if needed)."; \
		echo "  To skip it: make test CHROMIUM=no (the browser test is then skipped)."; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y -qq chromium >/dev/null 2>&1 \
		|| { apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null; } \
		|| echo "chromium could not be installed: the browser test will be skipped"; \
	else \
		echo "chromium is missing and cannot be installed here (needs root and apt-get): the browser test will be skipped"; \
	fi

# The demo: one day of a gameru-3.3 game on saved phpBB pages (fixtures/demo/), with a throwaway state file.
# The day is played at the moments the pages were saved (--now), so the demo gives the same result on any date.
DEMO_GAME  := Демо-мафия
DEMO_START := 2026-11-29T10:00:00+03:00
DEMO_END   := 2026-11-29T23:30:00+03:00
DEMO_STATE := out/demo-state.db
DEMO_FB    := $(BIN)/forumbot
demo: $(STAMP)
	@mkdir -p out
	@rm -f $(DEMO_STATE) $(DEMO_STATE)-wal $(DEMO_STATE)-shm
	$(DEMO_FB) new-game fixtures/demo/game.toml --now $(DEMO_START) --state $(DEMO_STATE)
	$(DEMO_FB) deal "$(DEMO_GAME)" --seed 20261129 --topic 1 --now $(DEMO_START) --state $(DEMO_STATE)
	$(DEMO_FB) end-day "$(DEMO_GAME)" --json --now $(DEMO_END) --state $(DEMO_STATE) > out/demo-end-day.json
	COLUMNS=150 $(DEMO_FB) draft show "$(DEMO_GAME)" --state $(DEMO_STATE)
	$(DEMO_FB) draft html "$(DEMO_GAME)" out/demo-preview.html --state $(DEMO_STATE)
	@echo "Preview for the moderators: $(CURDIR)/out/demo-preview.html"

# The message catalogues (forumbot/i18n.py): new strings land untranslated in each .po, to be translated
# there; the .mo files are compiled from them and committed. `make test` checks that all is in step.
catalogue: $(STAMP)
	$(BIN)/python tools/catalogue.py update

catalogue-check: $(STAMP)
	$(BIN)/python tools/catalogue.py check

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
