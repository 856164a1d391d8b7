# Integrator Lab: `make serve` (the dashboard on http://127.0.0.1:8050), `make test`, `make lint`.
# Plain POSIX make. Everything runs in ./.venv, (re)installed only when pyproject.toml changes.
.POSIX:

PYTHON = python3
VENV = .venv
BIN = $(VENV)/bin
HOST = 127.0.0.1
PORT = 8050
PYTEST_FLAGS = -q -n 2 --dist loadgroup --durations=30
CHROMIUM = /usr/bin/chromium-headless-shell

# serve: the page answers at once; on a fresh clone the kernels compile in the background (app/gunicorn_conf.py)
serve: bytecode
	$(BIN)/gunicorn -c app/gunicorn_conf.py --bind $(HOST):$(PORT) app:server

# The venv and the Debian packages at once: one waits on the package index and the disk, the other on apt and dpkg
test:
	$(MAKE) -j 2 bytecode chromium
	$(BIN)/python -m solvers warmup --jobs 2
	$(BIN)/python -m pytest $(PYTEST_FLAGS)

lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/python -m mypy

# The stamp is newer than pyproject.toml once the install from it has succeeded. uv (PyPI's uv, put into the venv by
# pip) installs the same requirements as pip, byte-compiled as pip does, in a third of the time (docs/performance.md,
# "make test: where its time goes"); plain pip where uv cannot be had or fails.
$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	{ $(BIN)/python -m pip install -q uv \
		&& $(BIN)/python -m uv pip install --compile-bytecode --python $(BIN)/python -e ".[test]"; } \
		|| $(BIN)/python -m pip install -e ".[test]"
	touch $(VENV)/.installed

# The project's own sources byte-compiled once (about a second; only changed files after that). Where the
# environment sets PYTHONDONTWRITEBYTECODE, as this workplace's machines do, every Python process (test servers,
# their side processes, CLI runs) would otherwise compile them again on import: about 0.7 s of CPU each.
bytecode: $(VENV)/.installed
	$(BIN)/python -m compileall -q -j 0 solvers app tests scripts > /dev/null

# Debian's chromium-headless-shell for the browser tests (Playwright drives it; no browser download; the
# headless-only build: a quarter less CPU per page load than the full chromium) and redis-server for the
# Celery tests (tests/test_celery.py starts its own on loopback).
chromium:
	@missing=""; \
	[ -x $(CHROMIUM) ] || missing="$$missing chromium-headless-shell"; \
	command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ] || missing="$$missing redis-server"; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing Debian packages for the browser and Celery tests:$$missing"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; \
	else \
		echo "NOTE: missing$$missing; only root can install them (apt-get install$$missing)."; \
		echo "      The browser/Celery tests will be skipped (and fail when CI=true)."; \
	fi

.PHONY: serve test lint chromium bytecode
