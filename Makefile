# The two commands a newcomer needs: `make dev` and `make test`. Everything else is a helper.
PYTHON ?= $(shell scripts/find-python)
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
STAMP := $(VENV)/.installed
# The dev console's browser tests drive Debian's Chromium (Playwright's download is not used).
CHROMIUM ?= /usr/bin/chromium
# The integration tests reach Postgres through PgBouncer in transaction mode, as the functions
# reach Aurora through RDS Proxy (Debian puts it in /usr/sbin, often not on a user's PATH).
PGBOUNCER ?= $(shell command -v pgbouncer || echo /usr/sbin/pgbouncer)
# Deployment tools (SAM CLI, cfn-lint) live in their own venv: their pins would fight the app's.
TOOLS := .venv-tools
TOOLS_STAMP := $(TOOLS)/.installed
export SAM_CLI_TELEMETRY := 0

.PHONY: install tools dev reset-demo test test-slow lint lint-imports lint-template typecheck build unit \
	stop-db clean chromium node pgbouncer build-CommonLayer build-ModelLayer build-EmbeddingLayer build-McpLayer

$(STAMP): pyproject.toml layers/common/requirements.txt layers/model/requirements.txt layers/embedding/requirements.txt layers/mcp/requirements.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

$(TOOLS_STAMP): requirements-tools.txt
	@test -x $(TOOLS)/bin/python || $(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/python -m pip install --quiet --upgrade pip
	$(TOOLS)/bin/python -m pip install --quiet -r requirements-tools.txt
	@touch $(TOOLS_STAMP)

tools: $(TOOLS_STAMP)

dev: install
	$(BIN)/spotter dev --port $(PORT)

# The demo gyms back as a first seed leaves them today (whatever a demo cancelled, booked or said
# is gone); `make dev` may keep running.
reset-demo: install
	$(BIN)/spotter seed-demo --reset

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

# The import graph: arrows point down (http → agent → tools → domain → db), no package holds a
# cycle (contracts in pyproject.toml, [tool.importlinter]).
lint-imports: install
	$(BIN)/lint-imports

lint-template: tools
	$(TOOLS)/bin/cfn-lint template.yaml
	$(TOOLS)/bin/sam validate --lint

# The tests need the tools venv too: tests/deploy runs `sam build` (cached) and checks artifacts.
# The browser tests share one server and one Chromium: `loadgroup` keeps them on one worker.
test: chromium node pgbouncer lint typecheck lint-imports lint-template
	CHROMIUM=$(CHROMIUM) PGBOUNCER=$(PGBOUNCER) $(BIN)/pytest -n 2 --dist loadgroup

chromium:
	@test -x "$(CHROMIUM)" || { echo "make test needs Chromium at $(CHROMIUM) for the browser tests: apt-get install -y chromium (or CHROMIUM=/path/to/chromium make test)"; exit 1; }

# The AI SDK tests run the example's pinned npm packages (installed once per lockfile into
# ~/.cache/spotter) and bundle its page with esbuild.
node:
	@command -v node >/dev/null && command -v npm >/dev/null || { echo "make test needs Node.js 20+ and npm for the AI SDK tests: apt-get install -y nodejs npm"; exit 1; }

pgbouncer:
	@test -x "$(PGBOUNCER)" || { echo "make test needs PgBouncer (the tests' transaction-pooling proxy, as RDS Proxy is in production): apt-get install -y pgbouncer, brew install pgbouncer (or PGBOUNCER=/path/to/pgbouncer make test)"; exit 1; }

# What `make test` leaves out for time (tests marked `slow`): schemathesis over the OpenAPI,
# bounded per operation. CI runs both.
test-slow: install pgbouncer
	PGBOUNCER=$(PGBOUNCER) $(BIN)/pytest -m slow -q

# Pure-logic tests only: no Postgres, no SAM; seconds, for the edit-run loop.
unit: install
	$(BIN)/pytest tests/unit -q

# `sam build` without a container needs python3.12 on PATH: the interpreter find-python found.
# Its cache is keyed on each layer's folder, not on layers/build.py: a newer script drops it,
# and so does a newer MCP lock (the common layer writes the MCP tool lists with that SDK).
build: tools
	@if [ layers/build.py -nt .aws-sam/cache/.layer-script ] \
		|| [ layers/mcp/requirements.lock -nt .aws-sam/cache/.layer-script ]; then \
		rm -rf .aws-sam/cache; fi
	PATH="$(dir $(PYTHON)):$$PATH" $(TOOLS)/bin/sam build
	@touch .aws-sam/cache/.layer-script

# The layers' BuildMethod is makefile: `sam build` runs these in a copy of the layer's folder
# (ContentUri), with ARTIFACTS_DIR the layer's build output. layers/build.py says what they do.
LAYER_BUILD = "$(shell "$(ROOT)scripts/find-python")" "$(ROOT)layers/build.py" . "$(ARTIFACTS_DIR)"
ROOT := $(dir $(abspath $(firstword $(MAKEFILE_LIST))))

build-CommonLayer build-ModelLayer build-EmbeddingLayer build-McpLayer:
	$(LAYER_BUILD)

stop-db: install
	$(BIN)/spotter stop-db

clean:
	rm -rf $(VENV) $(TOOLS) .aws-sam .spotter .mypy_cache .ruff_cache .pytest_cache
