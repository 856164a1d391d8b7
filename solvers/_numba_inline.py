"""numba's IR inliner without its repeated work: the same inlined code, built once per callee.

The kernels' small helpers are inlined by numba (``inline="always"``, docs/architecture.md). At each call site
numba's ``InlineWorker`` (numba/core/inline_closurecall.py, numba 0.61-0.69):

- runs the callee's whole untyped pipeline again (``inline_function``), which inlines the callee's own helpers
  again: a helper inlined at k sites of a function inlined at m sites is rebuilt k * m times;
- deep-copies the callee's IR block by block (``inline_ir``'s ``copy_ir``), each block with its own copy of the
  function's whole variable scope, then copies that copy again for an "unmutated" IR its callers discard
  (numba issues #8989 and #9204; NVIDIA/numba-cuda #688 and #689).

:func:`install` keeps one untyped IR per callee, per compiler flags and per binding of the names the callee reads
(its globals and closure cells, compared by identity, so a rebound global builds afresh), and gives each call
site one deep copy of it (one memo: its blocks share one copy of the scope, as numba's own IR does). The rest of
the pipeline sees the IR it saw before: tests/test_numba_inline.py compares the machine code of nested helpers
with numba's own, and every kernel's results were bit-identical with and without it. It saves 7-21 % of a
kernel's cold compile (docs/performance.md, "numba's inliner, each helper's IR built once").

Where numba's ``inline_ir`` or ``inline_function`` is not what this was written against (another numba release),
that part is left as numba has it; :data:`INSTALLED` says which parts are in place. ``INTEGRATOR_LAB_NUMBA_INLINER
=stock`` leaves numba untouched (to compare, or to rule this out when a compile goes wrong).
"""

from __future__ import annotations

import copy
import inspect
import os
import textwrap
import types
from typing import Any

from numba.core import bytecode, inline_closurecall

INSTALLED: set[str] = set()  # "untyped_ir_reused", "one_copy_per_site"

# numba 0.61-0.69's copy_ir, as inspect.getsource gives it once dedented: each block deep-copied alone
_COPY_PER_BLOCK = """    def copy_ir(the_ir):
        kernel_copy = the_ir.copy()
        kernel_copy.blocks = {}
        for block_label, block in the_ir.blocks.items():
            new_block = copy.deepcopy(the_ir.blocks[block_label])
            kernel_copy.blocks[block_label] = new_block
        return kernel_copy
"""
_COPY_AT_ONCE = """    def copy_ir(the_ir):
        kernel_copy = the_ir.copy()
        kernel_copy.blocks = copy.deepcopy(the_ir.blocks)
        return kernel_copy
"""
_COPIES = "    callee_ir = copy_ir(callee_ir)\n"
_SECOND_COPY = "    callee_ir_original = copy_ir(callee_ir)\n"

_MISSING = object()


def _read_names(code: types.CodeType) -> list[str]:
    """The names a function's code (and the code nested in it) may look up among its globals."""
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += _read_names(const)
    return names


def _contents(cell: types.CellType) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # a cell not yet filled
        return _MISSING


def _bindings(function: types.FunctionType, seen: set[int] | None = None) -> tuple[Any, ...]:
    """What the callee's IR freezes besides its code: the objects its global names and closure cells hold now, and
    those of the inlined functions it calls (their IR is inlined into its own)."""
    seen = set() if seen is None else seen
    seen.add(id(function))
    found = tuple(function.__globals__.get(n, _MISSING) for n in _read_names(function.__code__))
    found += tuple(_contents(c) for c in function.__closure__ or ())
    nested: tuple[Any, ...] = ()
    for value in found:
        options = getattr(value, "targetoptions", None)
        inner = getattr(value, "py_func", None)
        if (isinstance(options, dict) and options.get("inline", "never") != "never"
                and isinstance(inner, types.FunctionType) and id(inner) not in seen):
            nested += _bindings(inner, seen)
    return found + nested


