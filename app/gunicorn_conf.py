"""gunicorn settings shared by `make serve`, the browser tests and the Docker image.

Use: ``gunicorn -c app/gunicorn_conf.py --bind HOST:PORT app:server``. The master listens before anything slow:
gunicorn's own start is all that precedes "Listening at". Then, in ``when_ready``, the master imports the
dashboard and loads every compiled kernel (3-4 s quiet, twice that on a busy machine) while a thread answers on
the same sockets with a start page that reloads itself (app.starting); the thread is joined before the workers
are forked, so the workers and the background jobs they fork start with the app and the kernels in memory
(otherwise each job loads the kernels from numba's disk cache, about 0.7 s). That is gunicorn's ``preload_app``
done after the listen instead of before it. Compiling the kernels (a fresh clone), the cheap-run calibration
and the lessons' demos run in a background process (app.warm); on a fresh clone the master also waits for the
default run computed with the kernels interpreted (app.warm --interpreted, about 2 s beside its own import).
gunicorn skips settings it does not know, so ``control_socket_disable`` (gunicorn 27's ``--no-control-socket``)
is harmless on older releases.

Environment: ``INTEGRATOR_LAB_WORKERS`` (default 4), ``INTEGRATOR_LAB_THREADS`` (default 1, gunicorn's sync
worker), ``INTEGRATOR_LAB_TIMEOUT`` (120 s for a silent worker; jobs run in their own processes, so
requests are short). The app never runs in Dash's debug mode under gunicorn.

One thread per worker because background jobs (DiskcacheManager) are forked from the worker: forking while
another thread of the worker is inside SQLite (every poll reads the diskcache stores) copies SQLite's global
mutex in its locked state, and the job hangs for good on its first use of the cache (seen under a 30-session
load test: a job process stuck in ``sqlite3_free`` from diskcache's reconnect after fork). Polls take
milliseconds, so a few single-threaded workers serve many pages. With ``REDIS_URL`` (Celery) jobs are not
forked from the web workers and threads are safe. So INTEGRATOR_LAB_THREADS > 1 without REDIS_URL is refused at
start, with this reason.
"""

import contextlib
import os
import signal
import subprocess
import sys

preload_app = False  # the app is imported in when_ready, after the listen, and inherited by the workers
workers = int(os.environ.get("INTEGRATOR_LAB_WORKERS", "4"))
threads = int(os.environ.get("INTEGRATOR_LAB_THREADS", "1"))
if threads > 1 and not os.environ.get("REDIS_URL", "").strip():
    raise SystemExit(
        f"INTEGRATOR_LAB_THREADS={threads} is refused without REDIS_URL: background jobs are forked from the web "
        "workers, and a fork taken while another thread of the worker is inside SQLite (the diskcache job store) "
        "hangs the job for good. Use more workers (INTEGRATOR_LAB_WORKERS) instead, or set REDIS_URL to run jobs "
        "on Celery workers, where threads are safe."
    )
timeout = int(os.environ.get("INTEGRATOR_LAB_TIMEOUT", "120"))
graceful_timeout = 30
keepalive = 5
control_socket_disable = True


def when_ready(server):
    """The dashboard and the compiled kernels of this code loaded in the master after it listens, with the start
    page answering meanwhile, so the workers and the jobs they fork start with both. On a fresh clone the workers
    also wait for the default run, computed with the kernels interpreted (app.warm --interpreted). Everything else
    goes to a background process (app.warm): compiling the kernels on a fresh clone, the default run's first (runs
    started then compile what they need), and the cheap-run calibration and the lessons' demos when this code
    version has none stored yet (requests go to background jobs until the calibration is stored:
    app.background.estimate)."""
    import time

    from app import starting

    started = time.monotonic()
    page = starting.StartPage(lnr.sock for lnr in server.LISTENERS).start()
    try:
        # started first, so that its import and (on a fresh clone) the default run's compile overlap the master's
        # import instead of following it; it decides itself whether to compile or to calibrate (app.warm --auto)
        pid = _warm_up()
        interpreted = _interpreted_first_runs()
        import solvers

        compiled = solvers.api.kernels_ready()  # app.warm --auto makes the same test for itself
        if compiled:
            server.log.info("cheap-run calibration and lessons' demos: computing those not stored yet in the "
                            "background (app.warm --serve, pid %d)", pid)
        else:
            server.log.info("solver kernels not compiled yet: compiling them in the background (app.warm, pid %d)",
                            pid)
        from app import main  # noqa: F401  (the Dash app, inherited by the workers)

        server.log.info("dashboard imported in %.2f s", time.monotonic() - started)
        if compiled:
            server.log.info("solver kernels loaded in %.2f s", solvers.warmup(verbose=False))
        else:
            # a fresh server: the workers start once the default run is stored (interpreted: about 2 s, beside this
            # import), so a first click finds it instead of waiting for its kernel's compile (15 s here)
            with contextlib.suppress(subprocess.TimeoutExpired):
                interpreted.wait(timeout=INTERPRETED_SECONDS)
    finally:
        page.stop()
    server.log.info("dashboard ready %.2f s after listening (the start page answered %d requests meanwhile)",
                    time.monotonic() - started, page.answered)


