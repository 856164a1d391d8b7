# Integrator Lab: `make serve` (the dashboard on http://127.0.0.1:8050), `make test`, `make lint`.
# Plain POSIX make. Everything runs in ./.venv, (re)installed only when pyproject.toml changes.
.POSIX:

PYTHON = python3
VENV = .venv
BIN = $(VENV)/bin
HOST = 127.0.0.1
PORT = 8050
PYTEST_FLAGS = -q -n 2 --dist loadgroup
CHROMIUM = /usr/bin/chromium

serve: $(VENV)/.installed
	$(BIN)/python -m solvers warmup
	$(BIN)/gunicorn -c app/gunicorn_conf.py --bind $(HOST):$(PORT) app:server

test: $(VENV)/.installed chromium
	$(BIN)/python -m solvers warmup
	$(BIN)/python -m pytest $(PYTEST_FLAGS)

lint: $(VENV)/.installed
	$(BIN)/ruff check .

# The stamp is newer than pyproject.toml once the install from it has succeeded.
$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -e ".[test]"
	touch $(VENV)/.installed

# Debian chromium for the browser tests (Playwright drives it; no browser download).
chromium:
	@if [ -x $(CHROMIUM) ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing Debian chromium and chromium-driver for the browser tests"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver; \
	else \
		echo "NOTE: $(CHROMIUM) is missing and only root can install it (apt-get install chromium chromium-driver)."; \
		echo "      The browser tests will be skipped (and fail when CI=true)."; \
	fi

.PHONY: serve test lint chromium