# callee -> [(flags, typing context, code generator, the caller's compiler class, locals, bindings, its untyped
# IR)], for the process's life: one entry per inlined helper and flag set, a few hundred for every kernel here
_UNTYPED: dict[Any, list[tuple[Any, ...]]] = {}


def _untyped_ir(worker: Any, function: types.FunctionType) -> Any:
    """The callee's untyped IR for this worker's compile, built by numba's own ``run_untyped_passes`` once."""
    worker.flags.enable_ssa = False  # what run_untyped_passes sets on the caller's flags before it builds the IR
    bindings = _bindings(function)
    entries = _UNTYPED.setdefault(function, [])
    # each compile has its own target context, numba's copy of one per flag set (compiler._make_subtarget): its
    # code generator and the flags identify it
    codegen = worker.targetctx.codegen()
    for flags, typing, target, pipeline, local, bound, ir in entries:
        if (typing is worker.typingctx and target is codegen and pipeline is type(worker.pipeline)
                and flags == worker.flags and local == worker.locals and len(bound) == len(bindings)
                and all(a is b for a, b in zip(bound, bindings, strict=True))):
            return ir
    ir = worker.run_untyped_passes(function)
    entries.append((worker.flags.copy(), worker.typingctx, codegen, type(worker.pipeline),
                    dict(worker.locals), bindings, ir))
    return ir


def _inline_function(self: Any, caller_ir: Any, block: Any, i: int, function: types.FunctionType,
                     arg_typs: Any = None) -> Any:
    """numba's ``InlineWorker.inline_function`` on the callee's IR built once (inline_ir copies it before any
    change), under a fresh identity per site, as numba's own rebuild gives (its variables' inlined names)."""
    shared = _untyped_ir(self, function)
    site = copy.copy(shared)  # inline_ir copies the blocks; only the identity is this site's own
    site.func_id = shared.func_id.derive()
    return self.inline_ir(caller_ir, block, i, site, function.__code__.co_freevars, arg_typs=arg_typs)


def _inline_ir_copying_once() -> Any:
    """numba's ``InlineWorker.inline_ir`` with its callee copied once, all blocks in one deep copy; None when its
    source is not the text expected."""
    try:
        source = textwrap.dedent(inspect.getsource(inline_closurecall.InlineWorker.inline_ir))
    except (OSError, TypeError):
        return None
    if source.count(_COPY_PER_BLOCK) != 1 or source.count(_COPIES) != 1 or source.count(_SECOND_COPY) != 1:
        return None
    # the input is left unchanged (the site's copy is what changes), so it is the unmutated IR numba returns
    source = (source.replace(_COPY_PER_BLOCK, _COPY_AT_ONCE)
              .replace(_COPIES, "    callee_ir_original = callee_ir\n" + _COPIES)
              .replace(_SECOND_COPY, ""))
    namespace: dict[str, Any] = {}
    exec(compile(source, inline_closurecall.__file__, "exec"), vars(inline_closurecall), namespace)
    return namespace["inline_ir"]


_INLINE_FUNCTION_ARGS = ["self", "caller_ir", "block", "i", "function", "arg_typs"]


def install() -> None:
    """Put both parts in place in this process (idempotent); before the first compile."""
    if os.environ.get("INTEGRATOR_LAB_NUMBA_INLINER") == "stock":
        return
    worker = inline_closurecall.InlineWorker
    if "one_copy_per_site" not in INSTALLED:
        patched = _inline_ir_copying_once()
        if patched is not None:
            worker.inline_ir = patched  # type: ignore[method-assign]
            INSTALLED.add("one_copy_per_site")
    expected = (hasattr(worker, "run_untyped_passes") and hasattr(bytecode.FunctionIdentity, "derive")
                and list(inspect.signature(worker.inline_function).parameters) == _INLINE_FUNCTION_ARGS)
    if "untyped_ir_reused" not in INSTALLED and expected:
        worker.inline_function = _inline_function  # type: ignore[method-assign]
        INSTALLED.add("untyped_ir_reused")
