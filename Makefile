# hetdp — two commands do everything: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed
TSTAMP := $(VENV)/.installed-test
PORT   ?= 8501

.PHONY: docs run dev serve test test-fast lint format bench bench-live load install install-test chromium nginx postgresql clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PIP) install --quiet -e .
	touch $@

DSTAMP := $(VENV)/.installed-docs
$(DSTAMP): pyproject.toml $(STAMP)
	$(PIP) install --quiet -e '.[docs]'
	touch $@

# the documentation site from docs/ (MkDocs + Material, strict: a warning is an error) into build/site/;
# it opens from disk, offline. `make run` does not need it.
docs: $(DSTAMP)
	$(PY) -m hetdp_ui.docsite --out build/site

$(TSTAMP): pyproject.toml $(STAMP)
	$(PIP) install --quiet -e '.[test]'
	touch $@

install: $(STAMP)
install-test: $(TSTAMP)

# Debian's nginx for `make serve` (several workers behind a reverse proxy)
nginx:
	@if [ ! -x /usr/sbin/nginx ]; then \
	  echo "installing Debian nginx-light"; \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO="sudo"; \
	  $$SUDO apt-get update -q && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx-light; \
	fi

# Debian's Chromium for the browser tests (no browser download from the test tool).
chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
	  echo "installing Debian chromium"; \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO="sudo"; \
	  $$SUDO apt-get update -q && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; \
	fi

# Debian's PostgreSQL server binaries for the class-database tests (the suite starts its own server with
# pg_ctl in a temporary folder; no system service is used or needed)
postgresql:
	@if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then \
	  echo "installing Debian postgresql"; \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO="sudo"; \
	  $$SUDO apt-get update -q && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql; \
	fi

# production settings come from .streamlit/config.toml (no file watcher, no run-on-save); hetdp_ui.launch
# is `streamlit run` after importing what the pages import, so a fresh server's first visitors do not wait
run: $(STAMP)
	$(PY) -m hetdp_ui.launch run app.py --server.port $(PORT)

# k Streamlit workers behind nginx with sticky sessions and a result cache shared on disk
WORKERS ?= 2
serve: $(STAMP) nginx
	$(PY) -m hetdp_ui.serve --workers $(WORKERS) --port $(PORT)

# development: reload pages when a source file changes
dev: $(STAMP)
	$(PY) -m hetdp_ui.launch run app.py --server.port $(PORT) --server.fileWatcherType auto --server.runOnSave true \
	  --client.showErrorDetails full

# two worker processes (pytest-xdist), a test file stays on one worker (its module fixtures, e.g. a
# browser server, are set up once); the slowest tests are printed
test: $(TSTAMP) chromium nginx postgresql lint
	$(PY) -m pytest -q -p no:cacheprovider -n 2 --dist loadfile --durations=15

# ruff: lint and format check (pyproject's [tool.ruff]); `make format` rewrites
lint: $(TSTAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

format: $(TSTAMP)
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

# everything but the real-browser tests (quick local loop)
test-fast: $(TSTAMP)
	$(PY) -m pytest -q -p no:cacheprovider -m "not browser"

# byte-compiled first, as an installed package is (otherwise every CLI start compiles our modules);
# the first-chart timings drive Chromium (test extras: Playwright), `--no-browser` skips them
bench: $(TSTAMP) chromium
	$(PY) -m compileall -q hetdp_core hetdp_ui
	$(PY) benchmarks/run.py

# the Must-show ratios of a live page in one run and one command (slider steps, first answers and first
# charts against a bare Streamlit page, a solve against its view, the simulations against the RNG floor):
# records benchmarks/recorded/live.json and rewrites its tables in docs/benchmarks.md and README.md
bench-live: $(TSTAMP) chromium
	$(PY) -m compileall -q hetdp_core hetdp_ui
	$(PY) benchmarks/live.py --record

# N virtual users speaking Streamlit's websocket protocol against a production-settings server,
# then the long fault runs (kill workers under load, 40 heavy users, a corrupted shared cache), then a
# class of 200 students through two workers on SQLite and PostgreSQL with its faults (a killed worker,
# a PostgreSQL restart, a full disk under the SQLite file: a tmpfs, so run as root)
load: $(STAMP) nginx postgresql
	$(PY) benchmarks/load.py
	$(PY) benchmarks/load.py --workers 1
	$(PY) benchmarks/load.py --workers 2
	$(PY) benchmarks/faults.py
	$(PY) benchmarks/class_load.py

clean:
	rm -rf $(VENV) tests/artifacts .pytest_cache
