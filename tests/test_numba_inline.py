"""solvers._numba_inline: numba's inliner building each inlined helper's IR once gives the code numba gives.

The kernels' own check is the rest of the suite (every method against its reference, on the patched inliner);
here a module of nested ``inline="always"`` helpers (one helper at several sites, a loop and a branch, a closure)
compiles to the same machine code and results as numba as it ships, and a rebound global is read again.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import numpy as np

from solvers import _numba_inline

HELPERS = textwrap.dedent('''
    import numpy as np
    from numba import njit

    K = 3.0

    @njit(inline="always")
    def leaf(x, k):
        if x > 0.0:
            return x * k + 1.0
        return -x / k

    @njit(inline="always")
    def mid(a, i):
        s = 0.0
        for j in range(a.shape[0]):
            s += leaf(a[j] - i, K) + leaf(a[j] + i, 2.0)
        return s

    @njit(inline="always")
    def outer(a, i):
        return mid(a, i) - mid(a, -i)

    def make(scale):
        @njit(inline="always")
        def scaled(a, i):
            return scale * mid(a, i) + leaf(scale, K)
        return scaled

    scaled = make(0.5)

    def kernel(a):
        out = np.empty(a.shape[0])
        for i in range(a.shape[0]):
            out[i] = outer(a, i) + scaled(a, i) + leaf(a[i], 1.5)
        return out

    compiled = njit(kernel)
''')

REPORT = """
import importlib.util, json, sys
import numpy as np
import solvers
spec = importlib.util.spec_from_file_location("helpers", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
a = np.linspace(-1.0, 2.0, 7)
out = mod.compiled(a)
print(json.dumps({"result": out.tobytes().hex(), "asm": mod.compiled.inspect_asm(mod.compiled.signatures[0])}))
"""


def _helpers(tmp_path):
    path = tmp_path / "helpers.py"
    path.write_text(HELPERS)
    spec = importlib.util.spec_from_file_location("inline_helpers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return path, module


def test_both_parts_are_in_place_on_the_numba_the_project_pins():
    """The numba of pyproject.toml's range has the inliner text the patch expects; a numba release that changes
    it fails here rather than compiling at the old cost unnoticed."""
    assert {"one_copy_per_site", "untyped_ir_reused"} == _numba_inline.INSTALLED


def test_the_machine_code_and_results_are_numbas_own(tmp_path):
    path, _ = _helpers(tmp_path)
    runs = {}
    for inliner in ("stock", "patched"):
        env = {**os.environ, "INTEGRATOR_LAB_NUMBA_INLINER": inliner, "NUMBA_CACHE_DIR": str(tmp_path / inliner)}
        out = subprocess.run([sys.executable, "-c", REPORT, str(path)], env=env, capture_output=True, text=True,
                             timeout=300, check=True)
        runs[inliner] = json.loads(out.stdout)
    assert runs["patched"]["result"] == runs["stock"]["result"]
    assert runs["patched"]["asm"] == runs["stock"]["asm"]


def test_a_rebound_global_is_read_again_even_two_inlined_levels_down(tmp_path):
    """mid reads the global K; outer inlines mid and the kernel inlines outer. After K is rebound, a new compile
    must use the new K in both, as numba's own rebuild of every inlined IR does."""
    from numba import njit

    _, mod = _helpers(tmp_path)
    a = np.linspace(-1.0, 2.0, 7)
    before = mod.compiled(a)
    mod.K = 5.0
    after = njit(mod.kernel)(a)
    # the same sums in Python, each helper's own uncompiled function, with K = 5
    leaf, mid = mod.leaf.py_func, mod.mid.py_func
    mod.leaf, mod.mid = leaf, mid  # the Python functions call each other uncompiled
    expected = np.array([mid(a, i) - mid(a, -i) + 0.5 * mid(a, i) + leaf(0.5, 5.0) + leaf(a[i], 1.5)
                         for i in range(a.shape[0])])
    np.testing.assert_allclose(after, expected, rtol=1e-13)
    assert not np.allclose(before, after)