def _warm_up() -> int:
    """Start ``app.warm --auto`` in its own session (stopped with the server: on_exit); its pid."""
    env = {**os.environ, "INTEGRATOR_LAB_WARM_PARENT": str(os.getpid())}  # app.warm ends with this process
    proc = subprocess.Popen([sys.executable, "-m", "app.warm", "--auto"], start_new_session=True,
                            stdin=subprocess.DEVNULL, env=env)
    _warm.append(proc)
    return proc.pid


def _interpreted_first_runs() -> subprocess.Popen:
    """Start ``app.warm --interpreted`` (the default run with the kernels interpreted, unless they are compiled:
    then it ends after its import), stopped with the server like the warm-up."""
    env = {k: v for k, v in os.environ.items() if k != "INTEGRATOR_LAB_WARM_PARENT"}
    proc = subprocess.Popen([sys.executable, "-m", "app.warm", "--interpreted"], start_new_session=True,
                            stdin=subprocess.DEVNULL, env={**env, "NUMBA_DISABLE_JIT": "1"})
    _warm.append(proc)
    return proc


INTERPRETED_SECONDS = 30  # at most this long the dashboard waits for it (2-6 s here, beside two CPU hogs too)
_warm: list = []  # the background processes started by when_ready (the master's own bookkeeping, not app state)


def on_exit(server):
    """Stop an unfinished background warm-up with the server: its process group (app.warm and the compile
    processes it spawned), so a stopped server leaves no compiler running."""
    for proc in _warm:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)


def pre_fork(server, worker):
    """Freeze the master's objects (the app loaded in when_ready, numba's and LLVM's) out of the garbage collector
    before each fork (Python's gc.freeze documentation, for pre-fork servers): a worker's collections then skip
    them, so they neither copy the shared pages nor take seconds at exit (measured: each worker spent about 5 s in the
    final collection after "Worker exiting", so every stop of the server took 6-7 s)."""
    import gc

    gc.freeze()


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT)  # a stop, graceful or quick


def post_fork(server, worker):
    """Keep the arbiter's signal queue for :func:`post_worker_init`. Until the new worker installs its own handlers
    (``init_signals``, in ``init_process``), a signal to it runs the master's handler it inherited, which only puts
    the signal into the worker's copy of the master's queue, where nothing reads it. A stop that comes while a
    worker boots (the master's SIGTERM to its workers, or ``kill`` to the server's process group) was lost so, and
    the master waited its whole ``graceful_timeout`` (30 s) for that worker: seen in the suite, a server stopped
    4 s after its start took 30 s to stop."""
    worker.signals_while_booting = server.SIG_QUEUE


def post_worker_init(worker):
    """Act on a stop that arrived before the worker had its own handlers (:func:`post_fork`): the worker ends
    before it serves. Only stops count; the copied queue also holds whatever the master had queued at the fork,
    and a stop queued there means the master is stopping too."""
    import queue

    pending = getattr(worker, "signals_while_booting", None)
    received = []
    if isinstance(pending, list):  # gunicorn < 27 kept a list
        received = list(pending)
    elif pending is not None:
        with contextlib.suppress(queue.Empty):
            while True:
                received.append(pending.get_nowait())
    if any(sig in STOP_SIGNALS for sig in received):
        worker.log.info("a stop arrived while the worker booted: it ends before serving (pid: %s)", worker.pid)
        worker.alive = False
