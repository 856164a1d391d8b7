"""The dashboard's warm-up: ``python -m app.warm`` computes the runs a class asks for first into the run cache
(app.background.warm_runs: the Run page's default run), compiles every other solver kernel (in parallel
processes), computes every benchmark's default run with its reference (app.background.warm_references: the
reference store beside the run cache), measures what a cheap run costs here (app.background.calibrate) for every
process of the server, and computes every lesson's demo (app.background.warm_lessons). ``--lessons``: only the
lessons' demos;
``--serve`` (gunicorn's start when the kernels are compiled): the calibration unless this code version has one
stored, then the lessons' demos not cached yet. ``--auto``: ``--serve`` when the kernels of this version of the
code are compiled, the whole warm-up otherwise.

gunicorn's master starts ``--auto`` in the background as soon as it listens (app/gunicorn_conf.py), so on a fresh
clone the default run's compile starts while the master still imports the dashboard. ``--interpreted`` (the master
starts it beside ``--auto``, with NUMBA_DISABLE_JIT=1: solvers/jit.py) computes the runs a class asks for first
with the kernels interpreted, unless they are compiled: about 2 s here, against the 15 s of their kernel's
compile. The master starts its workers once it is done, so a first click on a fresh server finds the default run
in the run cache, marked as interpreted (the compiled kernel's numbers, an interpreter's CPU time) until the
compiled run replaces it. Other runs started meanwhile compile the kernel they need themselves.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

PARENT_ENV = "INTEGRATOR_LAB_WARM_PARENT"  # set by gunicorn's master: the warm-up ends with it


def _end_with_parent(parent: int) -> None:
    """End this process group (the warm-up and its compile processes) once ``parent`` is gone: a server killed
    without its on_exit hook (SIGKILL, a crash) must not leave a compiler running beside the next one."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)  # a watchdog's polling period, not a wait for a result
        os.killpg(os.getpgid(0), signal.SIGKILL)

    threading.Thread(target=watch, daemon=True, name="end-with-parent").start()


def _interpreted() -> int:
    """``--interpreted`` (NUMBA_DISABLE_JIT=1, started by gunicorn's master): the runs a class asks for first,
    computed with the kernels interpreted, unless the kernels of this code are compiled already."""
    started = time.perf_counter()
    import solvers

    if solvers.api.kernels_ready():
        return 0
    from app import background

    background.warm_runs(wait=False)  # app.warm --auto may hold the run's lock for its compile: not waited for
    print(f"default run ready (kernels interpreted) in {time.perf_counter() - started:.1f} s", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--interpreted" in argv:
        return _interpreted()
    import solvers
    from app import background

    if os.environ.get(PARENT_ENV, "").isdigit():
        _end_with_parent(int(os.environ[PARENT_ENV]))
    started = time.perf_counter()
    if "--auto" in argv:
        argv = ["--serve"] if solvers.api.kernels_ready() else []
    if "--references" in argv:  # the image build, after `python -m solvers warmup`: the stored references only
        keys = background.warm_references()
        print(f"{len(keys)} default runs and their references in {time.perf_counter() - started:.1f} s", flush=True)
        return 0
    if "--lessons" in argv or "--serve" in argv:  # kernels compiled already (gunicorn, app/gunicorn_conf.py)
        os.nice(10)  # behind the server's requests
        if "--serve" in argv and not background.calibration()["per_step"]:
            solvers.warmup(verbose=False)  # loaded first, so that the calibration times the steps, not the loads
            background.calibrate()
            print(f"cheap-run calibration in {time.perf_counter() - started:.1f} s", flush=True)
        computed = background.warm_lessons()
        print(f"lesson demos: {computed} computed in {time.perf_counter() - started:.1f} s", flush=True)
        return 0
    # first the runs a class asks for first, at the server's priority: gunicorn's master had them computed with the
    # kernels interpreted (--interpreted) before it started its workers; compiled, they replace those results (the
    # same numbers, the compiled kernel's CPU time). A click meanwhile reads the interpreted result: RunCache.run
    # looks in the cache before it waits on the lock this compile holds
    background.warm_runs(compiled=True)
    ready = time.perf_counter() - started
    os.nice(10)  # the rest behind the server's requests and the jobs started meanwhile
    solvers.warmup(verbose=False, jobs=solvers.api.default_jobs())
    compiled = time.perf_counter() - started
    background.warm_references()  # every benchmark's default run and its reference, stored for every process
    background.calibrate()
    calibrated = time.perf_counter() - started
    computed = background.warm_lessons()
    print(f"default run ready in {ready:.1f} s, every kernel compiled in {compiled:.1f} s, cheap-run calibration "
          f"in {calibrated - compiled:.1f} s, {computed} lesson demos in {time.perf_counter() - calibrated:.1f} s",
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
