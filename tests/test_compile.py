"""How the kernels compile: once per machinery, and the warm-up compiles each distinct kernel once."""

from __future__ import annotations

from solvers import api, kernels
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
