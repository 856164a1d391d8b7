"""Instructions per step of methods, counted by valgrind's callgrind: within 0.3 % between runs of the same code, on
any machine and at any load, where CPU time on a shared 2-core host varied by 60 % between processes
(docs/performance.md, "Instructions per step").

    .venv/bin/python scripts/compare_revisions.py 47799e0 --instructions --methods lgvi,rattlie
    .venv/bin/python scripts/count_instructions.py --methods lgvi,rattlie --benchmark pendulum_3d

Each side runs twice: natively, to compile its kernels for the CPU that valgrind presents (its name and features, as
NUMBA_CPU_NAME and NUMBA_CPU_FEATURES, into a numba cache of its own), then under callgrind with instrumentation off
until the kernels are loaded. A small C helper (callgrind's client requests) zeroes the counts before the runs and
dumps them after each run of n1 and of n2 steps, so a method's count per step is (I(n2) - I(n1)) / (n2 - n1): the
run's set-up, the same for both, drops out. Needs valgrind (with its headers) and gcc.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

_HELPER = """#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION; }
void cg_dump(void) { CALLGRIND_DUMP_STATS; }
"""
# argv: benchmark, methods, n1, n2, helper library ("" natively: load or compile only)
CHILD = """
import ctypes, sys
sys.path.insert(0, ".")
from solvers import api, bench
b, ms, ns = sys.argv[1], sys.argv[2].split(","), (int(sys.argv[3]), int(sys.argv[4]))
h = bench.BENCHMARKS[b].default_h
for m in ms:
    api.simulate(b, m, h=h, t_end=10 * h)
if sys.argv[5]:
    cg = ctypes.CDLL(sys.argv[5])
    cg.cg_start()
    for m in ms:
        for n in ns:
            res = api.simulate(b, m, h=h, t_end=n * h, max_samples=1000)
            assert res.steps == n, (m, n, res.status)
            cg.cg_dump()
"""
STEPS = (2000, 12000)  # n1, n2: the runs whose difference is counted
_CPU = "import llvmlite.binding as ll; print(ll.get_host_cpu_name()); print(ll.get_host_cpu_features().flatten())"


def valgrind_cpu() -> tuple[str, str]:
    """The CPU name and feature string LLVM sees under valgrind (which presents a CPU of its own)."""
    out = subprocess.run(["valgrind", "--tool=none", "-q", sys.executable, "-c", _CPU], capture_output=True,
                         text=True, check=True).stdout.split("\n")
    return out[0].strip(), out[1].strip()


def helper_library(tmp: str) -> str:
    """Build the client-request helper in ``tmp``; returns its path."""
    src = os.path.join(tmp, "cg.c")
    lib = os.path.join(tmp, "cg.so")
    with open(src, "w") as fh:
        fh.write(_HELPER)
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", lib, src], check=True)
    return lib


def child_env(cpu: tuple[str, str], cache: str) -> dict[str, str]:
    """The environment of a counted child: numba compiles for valgrind's CPU into ``cache``; a fixed hash seed."""
    return {**os.environ, "NUMBA_CPU_NAME": cpu[0], "NUMBA_CPU_FEATURES": cpu[1], "PYTHONHASHSEED": "0",
            "NUMBA_CACHE_DIR": cache}


def count(checkout: str, benchmark: str, methods: list[str], n1: int, n2: int, cpu: tuple[str, str], lib: str,
          tmp: str, tag: str) -> dict[str, float]:
    """Instructions per step of each method in ``checkout`` (its own numba cache under ``tmp``)."""
    env = child_env(cpu, os.path.join(tmp, f"numba-{tag}"))
    args = [benchmark, ",".join(methods), str(n1), str(n2)]
    subprocess.run([sys.executable, "-c", CHILD, *args, ""], cwd=checkout, env=env, check=True)
    out = os.path.join(tmp, f"callgrind-{tag}-{benchmark}")
    subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", "-q", f"--callgrind-out-file={out}",
                    sys.executable, "-c", CHILD, *args, lib], cwd=checkout, env=env, check=True)
    dumps = sorted(glob.glob(out + ".*"), key=lambda f: int(f.rsplit(".", 1)[1]))
    totals = []
    for path in dumps:
        with open(path) as fh:
            totals.append(int(re.search(r"^totals: (\d+)", fh.read(), re.M).group(1)))
        os.remove(path)
    assert len(totals) == 2 * len(methods), totals
    return {m: (totals[2 * i + 1] - totals[2 * i]) / (n2 - n1) for i, m in enumerate(methods)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--methods", default="rattlie,lgvi")
    p.add_argument("--benchmark", default="spatial_double_pendulum", help="one or more, comma-separated")
    p.add_argument("--steps", default=",".join(map(str, STEPS)), help="n1,n2")
    args = p.parse_args(argv)
    n1, n2 = (int(x) for x in args.steps.split(","))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as tmp:
        cpu, lib = valgrind_cpu(), helper_library(tmp)
        for b in args.benchmark.split(","):
            for m, v in count(root, b, args.methods.split(","), n1, n2, cpu, lib, tmp, "this").items():
                print(f"{b:26s} {m:16s} {v:9.1f} instructions/step")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
