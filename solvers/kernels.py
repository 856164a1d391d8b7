"""Shared pieces of the compiled kernel contract.

Every method kernel (one ``@njit`` function per method module, called by :func:`solvers.driver.run`) is

    advance(kind, data, y, work, opts, t_start, h, k0, n_steps, last, stride,
            samples, n_saved, maxima, ref, info) -> (steps_done, status, n_saved)

Parameters
----------
kind : int
    The model's machinery code (``solvers.models.dispatch``): which right-hand side and diagnostics ``data`` holds.
data : tuple
    The model's arrays (types fixed per machinery).
y : ndarray
    The flat state in the model's layout, advanced in place.
work : ndarray
    The method's persistent extras between calls (multipliers, accelerations, previous velocities, step memory).
opts : ndarray
    The method's numeric options (``Method.pack``).
t_start, h : float
    Time is ``t_start + k h`` at global step index ``k``.
k0, n_steps : int
    This call advances steps ``k0 -> k0 + n_steps``. At ``k0 == 0`` the kernel first records the initial state
    (step 0; ``consistent_start`` and friends make it consistent) and sets ``ref``.
last, stride : int
    Step ``k`` is saved as a row of ``samples`` when ``k % stride == 0`` or ``k == last`` (:func:`record`); the
    driver passes the run's last step, or, when it saves given times, the next of those.
samples : ndarray
    Rows ``[t, y..., diagnostics..., energy min, energy max]`` (``DIAG_FIELDS``, then the energy envelope since the
    previous row, :func:`record`); ``n_saved`` rows are filled so far.
maxima : ndarray
    Running maxima over every step (slots ``MAX_*``) and counters (Newton iterations, stalled steps).
ref : ndarray
    The t = 0 energy and momentum, set by the step-0 record (errors in ``maxima`` are measured from them), and
    the running energy envelope since the last saved row.
info : ndarray
    Details for the driver's messages and summary (slots ``INFO_*``): the failure time and residual, Newton
    iterations, rotation-vector switches, an adaptive method's accepted and rejected internal steps, its step
    size at a failure and its internal-step cap.

Returns
-------
steps_done : int
    Steps completed in this call (fewer than ``n_steps`` only with a status other than ``OK``).
status : int
    ``OK`` or a failure code below; the state and samples up to the failure are kept.
n_saved : int
    Rows of ``samples`` filled.

Adaptive methods keep the same contract with ``h`` as the OUTPUT spacing and the largest internal step: one
"step" ``k -> k + 1`` integrates adaptively from ``t_start + k h`` to ``t_start + (k + 1) h`` with as many
internal steps as the error control needs and lands on the grid point, where it records; their step-size
memory lives in ``work``. The driver's chunking, progress and cancel are unchanged.

Status codes map to messages in :mod:`solvers.driver`.
"""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType
from typing import Any

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from .jit import COMPILED, python_function

# status codes returned by kernels
OK = 0
NONFINITE = 1  # state became non-finite or exploded -> "diverged"
NEWTON = 2  # Newton iteration did not converge -> "failed"
SINGULAR = 3  # a linear system was singular -> "failed"
DOMAIN = 4  # the method left its domain (e.g. rotation-vector singularity) -> "failed"
STEPSIZE = 5  # an adaptive method's step size underflowed or it hit its internal-step cap -> "failed"

# diagnostics row (length N_DIAG), same order in samples and maxima
DIAG_FIELDS = (
    "energy",
    "constraint_position",
    "constraint_velocity",
    "constraint_acceleration",
    "orthogonality_error",
    "momentum",
    "rotation_error",
)
N_DIAG = len(DIAG_FIELDS)
D_ENERGY, D_CONSTRAINT_POSITION, D_CONSTRAINT_VELOCITY, D_CONSTRAINT_ACCELERATION, D_ORTHOGONALITY, D_MOMENTUM, \
    D_ROTATION = range(N_DIAG)
