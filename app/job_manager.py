"""The Dash background-callback manager of the pages' jobs (app.background is their one job helper): Celery with
``REDIS_URL``, else diskcache with admission in the web process before a job forks. Apart from app.config so that
the settings module imports no job plumbing (app.background reads the settings)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def background_manager(directory: Path, cache_by: list):
    """The Dash background-callback manager.

    With ``REDIS_URL`` set: Dash's CeleryManager (with the set_props fix, app.celery_support) on a Celery app
    whose workers run ``celery -A app.worker:celery_app worker``; the workers must share the cache directory
    (the per-run result cache lives there). Otherwise: diskcache in a fixed directory shared by all workers.
    ``cache_by``: zero-argument functions whose values join the cache key of every job (see code_version).
    """
    from app import celery_support

    url = celery_support.redis_url()
    if url:
        return celery_support.celery_manager(celery_support.make_celery(url), cache_by=cache_by)
    import diskcache

    return _diskcache_manager()(diskcache.Cache(str(directory / "jobs")), cache_by=cache_by)


def _diskcache_manager():
    """Dash's DiskcacheManager with a ``terminate_job`` that does not stall every other job.

    Dash 4.4's version kills the job inside a transaction of the shared job store (an exclusive SQLite lock
    for every process) and then waits up to 1 s for the process to vanish; a job forked by another gunicorn
    worker stays a zombie of that worker, so the wait always runs out, and all progress and result writes of
    all jobs wait behind it: 30 simultaneous jobs took 30 s to come back. Here the job and its children are
    killed without the lock and only a child of this process is waited for (reaped); the zombie of another
    worker is reaped by that worker (when it starts its next job), as with Dash's version.
    """
    import psutil
    from dash import DiskcacheManager

    class Manager(DiskcacheManager):
        def call_job_fn(self, key, job_fn, args, context):
            """Admit the job's request in the web process before forking (app.background.admit): a request
            over its session's or address's cap, edited, expired or replayed gets its refusal from the job's
            own function run here, at once, and no process (job id 0); an admitted one is forked holding the
            slots taken here (the child inherits the lock files; the parent closes its copies)."""
            from multiprocess import Process

            from app import background, limits

            request = background.find_request(args)
            progress_key = self._make_progress_key(key)
            try:
                token, held = background.admit(request)
            except limits.LimitError as exc:
                marker = background.ADMITTED.set(exc)
                try:
                    job_fn(key, progress_key, args, context)  # page_job raises exc: the page's refusal
                finally:
                    background.ADMITTED.reset(marker)
                return 0
            try:
                process = Process(target=_admitted_job, args=(token, job_fn, key, progress_key, args, context))
                process.start()
            finally:
                for fh in held:
                    fh.close()
            return process.pid

        def job_running(self, job):
            return bool(job) and int(job) > 0 and super().job_running(job)

        def terminate_job(self, job):
            if job is None or not str(job).isdigit() or int(job) <= 0:
                return
            try:
                process = psutil.Process(int(job))
                for child in process.children(recursive=True):
                    with contextlib.suppress(psutil.NoSuchProcess):
                        child.kill()
                process.kill()
                if process.ppid() == os.getpid():
                    process.wait(1)
            except (psutil.NoSuchProcess, psutil.TimeoutExpired, ValueError):
                pass

    return Manager


def _admitted_job(token: str, job_fn, *args) -> None:
    """A forked job whose request the web process admitted (its token; the slots held by inherited files)."""
    from app import background

    background.ADMITTED.set(token)
    job_fn(*args)
