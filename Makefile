# hetdp — two commands do everything: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed
TSTAMP := $(VENV)/.installed-test
PORT   ?= 8501

.PHONY: docs run dev serve test check test-fast lint format bench bench-live load load-rush install install-test chromium nginx postgresql clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# an editable install of mapped folders (pyproject's package-dir) goes through setuptools' import finder, which
# says so in a note on every install; the note is silenced, any other warning of the build still shows
QUIET  := PYTHONWARNINGS="ignore:Editable installation"

# our modules byte-compiled, as an installed package's are: with PYTHONDONTWRITEBYTECODE set (CI images set
# it) every Python process would compile them again — about 0.7 s of each server, `hetdp` call and notebook
# kernel the suite starts; compileall only rewrites what changed
COMPILE := $(PY) -m compileall -q hetdp_core hetdp_ui pages benchmarks

# pytest keeps its assertion-rewritten test modules as .pyc files beside them (tests/__pycache__, git-ignored)
# only when Python may write bytecode: with PYTHONDONTWRITEBYTECODE set, each worker rewrote all 200 test
# modules at every run (collection 15 s a worker here, 7 s with them kept)
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest

$(STAMP): pyproject.toml | $(PY)
	$(QUIET) $(PIP) install --quiet -e .
	touch $@

DSTAMP := $(VENV)/.installed-docs
$(DSTAMP): pyproject.toml $(STAMP)
	$(QUIET) $(PIP) install --quiet -e '.[docs]'
	touch $@

# the documentation site from docs/ (MkDocs + Material, strict: a warning is an error) into build/site/;
# it opens from disk, offline, search included (Material's offline plugin; the iframe-worker shim it needs
# comes from the npm registry once, with npm, into build/npm/). `make run` does not need it.
docs: $(DSTAMP)
	$(PY) -m hetdp_ui.docsite --out build/site

$(TSTAMP): pyproject.toml $(STAMP)
	$(QUIET) $(PIP) install --quiet -e '.[test]'
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
	$(COMPILE)
	$(PY) -m hetdp_ui.launch run app.py --server.port $(PORT)

# k Streamlit workers behind nginx with sticky sessions and a result cache shared on disk; UPSTREAMS="h:p …"
# joins workers that another machine serves (its WORKER_HOST), all machines on one PostgreSQL (docs/operations.md)
WORKERS ?= 2
UPSTREAMS ?=
WORKER_HOST ?= 127.0.0.1
serve: $(STAMP) nginx
	$(PY) -m hetdp_ui.serve --workers $(WORKERS) --port $(PORT) --worker-host $(WORKER_HOST) \
	  $(foreach u,$(UPSTREAMS),--upstream $(u))

# development: reload pages when a source file changes
dev: $(STAMP)
	$(PY) -m hetdp_ui.launch run app.py --server.port $(PORT) --server.fileWatcherType auto --server.runOnSave true \
	  --client.showErrorDetails full

# everything, as CI runs it: two worker processes (pytest-xdist) taking one test at a time, the browser and
# slow tests first (three workers used the tenth of the cores' time that idles while browser tests wait, for
# no measurable gain: kept at two); a file that shares a server, cluster or build keeps its tests on one worker
# (tests/conftest.py: TOGETHER; each worker starts one Streamlit server for all its browser tests).
# The slowest tests are printed
test: $(TSTAMP) chromium nginx postgresql lint
	$(COMPILE)
	$(PYTEST) -q -p no:cacheprovider -n 2 --dist loadgroup --durations=25

# for every change (under 2 minutes): lint, then the unit, property, statistical and AppTest tests —
# no real browser, none marked slow (tests/conftest.py: SLOW; `make test` runs them)
check: $(TSTAMP) lint
	$(COMPILE)
	$(PYTEST) -q -p no:cacheprovider -n 2 --dist loadgroup -m "not browser and not slow" --durations=10

# ruff: lint and format check (pyproject's [tool.ruff]); `make format` rewrites
lint: $(TSTAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

format: $(TSTAMP)
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

# everything but the real-browser tests (quick local loop)
test-fast: $(TSTAMP)
	$(PYTEST) -q -p no:cacheprovider -m "not browser"

# byte-compiled first, as an installed package is (otherwise every CLI start compiles our modules);
# the first-chart timings drive Chromium (test extras: Playwright), `--no-browser` skips them
bench: $(TSTAMP) chromium
	$(COMPILE)
	$(PY) benchmarks/run.py

# the Must-show ratios of a live page in one run and one command (slider steps, first answers and first
# charts against a bare Streamlit page, a solve against its view, the simulations against the RNG floor):
# records benchmarks/recorded/live.json and rewrites its tables in docs/benchmarks.md and README.md
bench-live: $(TSTAMP) chromium
	$(COMPILE)
	$(PY) benchmarks/live.py --record

# N virtual users speaking Streamlit's websocket protocol against a production-settings server,
# then the long fault runs (kill workers under load, 40 heavy users, a corrupted shared cache), clicks
# lost inside Streamlit with and without hetdp's fix (80 clicks each, cores busy), then a
# class of 200 students through two workers on SQLite and PostgreSQL with its faults (a killed worker,
# a PostgreSQL restart, a full disk under the SQLite file: a tmpfs, so run as root), then the rush
load: $(STAMP) nginx postgresql
	$(PY) benchmarks/load.py
	$(PY) benchmarks/load.py --workers 1
	$(PY) benchmarks/load.py --workers 2
	$(PY) benchmarks/faults.py
	$(PY) benchmarks/lost_clicks.py
	$(PY) benchmarks/class_load.py
	$(MAKE) --no-print-directory load-rush

# a class in a rush: 300 students arriving in 10 s and thinking 1-4 s, a worker killed, on SQLite and
# PostgreSQL; then the same across two `make serve` instances on one PostgreSQL, one of them killed
# (recorded in docs/benchmarks.md, the capacity in docs/operations.md; about 10 minutes on 2 cores)
load-rush: $(STAMP) nginx postgresql
	$(PY) benchmarks/class_load.py --scenario rush; rush=$$?; \
	  $(PY) benchmarks/class_load.py --scenario two-machines && exit $$rush

clean:
	rm -rf $(VENV) tests/artifacts .pytest_cache