# ref: the energy and momentum at t0, then the energy envelope since the previous saved row (record)
REF_ENERGY, REF_MOMENTUM, REF_LOW, REF_HIGH = range(4)
N_ENVELOPE = 2  # columns after the diagnostics in the driver's rows: min and max energy since the previous row
# maxima: running maxima over every step (slots 0-6 follow DIAG_FIELDS) and counters
MAX_ENERGY = 0  # max |E - E0|
MAX_CONSTRAINT_POSITION, MAX_CONSTRAINT_VELOCITY, MAX_CONSTRAINT_ACCELERATION, MAX_ORTHOGONALITY = 1, 2, 3, 4
MAX_MOMENTUM = 5  # max |momentum - momentum0|
MAX_ROTATION = 6  # max rotation error
MAX_NEWTON = 7  # total Newton iterations
MAX_STALLED = 8  # steps whose Newton iteration stalled between tol and STALL_FACTOR tol (newton_test)
N_MAXIMA = 9
# the maxima's first slots are the diagnostics' (record and the driver's summary read both with one index)
assert (MAX_ENERGY, MAX_CONSTRAINT_POSITION, MAX_CONSTRAINT_VELOCITY, MAX_CONSTRAINT_ACCELERATION, MAX_ORTHOGONALITY,
        MAX_MOMENTUM, MAX_ROTATION) == (D_ENERGY, D_CONSTRAINT_POSITION, D_CONSTRAINT_VELOCITY,
                                        D_CONSTRAINT_ACCELERATION, D_ORTHOGONALITY, D_MOMENTUM, D_ROTATION)
# info: details for the driver's messages and summary
INFO_TIME, INFO_RESIDUAL, INFO_SWITCHES, INFO_NEWTON = 0, 1, 2, 3  # failure time and residual, switches, iterations
INFO_ACCEPTED, INFO_REJECTED, INFO_STEP, INFO_CAP = 4, 5, 6, 7  # adaptive methods: internal steps, h at failure
N_INFO = 8
# a state component beyond this magnitude counts as divergence
BLOWUP = 1e12


class PerMachinery:
    """A method kernel compiled once per machinery, on first use: ``PerMachinery(make)`` calls ``make(KIND)``
    for a machinery code (``models.dispatch``) and keeps the ``@njit(cache=True)`` kernel it returns, a closure
    whose body branches on the constant ``KIND``. Numba prunes the other machineries' branches before it inlines
    their model functions, so a run compiles only its own machinery (the planar pendulum's rk4 kernel: 37 s
    -> 7.5 s from an empty cache, docs/performance.md), and each closure is cached on disk under its own ``KIND``.

    Called like any kernel (the contract above): ``kernel(kind, data, y, ...)``."""

    def __init__(self, make: Callable[[int], Callable[..., tuple[int, int, int]]]) -> None:
        self.make = make
        self._kernels: dict[int, Callable[..., tuple[int, int, int]]] = {}

    def for_kind(self, kind: int) -> Callable[..., tuple[int, int, int]]:
        """The compiled kernel of one machinery."""
        kernel = self._kernels.get(kind)
        if kernel is None:
            kernel = self._kernels.setdefault(kind, self.make(kind))
        return kernel

    def __call__(self, kind: int, *args: Any) -> tuple[int, int, int]:
        return self.for_kind(int(kind))(kind, *args)


@njit(cache=True)
def flag(value: bool) -> bool:
    """``value`` as a run-time bool. numba types a call whose argument is the constant True or False apart from the
    same call with a bool, so a compiled part called with both compiles twice (docs/architecture.md); a part's
    switch passes through here."""
    return bool(value)  # typed bool, where returning the argument itself would keep its literal type


@njit(cache=True)
def state_ok(y: np.ndarray) -> bool:
    """True if every component of y is finite and below the blow-up bound."""
    for i in range(y.shape[0]):
        v = y[i]
        if not (abs(v) < BLOWUP):
            return False
    return True


