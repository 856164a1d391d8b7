"""The dashboard's warm-up: ``python -m app.warm`` compiles every solver kernel (in parallel processes), then
measures what a cheap run costs here (app.background.calibrate) for every process of the server.

gunicorn starts it in the background when the kernels of this version of the code are not compiled yet
(app/gunicorn_conf.py), so the page answers at once on a fresh clone; runs started meanwhile compile the kernel
they need themselves.
"""

from __future__ import annotations

import os
import sys
import time


def main() -> int:
    import solvers
    from app import background, layout

    os.nice(10)  # behind the server's requests and the jobs started meanwhile
    started = time.perf_counter()
    # the Run page's default pair first: a class's first click needs that kernel
    solvers.warmup(verbose=False, jobs=solvers.api.default_jobs(),
                   first=(layout.DEFAULT_METHOD, layout.DEFAULT_BENCHMARK))
    compiled = time.perf_counter() - started
    background.calibrate()
    print(f"kernels compiled in {compiled:.1f} s, cheap-run calibration in "
          f"{time.perf_counter() - started - compiled:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
