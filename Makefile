# rulecraft: `make run` runs the main job on the bundled rulesets, `make test` runs the tests.
# Both first run `make setup`: a virtual environment in .venv with the project installed in
# editable mode (re-installed only when pyproject.toml changes), and Graphviz's `dot`.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
RC     := $(VENV)/bin/rulecraft
STAMP  := $(VENV)/.installed

# sudo only when we are not root and sudo exists
SUDO := $(shell if [ "$$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then echo sudo; fi)

.PHONY: run test setup graphviz clean

run: setup
	@echo "== bundled rulesets"
	@$(RC) list
	@echo "== validate every bundled ruleset"
	@$(RC) validate $$($(RC) list --names)
	@# ------------------------------------------------------------------------------
	@# LATER ISSUES ADD THEIR STEPS HERE, e.g.
	@#   @mkdir -p out
	@#   @$(RC) sheets dml -o out/dml-sheets.pdf
	@#   @$(RC) play dml --seed 1
	@# ------------------------------------------------------------------------------

test: setup
	@$(PY) -m pytest

setup: $(STAMP) graphviz

$(PY):
	@echo "== creating $(VENV) with $(PYTHON)"
	@$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	@echo "== installing rulecraft (editable, with test extras) into $(VENV)"
	@$(PY) -m pip install -q --disable-pip-version-check -e '.[test]'
	@touch $@

graphviz:
	@if ! command -v dot >/dev/null 2>&1; then \
		echo "== installing Graphviz (dot)"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null; \
	fi
	@command -v dot >/dev/null 2>&1 || { echo "Graphviz's 'dot' is missing: install the graphviz package" >&2; exit 1; }

clean:
	rm -rf $(VENV) out build dist *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
