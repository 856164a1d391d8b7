"""How the kernels compile: once per machinery, and the warm-up compiles each distinct kernel once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from solvers import api, jit, kernels
from solvers.registry import BENCHMARKS, METHODS, applies


def test_a_per_machinery_kernel_is_built_for_each_machinery_on_first_use() -> None:
    built: list[int] = []

    def make(kind: int):
        built.append(kind)
        return lambda k, *args: (kind, k, args)

    kernel = kernels.PerMachinery(make)
    assert built == []
    assert kernel(1, "data") == (1, 1, ("data",))
    assert kernel(1, "more") == (1, 1, ("more",))
    assert kernel(0, "rigid") == (0, 0, ("rigid",))
    assert built == [1, 0]  # each machinery once, only when a run needs it


def _key(pair: tuple[str, str]) -> tuple[int, str]:
    return id(METHODS[pair[0]].kernel), BENCHMARKS[pair[1]].machinery


def test_the_warm_up_compiles_every_distinct_kernel_once() -> None:
    tasks = api.warm_tasks()
    keys = [_key(t) for t in tasks]
    assert len(set(keys)) == len(keys)
    needed = {_key((m, b)) for m in METHODS for b in BENCHMARKS if applies(m, b)}
    assert set(keys) == needed
    # methods sharing one kernel are compiled once: lgvi_lagrangian is lgvi's kernel, the midpoint variants one
    assert all(m != "lgvi_lagrangian" for m, _ in tasks)
    assert sum(m.startswith("midpoint") for m, _ in tasks) == 2  # its planar and its rigid machinery
    assert sum(m == "rk4" for m, _ in tasks) == 3  # rk4 runs on all three machineries


def test_the_warm_up_takes_the_implicit_kernels_first_and_every_task_once() -> None:
    """warm_order: warm_tasks and the references' kernel, each once; the compiled implicit kernels (the largest
    compiles) before every other, the SciPy baselines (nothing to compile) last, registry order within each."""
    order = api.warm_order()
    assert sorted(order) == sorted([*api.warm_tasks(), ("references", "")])
    props = [() if m == "references" else METHODS[m].properties for m, _ in order]
    rank = [2 if "not compiled" in p else 0 if "implicit" in p else 1 for p in props]
    assert rank == sorted(rank) and rank[0] == 0 and rank[-1] == 2
    implicit = [t for t, r in zip(order, rank, strict=True) if r == 0]
    assert {m for m, _ in implicit} >= {"lgvi", "rattlie", "lie_galpha", "spark", "hermite_h23g2"}
    assert implicit == [t for t in api.warm_tasks() if t in implicit]  # registry order kept


# Every compiled function the warm-up's runs compile, by qualified name: numba fires "numba:compile" only when a
# dispatcher compiles, not when it loads a signature from the on-disk cache.
_COMPILES = """
import json
from numba.core import event
from solvers import api
with event.install_recorder("numba:compile") as rec:
    api.warmup(verbose=False)
f = [e.data["dispatcher"].py_func for _, e in rec.buffer if e.is_start]
names = sorted({g.__module__ + "." + g.__qualname__ for g in f})
print(json.dumps(names))
"""


@pytest.mark.skipif(not jit.COMPILED, reason="kernels interpreted (NUMBA_DISABLE_JIT)")
def test_after_the_warm_up_a_new_process_compiles_nothing() -> None:
    """A kernel that misses numba's on-disk cache compiles again in every new process, in every server worker and
    job (a closure that captured compiled functions did: rk4 31-52 s a process). After the warm-up, a new process
    running every warm-up pair loads them all and compiles nothing."""
    root = Path(__file__).resolve().parents[1]
    if not api.kernels_ready():  # `make test` warms up first; a bare pytest does it here
        subprocess.run([sys.executable, "-m", "solvers", "warmup", "--jobs", "2"], cwd=root, check=True,
                       capture_output=True)
    out = subprocess.run([sys.executable, "-c", _COMPILES], cwd=root, check=True, capture_output=True, text=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []



def test_a_borrowed_array_is_the_same_memory() -> None:
    """kernels.borrowed (the step loops' arrays without reference counting): writes through it and through views of
    it reach the owner, a tuple's arrays are borrowed and its numbers kept."""
    import numpy as np
    from numba import njit

    @njit(inline="always")
    def bump(a, i):
        a[i] += 1.0

    @njit
    def borrowing(a):
        b = kernels.borrowed(a)
        for i in range(b.shape[0]):
            bump(b, i)
            bump(b[:], i)
        kernels.keep_alive((a,))

    @njit
    def from_tuple(t):
        a, n, m = kernels.borrowed(t)
        a[0, 1] = n
        return a.sum() + m[1]

    x = np.zeros(4)
    borrowing(x)
    assert (x == 2.0).all()
    y = np.zeros((2, 3))
    assert from_tuple((y, 7.0, np.arange(3))) == 8.0 and y[0, 1] == 7.0


def test_a_work_layout_carves_consecutive_views_in_python_and_compiled() -> None:
    """kernels.carve (one method's work layout): the views are consecutive, of the given sizes, and write through to
    the work array, compiled as in Python; their sizes sum to what a work_size returns from the same tuple."""
    import numpy as np
    from numba import njit

    @njit
    def carved(work, a, b):
        x, y, z = kernels.carve(work, (a, b, a))
        y[1] = -1.0
        return x.shape[0], y.shape[0], z.shape[0], z[0]

    w = np.arange(10.0)
    assert carved(w, 3, 2) == (3, 2, 3, 5.0) and w[4] == -1.0
    assert [v.tolist() for v in kernels.carve(np.arange(6.0), (1, 2, 3))] == [[0.0], [1.0, 2.0], [3.0, 4.0, 5.0]]