@njit(cache=True)
def record(
    samples: np.ndarray,
    n_saved: int,
    maxima: np.ndarray,
    ref: np.ndarray,
    t: float,
    y: np.ndarray,
    d: np.ndarray,
    k: int,
    stride: int,
    last: int,
) -> int:
    """Update running maxima with diagnostics d at step k; save a sample row if k is on the stride or k == last.

    With ``ref`` of length 4 and rows of N_ENVELOPE more columns (the driver's), a row also gets the smallest and
    largest energy over the steps since the previous saved row (the energy envelope: the peaks a decimated
    series would miss)."""
    envelope = ref.shape[0] >= 4
    energy = d[D_ENERGY]
    if k == 0:
        ref[REF_ENERGY] = energy
        ref[REF_MOMENTUM] = d[D_MOMENTUM]
        if envelope:
            ref[REF_LOW] = energy
            ref[REF_HIGH] = energy
    elif envelope:
        if energy < ref[REF_LOW]:
            ref[REF_LOW] = energy
        if energy > ref[REF_HIGH]:
            ref[REF_HIGH] = energy
    e = abs(energy - ref[REF_ENERGY])
    if e > maxima[MAX_ENERGY]:
        maxima[MAX_ENERGY] = e
    for j in range(MAX_CONSTRAINT_POSITION, MAX_ORTHOGONALITY + 1):  # the same slots as in the diagnostics row
        if d[j] > maxima[j]:
            maxima[j] = d[j]
    m = abs(d[D_MOMENTUM] - ref[REF_MOMENTUM])
    if m > maxima[MAX_MOMENTUM]:
        maxima[MAX_MOMENTUM] = m
    if d[D_ROTATION] > maxima[MAX_ROTATION]:
        maxima[MAX_ROTATION] = d[D_ROTATION]
    if (k % stride == 0 or k == last) and n_saved < samples.shape[0]:
        row = samples[n_saved]
        row[0] = t
        ny = y.shape[0]
        for i in range(ny):
            row[1 + i] = y[i]
        for j in range(d.shape[0]):
            row[1 + ny + j] = d[j]
        if envelope and row.shape[0] >= 1 + ny + d.shape[0] + N_ENVELOPE:
            row[1 + ny + d.shape[0]] = ref[REF_LOW]
            row[2 + ny + d.shape[0]] = ref[REF_HIGH]
            ref[REF_LOW] = np.inf
            ref[REF_HIGH] = -np.inf
        n_saved += 1
    return n_saved


# ---- Borrowed arrays: the step loops without atomic reference counting (docs/architecture.md) ---------------
def _borrowed_array(context, builder, aryty, value):
    """LLVM IR of an array struct like ``value`` with null memory-info and parent pointers."""
    src = context.make_array(aryty)(context, builder, value)
    dst = context.make_array(aryty)(context, builder)
    for name in ("nitems", "itemsize", "data", "shape", "strides"):
        setattr(dst, name, getattr(src, name))
    dst.meminfo = cgutils.get_null_value(dst.meminfo.type)
    dst.parent = cgutils.get_null_value(dst.parent.type)
    return dst._getvalue()


@intrinsic
def borrowed(typingctx, obj):
    """The same array (or every array of a tuple; numbers pass unchanged) without its reference: passing it to an
    inlined helper or taking a view of it costs no atomic reference counting (numba's increments and decrements of a
    null memory-info pointer return at once). Only for arrays that outlive every use of the result: a kernel's
    arguments, or scratch whose owners ``keep_alive`` holds to the kernel's end."""
    if isinstance(obj, types.Array):
        def codegen(context, builder, sig, args):
            return _borrowed_array(context, builder, sig.args[0], args[0])
        return obj(obj), codegen
    if isinstance(obj, types.BaseTuple) and all(isinstance(t, (types.Array, types.Number, types.Boolean))
                                                 for t in obj.types):
        def codegen_tuple(context, builder, sig, args):
            out = context.get_constant_undef(sig.return_type)
            for i, t in enumerate(sig.args[0].types):
                v = builder.extract_value(args[0], i)
                if isinstance(t, types.Array):
                    v = _borrowed_array(context, builder, t, v)
                out = builder.insert_value(out, v, i)
            return out
        return obj(obj), codegen_tuple
    return None


def _interpreted_borrowed(obj: Any) -> Any:
    """borrowed for interpreted kernels (solvers/jit.py): the object itself, there is no reference count to spare."""
    return obj


if not COMPILED:
    borrowed = _interpreted_borrowed  # type: ignore[assignment]


@njit(cache=True)
def keep_alive(owners) -> None:
    """A use of ``owners`` (the arrays behind kernels.borrowed views) at the end of a kernel, so that numba does not
    free them after their last direct use while their borrowed views are still in use."""


def carve(work: np.ndarray, sizes: tuple) -> tuple:
    """``work`` cut into consecutive views of the given sizes, in order: one method's work layout, named where the
    kernel unpacks it. The method's sizes function (a tuple of its fields' sizes) is the one place that layout is
    written: the kernel carves work with it and ``work_size`` sums it, so the two cannot disagree."""
    out = []
    o = 0
    for n in sizes:
        out.append(work[o : o + n])
        o += n
    return tuple(out)


