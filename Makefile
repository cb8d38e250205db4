# `make demo` and `make test` each set up .venv on first use, then run.
# The demo installs the core and the [mkdocs] extra, which serves the site it writes (a newcomer's
# first run stays fast); the tests add the dev tools and every extra ([dev] pulls [all]), and the
# browser tests need Chromium: `make browser-deps`.
# `make test` leaves the slow tests (browsers, killed subprocesses, the wheel) to `make test-all`,
# which is what CI runs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: demo test test-all lint bench browser-deps clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -e ".[mkdocs]"
	touch $(STAMP)

$(DEV_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install -q --disable-pip-version-check -e ".[dev]"
	touch $(DEV_STAMP)

demo: $(STAMP)
	$(BIN)/summarizer demo --dir examples/demo

test: $(DEV_STAMP)
	$(BIN)/python -m pytest -m "not slow"

# Browser tests (tests/browser.py) skip with a hint when Chromium or MathJax is missing,
# and fail under CI=true; .ci/run calls browser-deps first.
test-all: $(DEV_STAMP)
	$(BIN)/python -m pytest

# Debian's chromium (Playwright's own browser download cannot work offline); MathJax comes with the
# package (django-static-mathjax), and fonts-noto-cjk draws the pages' Chinese in screenshots.
browser-deps:
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)
	test -d /usr/share/fonts/opentype/noto || (apt-get update -qq && apt-get install -y -qq fonts-noto-cjk)

lint: $(DEV_STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy

bench: $(DEV_STAMP)
	$(BIN)/python benchmarks/bench.py

clean:
	rm -rf $(VENV) cache outputs examples/demo/cache examples/demo/outputs summarizer-demo
