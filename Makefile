# rulecraft: `make run` runs the main job on the bundled rulesets, `make test` runs the tests.
# Both first run `make setup`: a virtual environment in .venv with the project installed in
# editable mode (re-installed only when pyproject.toml changes), Graphviz's `dot`, the printed font
# (Liberation Sans, fonts-liberation), Chromium and poppler-utils, and (when npm is there)
# yaml-language-server in .venv/node for the editor test. `make test` runs the suite on every core
# (pytest-xdist), after `make lint` (ruff and mypy).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
RC     := $(VENV)/bin/rulecraft
STAMP  := $(VENV)/.installed

# sudo only when we are not root and sudo exists
SUDO := $(shell if [ "$$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then echo sudo; fi)

YLS    := $(VENV)/node/node_modules/yaml-language-server/bin/yaml-language-server

.PHONY: run test lint setup tables bytecode graphviz fonts editor-tools chromium bench-setup studio-assets clean

run: setup
	@echo "== bundled rulesets"
	@$(RC) list
	@echo "== validate every bundled ruleset"
	@$(RC) validate $$($(RC) list --names)
	@mkdir -p out
	@echo "== a seeded game of DML with four random bots (the whole story: out/dml-seed1.txt)"
	@$(RC) play dml --seed 1 --log out/dml-seed1.log > out/dml-seed1.txt
	@tail -n 8 out/dml-seed1.txt
	@echo "== replay its log and check it gives the same game"
	@$(RC) replay out/dml-seed1.log
	@echo "== printable sequence sheets and the rules as a page"
	@$(RC) sheets dml -o out/dml-sheets.pdf
	@$(RC) book dml -o out/dml-rules.html
	@if command -v chromium >/dev/null 2>&1; then $(RC) aid dml -o out/dml-aid.pdf; fi
	@echo "   out/dml-sheets.pdf, out/dml-rules.html, out/dml-aid.pdf"

# -n auto: one test process per core and one more (tests/conftest.py: a sixth of the suite waits on other processes);
# --dist loadfile keeps a file's tests in one
# process, so a module-level fixture (a loaded ruleset, a printed PDF) is made once, not per process;
# --no-loadscope-reorder hands the files out in the order collected, the longest first (tests/conftest.py, LONGEST),
# not by their number of tests; -rs says why each skipped test skipped (no Chromium for the studio's browser tests, no
# npm for the editor test). PYTHONDONTWRITEBYTECODE is dropped for pytest alone: each worker rewrites the asserts of
# every test file it collects (about 8 s of CPU a worker), and kept in tests/__pycache__ they are read back, not
# rewritten, on the next run (as `make bytecode` keeps the engine's compiled modules). On a fresh checkout nothing is
# kept yet, and every worker would rewrite every file at once: the files with no rewritten copy are collected once
# (pytest --collect-only, which writes them) while lint runs, on the core mypy (one process) leaves idle
test: setup
	@fresh=$$(for f in tests/conftest.py tests/test_*.py; do b=$${f#tests/}; \
		ls tests/__pycache__/$${b%.py}.*-pytest-*.pyc >/dev/null 2>&1 || echo $$f; done); \
	if [ -n "$$fresh" ]; then env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest --collect-only -q -p no:xdist \
		-p no:cacheprovider $$fresh >/dev/null 2>&1 & fi; \
	$(MAKE) --no-print-directory lint; status=$$?; wait; exit $$status
	@env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -n auto --dist loadfile --no-loadscope-reorder -rs

# ruff (mistakes: unused and undefined names, late-bound loop variables, bare except...) and mypy (the types of the
# engine's running layers), configured in pyproject.toml; run before the tests, so a finding fails at once with its
# file:line, not after the suite. mypy keeps its cache in .mypy_cache: a second run reads only the files changed.
lint: $(STAMP)
	@$(VENV)/bin/ruff check --quiet .
	@$(VENV)/bin/mypy

setup: $(STAMP) bytecode graphviz fonts editor-tools chromium

$(PY):
	@echo "== creating $(VENV) with $(PYTHON)"
	@$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	@echo "== installing rulecraft (editable, with test extras) into $(VENV)"
	@$(PY) -m pip install -q --disable-pip-version-check -e '.[test]'
	@touch $@

# the parser's tables, shipped with the package (interpreter/dsl/grammar.*.json): run after editing grammar.lark
# (tests/test_parser_cache.py says when they are stale)
tables: setup
	$(PY) -m rulecraft.dsl.parser

# Python's compiled modules, as an installed package has them (pip compiles them at install; an editable install
# does not, and where PYTHONDONTWRITEBYTECODE is set every command would compile the engine's modules again): only
# the modules changed since the last run are compiled
bytecode: $(STAMP)
	@$(PY) -m compileall -q -j 0 interpreter tools rulesets >/dev/null

graphviz:
	@if ! command -v dot >/dev/null 2>&1; then \
		echo "== installing Graphviz (dot)"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null; \
	fi
	@command -v dot >/dev/null 2>&1 || { echo "Graphviz's 'dot' is missing: install the graphviz package" >&2; exit 1; }

# The printed font is a decision (tools/chart/legend.py): Liberation Sans, embedded in every PDF.
# Without it fontconfig would pick whatever it maps the name to, and the sheets would differ by machine.
fonts:
	@if ! fc-list 2>/dev/null | grep -q "Liberation Sans"; then \
		echo "== installing the printed font (fonts-liberation: Liberation Sans)"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-liberation fontconfig >/dev/null; \
	fi
	@fc-list 2>/dev/null | grep -q "Liberation Sans" || { echo "the font Liberation Sans is missing: install the fonts-liberation package" >&2; exit 1; }

# yaml-language-server, for the test of what an editor shows with our schema (tests/test_yaml_language_server.py);
# project-local, and optional: without npm the test skips and says so
editor-tools:
	@if [ ! -e $(YLS) ] && command -v npm >/dev/null 2>&1; then \
		echo "== installing yaml-language-server into $(VENV)/node (npm)"; \
		npm install --prefix $(VENV)/node --no-audit --no-fund --silent yaml-language-server@1 >/dev/null 2>&1 \
			|| echo "   (npm install failed: the yaml-language-server test will skip)"; \
	fi

# Headless Chromium prints the player aid and the book as PDF (CSS columns and page breaks as a
# reader sees them), and the studio's browser tests run in it (Playwright, installed by pip with the test
# extras, drives this Chromium: its own browser download is not used); poppler-utils gives pdftoppm to look at
# printed pages. Optional: without Chromium, 'aid' and 'book -o x.pdf' refuse with a hint and the studio's
# browser tests skip, saying why; everything else works.
chromium:
	@if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 \
		&& ! command -v google-chrome >/dev/null 2>&1; then \
		echo "== installing Chromium (prints the player aid and the book as PDF)"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium poppler-utils >/dev/null \
		|| echo "   could not install chromium: 'rulecraft aid' and 'book -o FILE.pdf' need it" >&2; \
	fi

# The studio's page (tools/studio/static/studio.js and studio.css) from its sources in tools/studio/web: CodeMirror 6
# and its packages at the versions package-lock.json pins, bundled by esbuild. The built files are committed (pip
# install needs no npm); tests/test_studio_server.py fails when they are older than their sources.
studio-assets:
	@cd tools/studio/web && npm ci --no-audit --no-fund --silent && node build.mjs
	@echo "   tools/studio/static/studio.js, studio.css, sources.sha256"

# valgrind, for benchmarks/bench_instructions.py (instructions per game under cachegrind: the figure that
# decides speed questions on a shared machine, where wall-clock swings 10-40%)
bench-setup: $(STAMP)
	@if ! command -v valgrind >/dev/null 2>&1; then \
		echo "== installing valgrind (benchmarks/bench_instructions.py)"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null; \
	fi
	@command -v valgrind >/dev/null 2>&1 || { echo "valgrind is missing: install the valgrind package" >&2; exit 1; }

clean:
	rm -rf $(VENV) out build dist *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