@overload(carve, jit_options={"forceinline": True})
def _carve_compiled(work, sizes):
    # a tuple of len(sizes) views, written out (a compiled function cannot build a tuple of variable length). Not
    # inline="always": numba's typed-IR inlining of this overload beside other inlined helpers miscompiled a kernel
    # (its scratch read other memory). Inlined by LLVM instead: the views then share the kernel's borrowed ``work``
    # (kernels.borrowed), so LLVM sees their null memory-info and drops their reference counting; returned from a
    # call, each use of a view in the step loop cost two calls of NRT_incref/NRT_decref (docs/performance.md)
    n = len(sizes)
    src = "def impl(work, sizes):\n    o0 = 0\n"
    src += "".join(f"    o{i + 1} = o{i} + sizes[{i}]\n" for i in range(n))
    src += "    return (" + "".join(f"work[o{i}:o{i + 1}], " for i in range(n)) + ")\n"
    scope = {}
    exec(src, scope)  # the source is generated from a count alone
    return scope["impl"]


# state_ok and record inlined into a step loop (a compiled call with array arguments costs an atomic reference-count
# increment and decrement per array every step)
state_ok_inline = njit(inline="always")(python_function(state_ok))
record_inline = njit(inline="always")(python_function(record))

# A step's part that itself calls inlined parts (a Newton loop over residual, Jacobian and update parts) is compiled
# on its own and inlined by LLVM (``forceinline``), not by numba's IR inliner: numba (0.68) deep-copies an inlined
# callee's IR block by block, each block with the callee's whole variable scope, so a part that is itself a tree of
# inlined parts costs its blocks times its variables to inline. Inlined by IR, hermite's step (590 lines with its
# inlined callees) kept numba's inlining pass busy 37 s of the kernel's 101 s compile, against 4.5 s before the step
# was split (docs/performance.md, "Compile time"). The same holds for the large model functions every kernel of a
# machinery calls (coords' constraint terms, rigid's diagnostics, joints' Schur factorisation and momentum
# projection). A part's call increfs and decrefs each array it is passed, which LLVM does not remove: on a step
# as cheap as the planar pendulum's (0.3 us) a part called per stage costs a third more, so per-stage functions
# stay ``inline="always"`` and call their parts only where there is work (coords.rhs: only with constraints).
# Leaves stay ``inline="always"`` (tests/test_structure.py). With its Python wrapper, so that a test can call a
# part alone (without one, such a call crashes the interpreter).


def part(f: Callable[..., Any], qualname: str | None = None) -> Any:
    """``f`` compiled on its own and inlined by LLVM into its callers (``forceinline``; the comment above says
    why), and cached on disk like the kernels: a kernel compiled in another process, a later test or a
    gunicorn's background warm-up loads the part's object code and LLVM bitcode from the cache and inlines it
    from there, instead of compiling the part again (numba keeps a cached library's bitcode for inlining into
    other libraries). The warm-up's two processes then share the parts they compile: 147 s wall and 264 s CPU
    against 193 s and 343 s with each process compiling its own (docs/performance.md, "Compile time").

    ``qualname`` names a copy of ``f`` for a function that is also compiled as a cached function of its own
    (rigid.diagnostics): numba names a function's cache files by its qualified name and first line, and keys
    their entries by signature alone, so the two would load each other's code."""
    if qualname is not None:
        f = FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
        f.__qualname__ = qualname
    return njit(forceinline=True, cache=True)(f)


# ---- Newton iteration: one test for every implicit kernel (docs/methods.md, "Newton iteration") -------------
CONTINUE, CONVERGED, STALLED = 0, 1, 2
# a stalled iteration (no longer contracting) is accepted only this close to the tolerance, and counted
STALL_FACTOR = 100.0


@njit(cache=True, inline="always")
def scaled_update(d_max: float, x_max: float) -> float:
    """A block's Newton update size: max_i |dx_i| / (1 + max_i |x_i|) (dx the update, x the block after it)."""
    return d_max / (1.0 + x_max)


