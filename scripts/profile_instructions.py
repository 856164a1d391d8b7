"""Where a method's instructions per step go, per compiled function and per kind of instruction: callgrind's
per-instruction counts (``--dump-instr=yes``) mapped onto the object code that numba loads from its cache
(docs/performance.md, "Instructions per step").

    .venv/bin/python scripts/profile_instructions.py --method lgvi --benchmark pendulum_3d
    .venv/bin/python scripts/profile_instructions.py --method lgvi --checkout /tmp/old --annotate /tmp/lgvi.txt

Counted as in scripts/count_instructions.py: the kernels compiled natively for valgrind's CPU, then runs of n1 and
n2 steps under callgrind, the difference per step. The child also keeps the object code of every library it loads
from numba's cache and the address of each of its functions, so each counted address in compiled code gets its
function and its instruction (objdump). Kinds: stack (loads and stores addressed by rsp or rbp: spills, reloads,
arguments), floating point, jumps, calls, other. ``--annotate`` writes each instruction of the busiest function
with its count per step. Needs valgrind (with its headers), gcc and objdump.
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile

import count_instructions as ci  # this script's directory is first on sys.path

# count_instructions' child (argv: benchmark, methods, n1, n2, helper library) between a hook that keeps the object
# code of every library numba loads from its cache and, after the counted runs, that code and each function's address
# written to the output directory (argv 6)
_KEEP = """
from numba.core import codegen
libs = []
_load = codegen.CPUCodeLibrary._unserialize.__func__
def _keep(cls, cg, state):
    lib = _load(cls, cg, state)
    if state[1] == "object":
        libs.append((lib, state[2][0]))
    return lib
codegen.CPUCodeLibrary._unserialize = classmethod(_keep)
"""
_WRITE = """
import os, subprocess
for k, (lib, obj) in enumerate(libs if sys.argv[5] else []):
    path = os.path.join(sys.argv[6], f"lib{k}.o")
    with open(path, "wb") as fh:
        fh.write(obj)
    with open(path + ".addr", "w") as fh:
        for line in subprocess.run(["objdump", "-t", path], capture_output=True, text=True).stdout.splitlines():
            f = line.split()
            if len(f) >= 6 and f[2] == "F":
                try:
                    fh.write(f"{f[-1]} {lib.get_pointer_to_function(f[-1])}\\n")
                except Exception:  # a local symbol the engine does not export
                    pass
"""
_CHILD = _KEEP + ci.CHILD + _WRITE


def _costs(path: str) -> collections.Counter:
    """Instructions per address in one callgrind dump (positions "instr line"; a call's inclusive cost skipped)."""
    cost: collections.Counter = collections.Counter()
    last = [0, 0]
    skip = False
    with open(path) as fh:
        for line in fh:
            if line.startswith("calls="):
                skip = True
                continue
            if not line or not (line[0].isdigit() or line[0] in "+-*"):
                continue
            parts = line.split()
            for k, p in enumerate(parts[:2]):
                if p.startswith("0x"):
                    last[k] = int(p, 16)
                elif p[0] in "+-":
                    last[k] += int(p)
                elif p != "*":
                    last[k] = int(p)
            if skip:
                skip = False
            elif len(parts) > 2:
                cost[last[0]] += int(parts[2])
    return cost


def _instructions(tmp: str) -> dict[int, tuple[str, str]]:
    """Address -> (function, instruction) over every library the child kept."""
    out: dict[int, tuple[str, str]] = {}
    for obj in sorted(glob.glob(os.path.join(tmp, "lib*.o"))):
        with open(obj + ".addr") as fh:
            addr = {name: int(a) for name, a in (line.split() for line in fh) if int(a)}
        dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], capture_output=True, text=True,
                             check=True).stdout
        base = None
        name = ""
        for line in dis.splitlines():
            head = re.match(r"([0-9a-f]+) <(.+)>:$", line)
            if head:
                name = head.group(2)
                base = addr[name] - int(head.group(1), 16) if name in addr else None
                continue
            ins = re.match(r"\s+([0-9a-f]+):\s+(.*)$", line)
            if ins and base is not None:
                out[base + int(ins.group(1), 16)] = (name, ins.group(2).strip())
    return out


def _kind(ins: str) -> str:
    op = ins.split()[0] if ins else ""
    if re.search(r"\(%r[sb]p", ins):
        return "stack store" if re.search(r"\(%r[sb]p[^,]*\)$", ins) else "stack load"
    if op.startswith("j"):
        return "jump"
    if op.startswith("call"):
        return "call"
    if op.startswith("v") or "xmm" in ins:
        return "floating point"
    return "other"


def _short(name: str) -> str:
    """solvers.methods.lgvi.advance from numba's mangled name (length-prefixed words after _ZN)."""
    if not name.startswith("_ZN"):
        return name[:70]
    rest, words = name[3:], []
    while rest[:1].isdigit():
        m = re.match(r"\d+", rest)
        assert m is not None
        n, rest = int(m.group()), rest[m.end():]
        words.append(rest[:n])
        rest = rest[n:]
    return ".".join(words)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--method", default="lgvi")
    p.add_argument("--benchmark", default="pendulum_3d")
    p.add_argument("--steps", default=",".join(map(str, ci.STEPS)), help="n1,n2")
    p.add_argument("--checkout", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p.add_argument("--annotate", help="write the busiest function's instructions with their counts per step here")
    args = p.parse_args(argv)
    n1, n2 = (int(x) for x in args.steps.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        cpu, lib = ci.valgrind_cpu(), ci.helper_library(tmp)
        env = ci.child_env(cpu, os.path.join(tmp, "numba"))
        child = [args.benchmark, args.method, str(n1), str(n2)]
        subprocess.run([sys.executable, "-c", _CHILD, *child, "", tmp], cwd=args.checkout, env=env, check=True)
        out = os.path.join(tmp, "callgrind")
        subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", "--dump-instr=yes", "-q",
                        f"--callgrind-out-file={out}", sys.executable, "-c", _CHILD, *child, lib, tmp],
                       cwd=args.checkout, env=env, check=True)
        first, second = _costs(out + ".1"), _costs(out + ".2")
        per_step = {a: (second[a] - first.get(a, 0)) / (n2 - n1) for a in second}
        code = _instructions(tmp)
    by_fn: collections.Counter = collections.Counter()
    kinds: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for a, c in per_step.items():
        fn, ins = code.get(a, ("(not compiled code: the interpreter, NumPy, libc)", ""))
        by_fn[fn] += c
        kinds[fn][_kind(ins) if ins else "-"] += c
    print(f"{args.method} on {args.benchmark}: {sum(per_step.values()):.1f} instructions per step "
          f"(runs of {n1} and {n2} steps)")
    for fn, c in by_fn.most_common(8):
        if abs(c) >= 0.5:
            split = ", ".join(f"{k} {v:.0f}" for k, v in kinds[fn].most_common() if abs(v) >= 0.5)
            print(f"{c:10.1f}  {_short(fn)}: {split}")
    if args.annotate:
        busiest = by_fn.most_common(1)[0][0]
        addrs = sorted(x for x in code if code[x][0] == busiest)
        with open(args.annotate, "w") as fh:
            for a in addrs:
                fh.write(f"{per_step.get(a, 0.0):9.3f}  {a - addrs[0]:6x}  {code[a][1]}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
