# The project's verbs. Each one creates .venv and installs the pinned
# dependencies itself, so a fresh machine needs only Python (and Node.js/npm).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed-stamp
PIP_INSTALL := $(BIN)/pip install --quiet --disable-pip-version-check
# The pinned packages are installed by uv (itself pinned, installed first by pip): the same versions
# as pip would install, but fetched in parallel, in seconds where pip took minutes.
UV_INSTALL := $(BIN)/uv pip install --quiet --python $(PY)

.PHONY: all venv node-modules ts-build generate check-generated check-compat lint test demo bench conformance-http clean

all: test

$(STAMP): pyproject.toml requirements/dev.txt requirements/dev-nodeps.txt requirements/constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) -c requirements/constraints.txt uv
	$(UV_INSTALL) -c requirements/constraints.txt -r requirements/dev.txt -e '.[agent,http,conformance,dask,dataframe,langchain,mcp,otel]'
	$(UV_INSTALL) --no-deps -c requirements/constraints.txt -r requirements/dev-nodeps.txt
	touch $(STAMP)

venv: $(STAMP)

# npm development packages (TypeScript generator, ajv), exactly as package-lock.json pins them.
NPM_STAMP := node_modules/.installed-stamp

$(NPM_STAMP): package.json package-lock.json packages/typescript/package.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NPM_STAMP)

node-modules: $(NPM_STAMP)

# The TypeScript package (npm: toolresponse), compiled by tsc into packages/typescript/dist.
TS_PACKAGE := packages/typescript
TS_BUILD := $(TS_PACKAGE)/dist/index.js

$(TS_BUILD): $(NPM_STAMP) $(TS_PACKAGE)/package.json $(TS_PACKAGE)/tsconfig.json $(shell find $(TS_PACKAGE)/src -name '*.ts')
	rm -rf $(TS_PACKAGE)/dist
	node_modules/.bin/tsc -p $(TS_PACKAGE)

## ts-build: compile the TypeScript package
ts-build: $(TS_BUILD)

## generate: write everything derived from schema/v1 (models, metadata, bundle, doc tables, TypeScript sources)
generate: $(STAMP) $(NPM_STAMP)
	$(PY) codegen/generate.py
	node codegen/typescript.mjs

## check-generated: fail with a diff if generated files are stale
check-generated: $(STAMP) $(NPM_STAMP)
	$(PY) codegen/generate.py --check
	node codegen/typescript.mjs --check

## lint: ruff, mypy --strict over the hand-written code, the layer contracts (import-linter), no function of radon grade D or worse, and prettier over the TypeScript package
lint: $(STAMP) $(NPM_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache
	@complex="$$($(BIN)/radon cc --min D --show-complexity runtime/toolresponse)"; \
	  if [ -n "$$complex" ]; then echo "radon: functions of grade D or worse:"; echo "$$complex"; exit 1; fi
	@long="$$(find runtime/toolresponse -name '*.py' -exec awk 'FNR == 601 { print FILENAME }' {} +)"; \
	  if [ -n "$$long" ]; then echo "modules over 600 lines:"; echo "$$long"; exit 1; fi
	node_modules/.bin/prettier --check $(TS_PACKAGE)/src $(TS_PACKAGE)/test $(TS_PACKAGE)/*.json

## check-compat: every change of schema/v1 since the released baseline, classified; only compatible ones pass
BASELINE := schema/baseline/v1.0.0
check-compat: $(STAMP)
	$(BIN)/toolresponse schema diff $(BASELINE) schema/v1 --fail-on behaviour

# pytest-xdist's workers for `make test`; each takes whole test files (--dist loadfile), so that a
# module's costly fixtures (a Dask cluster, a server, a Node process) start once, in one worker.
# The workers share one hash seed, random per run and printed, so that they collect the same ids.
PYTEST_WORKERS ?= 2

## test: drift checks, lint, the TypeScript package's tests (node --test) and the whole Python suite
test: check-generated check-compat lint $(TS_BUILD)
	node --test $(TS_PACKAGE)/test/*.test.mjs
	@seed=$$($(PY) -c 'import random; print(random.randint(1, 2**32 - 1))'); \
	  echo "PYTHONHASHSEED=$$seed $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile"; \
	  PYTHONHASHSEED=$$seed $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile

## demo: the project's demos, with nothing configured
demo: $(STAMP)
	$(BIN)/toolresponse demo

## bench: the benchmarks (figures printed, never asserted)
bench: $(STAMP)
	$(PY) benchmarks/registry_overhead.py
	$(PY) benchmarks/validate_throughput.py
	$(PY) benchmarks/otel_overhead.py --timer cpu
	$(PY) benchmarks/mcp_roundtrip.py
	$(PY) benchmarks/scale_throughput.py

## conformance-http: serve the demo registry and run the HTTP conformance suite against it
conformance-http: $(STAMP)
	@fifo=$$(mktemp -u) && mkfifo $$fifo && \
	{ $(BIN)/toolresponse serve toolresponse.demo.calculator:build_registry --port 0 --log-level warning > $$fifo & pid=$$!; } && \
	read url < $$fifo && rm -f $$fifo && \
	$(BIN)/toolresponse conformance "$$url"; status=$$?; kill $$pid; wait $$pid; exit $$status

clean:
	rm -rf $(VENV) node_modules build dist $(TS_PACKAGE)/dist .mypy_cache .pytest_cache .ruff_cache