@njit(cache=True, inline="always")
def add_update(z: np.ndarray, dz: np.ndarray, n: int) -> tuple:
    """z += dz (n entries) for one block of Newton unknowns; returns (max |dz|, max |z| after), the two sizes
    :func:`scaled_update` takes."""
    upd = 0.0
    zmax = 0.0
    for i in range(n):
        z[i] += dz[i]
        upd = max(upd, abs(dz[i]))
        zmax = max(zmax, abs(z[i]))
    return upd, zmax


@njit(cache=True, inline="always")
def apply_update(z: np.ndarray, dz: np.ndarray, n: int, prev_upd: float, it: int, tol: float) -> tuple:
    """A one-block Newton iteration's end: z += dz (n entries), then :func:`newton_test` on the scaled update.
    Returns (code, upd, scaled): the caller stops on code != CONTINUE or on an update that is not finite
    (``not upd < 1e300``), and passes ``scaled`` as the next iteration's ``prev_upd``."""
    upd, zmax = add_update(z, dz, n)
    if not upd < 1e300:
        return CONTINUE, upd, prev_upd
    scaled = scaled_update(upd, zmax)
    return newton_test(scaled, prev_upd, it, tol), upd, scaled


@njit(cache=True, inline="always")
def newton_test(upd: float, prev_upd: float, it: int, tol: float) -> int:
    """The Newton stopping test of every implicit kernel, on ``upd``, the largest scaled update of the step's
    unknown blocks (``scaled_update``; ``prev_upd`` that of the previous iteration, ``it`` = 1, 2, ...).

    CONVERGED when upd <= tol. STALLED when the iteration no longer contracts (it > 2, upd >= prev_upd / 2) at
    upd <= STALL_FACTOR tol: round-off limits the update (e.g. constraint residuals divided by h); the step is
    accepted and counted in maxima[MAX_STALLED] (the summary's ``stalled_steps``). CONTINUE otherwise. Not Hairer and
    Wanner's contraction estimate theta/(1 - theta) upd <= tol as a second exit: with the frozen Jacobians of
    spark it stops at constraint residuals of 10 tol.
    """
    if upd <= tol:
        return CONVERGED
    if it > 2 and upd >= 0.5 * prev_upd and upd <= STALL_FACTOR * tol:
        return STALLED
    return CONTINUE


@njit(cache=True, inline="always")
def newton_done(code: int, it: int, maxima: np.ndarray) -> None:
    """Book a finished Newton iteration: its iterations, and the step if it stalled."""
    maxima[MAX_NEWTON] += it
    if code == STALLED:
        maxima[MAX_STALLED] += 1.0


@njit(cache=True, inline="always")
def fail(info: np.ndarray, t: float, residual: float, it: int) -> int:
    """Record a Newton failure at time t (residual, iterations) for the driver's message; returns NEWTON."""
    info[INFO_TIME] = t
    info[INFO_RESIDUAL] = residual
    info[INFO_NEWTON] = it
    return NEWTON


REFRESH = 0.25  # a Newton iterate contracting by less than this asks for a fresh Jacobian (simplified Newton)


@njit(cache=True, inline="always")
def newton_next(upd: float, prev_upd: float, it: int, tol: float, fresh: bool) -> tuple:
    """newton_test, then the bookkeeping of an iteration that goes on: (code, the update to compare the next one
    with, whether the Jacobian should be refreshed: the iterate contracted by less than REFRESH)."""
    code = newton_test(upd, prev_upd, it, tol)
    if code == CONTINUE:
        fresh = fresh or upd > REFRESH * prev_upd
        prev_upd = upd
    return code, prev_upd, fresh


@njit(cache=True, inline="always")
def newton_next2(d_max: float, x_max: float, dm_max: float, m_max: float, prev_upd: float, it: int, tol: float,
                 fresh: bool) -> tuple:
    """newton_next for the usual two blocks, the configuration unknowns (update d_max, size x_max) and the
    multipliers (dm_max, m_max)."""
    upd = max(scaled_update(d_max, x_max), scaled_update(dm_max, m_max))
    return newton_next(upd, prev_upd, it, tol, fresh)


@njit(cache=True, inline="always")
def newton_failed(code: int, it: int, maxima: np.ndarray, info: np.ndarray, t: float, residual: float) -> bool:
    """After the iteration: book it (newton_done) and, if it did not converge, record the failure (fail)."""
    newton_done(code, it, maxima)
    if code == CONTINUE:
        fail(info, t, residual, it)
        return True
    return False
