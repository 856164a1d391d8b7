# Integrator Lab dashboard: docker build -t integrator-lab . && docker run -p 8050:8050 integrator-lab
# Installs and serves exactly as `make serve` does (same pip install, same gunicorn settings file). The same
# image runs the Celery worker: see compose.yaml (`celery -A app.worker:celery_app worker`).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    INTEGRATOR_LAB_CACHE_DIR=/var/cache/integrator-lab/app \
    NUMBA_CACHE_DIR=/var/cache/integrator-lab/numba

RUN useradd --create-home --uid 10001 --gid 0 lab \
    && mkdir -p "$INTEGRATOR_LAB_CACHE_DIR" "$NUMBA_CACHE_DIR" \
    && chown -R lab:0 /var/cache/integrator-lab

WORKDIR /srv/integrator-lab
COPY pyproject.toml README.md ./
COPY solvers ./solvers
COPY app ./app
COPY assets ./assets
RUN pip install -e ".[celery]"

USER lab
# Compile every numba kernel into NUMBA_CACHE_DIR now, not on the first request, and store every benchmark's
# default reference beside the run cache (a first Run's error chart then computes none). Then give group 0 the
# owner's rights on the caches, so the image also runs under an arbitrary UID in group 0 (OpenShift: --user 4242:0).
RUN python -m solvers warmup && python -m app.warm --references && chmod -R g=u /var/cache/integrator-lab

EXPOSE 8050
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8050/healthz', timeout=4)"]
# Set INTEGRATOR_LAB_SECRET_KEY when running several containers behind one address; mount a volume on
# /var/cache/integrator-lab/app to keep cached results across restarts. Read-only root file system:
#   docker run --read-only --tmpfs /tmp -v results:/var/cache/integrator-lab/app -p 8050:8050 integrator-lab
# (the build-time kernels are then copied once into /tmp and loaded from there: solvers/_numba_cache.py).
CMD ["gunicorn", "-c", "app/gunicorn_conf.py", "--bind", "0.0.0.0:8050", "app:server"]
