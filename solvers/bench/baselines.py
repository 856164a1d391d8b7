"""Speed and accuracy baselines for the compiled kernels, on B1 (seed 000's spatial double pendulum).

* :func:`rattlie_numpy` is the SAME RATTLie step as the compiled kernel ``solvers/methods/rattlie.py``
  (Hante & Arnold; seed 000 eqs. 15-23; docs/algorithms.md section 1), written step by step in plain NumPy:
  a per-step Python loop, small numpy arrays, ``np.linalg.solve`` for the Newton systems of stage (a) and the
  linear system of stage (b). It mirrors the kernel's choices one for one (predictor
  Delta_0 = 1.5 v_n - 0.5 v_{n-1}, multipliers carried over from the last step, simplified Newton with the
  Jacobian of the first iterate, the same stopping rule, the same small-angle series), so it reproduces the
  kernel's trajectory to round-off. It answers "what does compiling buy?".
* :func:`dop853_reference` integrates the same problem, the index-1 DAE of the rigid machinery (state layout of
  ``solvers/models/rigid_dae.py``, right-hand side = the compiled ``rigid_dae.rhs`` behind a small Python wrapper), with
  SciPy's ``solve_ivp(method="DOP853")``. It answers "what does a standard library integrator cost for the same
  accuracy?" and shows the drift (energy, constraints, orthogonality) a non-geometric integrator has.

No SciPy in the NumPy RATTLie; SciPy only in the DOP853 baseline.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .. import kernels, lie
from ..jit import python_function
from ..models import dispatch, rigid
from ..models import spatial_double_pendulum as sdp
from ..models.rigid_data import RigidData
from ..registry import METHODS

BENCHMARK = "spatial_double_pendulum"


def seed_model(params: Mapping[str, Any] | None = None):
    """The B1 model (seed 000's state unless ``params`` override it), built exactly as ``solvers.simulate`` does."""
    return sdp.build(sdp.BENCHMARK.resolve(params))


# ---------------------------------------------------------------------------------------------------------------
# SO(3) pieces in plain NumPy, on solvers.lie's coefficient functions
# ---------------------------------------------------------------------------------------------------------------


def _hat(w: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


# lie.py's coefficient functions with their small-angle series, uncompiled (numba's py_func: the same source)
_sinc1, _cosc2, _sinc3, _c, _c3 = map(python_function, (lie.sinc1, lie.cosc2, lie.sinc3, lie.c_coef, lie.c3_coef))


def _poly(w: np.ndarray, a: float, b: float) -> np.ndarray:
    """I + a W + b W^2 = (1 - b |w|^2) I + b w w^T + a W."""
    return (1.0 - b * (w @ w)) * np.eye(3) + b * np.outer(w, w) + a * _hat(w)


def expm(w: np.ndarray) -> np.ndarray:
    """exp(hat(w)) by Rodrigues' formula."""
    x = np.sqrt(w @ w)
    return _poly(w, _sinc1(x), _cosc2(x))


def tangent(w: np.ndarray) -> np.ndarray:
    """T(w) = I - ((1 - cos x)/x^2) W + ((x - sin x)/x^3) W^2."""
    x = np.sqrt(w @ w)
    return _poly(w, -_cosc2(x), _sinc3(x))


def tangent_inv_t(w: np.ndarray) -> np.ndarray:
    """T(w)^-T = I - W/2 + c(x) W^2."""
    return _poly(w, -0.5, _c(np.sqrt(w @ w)))


def d_tangent_inv_t(w: np.ndarray, a: np.ndarray) -> np.ndarray:
    """D(w; a) = d/dw [T(w)^-T a] = 1/2 hat(a) - c (W hat(a) + hat(w x a)) + c3 (w x (w x a)) w^T."""
    x = np.sqrt(w @ w)
    wa = np.cross(w, a)
    return 0.5 * _hat(a) - _c(x) * (_hat(w) @ _hat(a) + _hat(wa)) + _c3(x) * np.outer(np.cross(w, wa), w)


# ---------------------------------------------------------------------------------------------------------------
# the rigid machinery in NumPy (bodies on SO(3) x R^3, spherical joints)
# ---------------------------------------------------------------------------------------------------------------


class _Rigid:
    """Mass matrix, potential gradient, constraints and their Jacobian of a rigid model, as numpy arrays."""

    def __init__(self, data: tuple):
        mass, inertia, grav, jb, jp = data[:5]
        if np.any(data[6]):
            raise ValueError("the NumPy RATTLie baseline is written for free bodies (B1)")
        self.mass = np.asarray(mass, dtype=float)
        self.inertia = np.asarray(inertia, dtype=float)
        self.grav = np.asarray(grav, dtype=float)
        self.jb = np.asarray(jb)
        self.jp = np.asarray(jp, dtype=float)
        self.nb = self.mass.shape[0]
        self.nv = 6 * self.nb
        self.nm = 3 * self.jb.shape[0]
        self.M = np.zeros((self.nv, self.nv))
        for i in range(self.nb):
            self.M[6 * i : 6 * i + 3, 6 * i : 6 * i + 3] = self.inertia[i]
            self.M[6 * i + 3 : 6 * i + 6, 6 * i + 3 : 6 * i + 6] = self.mass[i] * np.eye(3)
        # f = grad U in the Lie-algebra sense: 0 for rotations (x is the centre of mass), -m g for translations
        self.f = np.zeros(self.nv)
        for i in range(self.nb):
            self.f[6 * i + 3 : 6 * i + 6] = -self.mass[i] * self.grav

    @staticmethod
    def split(y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(R (N,3,3), x (N,3), w (6N) = [Omega_i, v_i]) from the flat state."""
        s = y.reshape(-1, rigid.BODY)
        return s[:, 0:9].reshape(-1, 3, 3).copy(), s[:, 9:12].copy(), s[:, 12:18].reshape(-1).copy()

    @staticmethod
    def join(R: np.ndarray, x: np.ndarray, w: np.ndarray) -> np.ndarray:
        n = R.shape[0]
        return np.concatenate([R.reshape(n, 9), x, w.reshape(n, 6)], axis=1).reshape(-1)

    def phi(self, R: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Phi_k = x_i + R_i a - x_j - R_j b (or - b for the ground)."""
        out = np.empty(self.nm)
        for k, (i, j) in enumerate(self.jb):
            a, b = self.jp[k]
            p = x[i] + R[i] @ a
            out[3 * k : 3 * k + 3] = p - (x[j] + R[j] @ b if j >= 0 else b)
        return out

    def jacobian(self, R: np.ndarray) -> np.ndarray:
        """B (3K x 6N): B_Omega_i = -R_i hat(a), B_v_i = I, B_Omega_j = R_j hat(b), B_v_j = -I (seed 000 Table 1)."""
        B = np.zeros((self.nm, self.nv))
        for k, (i, j) in enumerate(self.jb):
            a, b = self.jp[k]
            B[3 * k : 3 * k + 3, 6 * i : 6 * i + 3] = -R[i] @ _hat(a)
            B[3 * k : 3 * k + 3, 6 * i + 3 : 6 * i + 6] = np.eye(3)
            if j >= 0:
                B[3 * k : 3 * k + 3, 6 * j : 6 * j + 3] = R[j] @ _hat(b)
                B[3 * k : 3 * k + 3, 6 * j + 3 : 6 * j + 6] = -np.eye(3)
        return B

    def initial_multipliers(self, R: np.ndarray, w: np.ndarray) -> np.ndarray:
        """lambda of the index-1 DAE [[M, B^T], [B, 0]] [dw/dt; lambda] = [f_dyn; gamma] at the state."""
        rhs = np.zeros(self.nv + self.nm)
        for i in range(self.nb):
            W = w[6 * i : 6 * i + 3]
            rhs[6 * i : 6 * i + 3] = -np.cross(W, self.inertia[i] @ W)
            rhs[6 * i + 3 : 6 * i + 6] = self.mass[i] * self.grav
        for k, (i, j) in enumerate(self.jb):
            a, b = self.jp[k]
            Wi = w[6 * i : 6 * i + 3]
            g = R[i] @ np.cross(Wi, np.cross(Wi, a))
            if j >= 0:
                Wj = w[6 * j : 6 * j + 3]
                g = g - R[j] @ np.cross(Wj, np.cross(Wj, b))
            rhs[self.nv + 3 * k : self.nv + 3 * k + 3] = -g
        B = self.jacobian(R)
        K = np.block([[self.M, B.T], [B, np.zeros((self.nm, self.nm))]])
        return np.linalg.solve(K, rhs)[self.nv :]

    def advance(self, R: np.ndarray, x: np.ndarray, dq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """R_i exp(hat(dq_Omega_i)), x_i + dq_v_i."""
        R1 = np.empty_like(R)
        x1 = np.empty_like(x)
        for i in range(self.nb):
            R1[i] = R[i] @ expm(dq[6 * i : 6 * i + 3])
            x1[i] = x[i] + dq[6 * i + 3 : 6 * i + 6]
        return R1, x1


def rattlie_numpy(
    h: float,
    n_steps: int,
    params: Mapping[str, Any] | None = None,
    newton_tol: float | None = None,
    newton_max_iter: int | None = None,
    stats: dict[str, Any] | None = None,
) -> tuple[np.ndarray, float]:
    """RATTLie on the spatial double pendulum, one Python loop iteration per step; returns (final state, s/step).

    The final state has the flat layout of ``solvers/models/rigid_dae.py`` (per body R (9), x, Omega, v). Newton
    options default to the compiled method's defaults. Seconds per step is the wall time of the step loop
    divided by ``n_steps`` (set-up excluded). A ``stats`` dict, if given, receives ``newton_iterations`` (total)
    and ``iterations`` (per step). One step from (q_n, p_n = M v_n):

    (a) unknowns Delta, mu = h lambda+_n:  T^-T(-h Delta) M Delta - p_n + (h/2) f + (1/2) B(q_n)^T mu = 0,
        Phi(q_n exp(h Delta))/h = 0; simplified Newton with the Jacobian
        [[T^-T(-h Delta) M - h D(-h Delta; M Delta), B(q_n)^T/2], [B(q_{n+1}) T(h Delta), 0]] of the first iterate;
    (b) unknowns v_{n+1}, nu:  M v_{n+1} + B(q_{n+1})^T nu = T^-T(h Delta) M Delta - (h/2) f,  B(q_{n+1}) v_{n+1} = 0.
    """
    opts = METHODS["rattlie"].resolve(
        {k: v for k, v in (("newton_tol", newton_tol), ("newton_max_iter", newton_max_iter)) if v is not None}
    )
    tol = float(opts["newton_tol"])
    max_iter = int(opts["newton_max_iter"])
    model = seed_model(params)
    sys_ = _Rigid(model.data)
    nb, nv, nm = sys_.nb, sys_.nv, sys_.nm
    M, f = sys_.M, sys_.f  # f is constant: gravity on centres of mass
    R, x, w = sys_.split(model.y0)
    mu = h * sys_.initial_multipliers(R, w)
    w_older = w.copy()  # v_{n-1} for the predictor
    mu_prev = mu.copy()
    d1 = np.zeros(nv)  # Delta_{n-1/2}, Delta_{n-3/2}, Delta_{n-5/2}
    d2 = np.zeros(nv)
    d3 = np.zeros(nv)
    K = np.zeros((nv + nm, nv + nm))
    iters = []
    t0 = time.perf_counter()
    for k in range(n_steps):
        p = M @ w
        Bn = sys_.jacobian(R)
        # the kernel's predictors: Delta quadratically extrapolated (after three steps), mu linearly
        if k > 2:
            delta = 3.0 * d1 - 3.0 * d2 + d3
        elif k > 0:
            delta = 1.5 * w - 0.5 * w_older
        else:
            delta = w.copy()
        last = mu.copy()
        if k > 1:
            mu = 2.0 * last - mu_prev
        mu_prev = last
        converged = False
        prev_upd = np.inf
        it = 0
        while it < max_iter:
            it += 1
            hd = h * delta
            R1, x1 = sys_.advance(R, x, hd)
            r1 = np.empty(nv)
            for i in range(nb):
                o = 6 * i
                J = sys_.inertia[i]
                Jd = J @ delta[o : o + 3]
                Tm = tangent_inv_t(-hd[o : o + 3])
                r1[o : o + 3] = Tm @ Jd
                r1[o + 3 : o + 6] = sys_.mass[i] * delta[o + 3 : o + 6]
                if it == 1:  # simplified Newton: this Jacobian serves the whole step
                    K[o : o + 3, o : o + 3] = Tm @ J - h * d_tangent_inv_t(-hd[o : o + 3], Jd)
                    K[o + 3 : o + 6, o + 3 : o + 6] = sys_.mass[i] * np.eye(3)
            r1 += -p + 0.5 * h * f + 0.5 * (Bn.T @ mu)
            r2 = sys_.phi(R1, x1) / h
            if it == 1:
                C = sys_.jacobian(R1)
                for i in range(nb):
                    o = 6 * i
                    C[:, o : o + 3] = C[:, o : o + 3] @ tangent(hd[o : o + 3])
                K[:nv, nv:] = 0.5 * Bn.T
                K[nv:, :nv] = C
            dz = np.linalg.solve(K, -np.concatenate([r1, r2]))
            delta += dz[:nv]
            mu += dz[nv:]
            # the kernels' common test (kernels.newton_test, written out in NumPy)
            upd = max(np.abs(dz[:nv]).max() / (1.0 + np.abs(delta).max()),
                      np.abs(dz[nv:]).max() / (1.0 + np.abs(mu).max()))
            if upd <= tol or (it > 2 and upd >= 0.5 * prev_upd and upd <= kernels.STALL_FACTOR * tol):
                converged = True
                break
            prev_upd = upd
        iters.append(it)
        if not converged:
            raise RuntimeError(f"rattlie_numpy: Newton did not converge at step {k + 1} (t = {(k + 1) * h:g} s)")
        hd = h * delta
        d3, d2, d1 = d2, d1, delta.copy()
        R, x = sys_.advance(R, x, hd)
        # stage (b)
        B1 = sys_.jacobian(R)
        a = np.empty(nv)
        for i in range(nb):
            o = 6 * i
            a[o : o + 3] = tangent_inv_t(hd[o : o + 3]) @ (sys_.inertia[i] @ delta[o : o + 3])
            a[o + 3 : o + 6] = sys_.mass[i] * delta[o + 3 : o + 6]
        a -= 0.5 * h * f
        Kb = np.block([[M, B1.T], [B1, np.zeros((nm, nm))]])
        w_new = np.linalg.solve(Kb, np.concatenate([a, np.zeros(nm)]))[:nv]
        w_older = w
        w = w_new
    seconds = time.perf_counter() - t0
    if stats is not None:
        stats["newton_iterations"] = int(sum(iters))
        stats["iterations"] = iters
    return sys_.join(R, x, w), seconds / max(n_steps, 1)


# ---------------------------------------------------------------------------------------------------------------
# SciPy DOP853 on the index-1 DAE
# ---------------------------------------------------------------------------------------------------------------


def position_error(y: np.ndarray, y_ref: np.ndarray) -> float:
    """Largest distance (m) between the centres of mass of corresponding bodies in two flat rigid states."""
    a = np.asarray(y, dtype=float).reshape(-1, rigid.BODY)[:, 9:12]
    b = np.asarray(y_ref, dtype=float).reshape(-1, rigid.BODY)[:, 9:12]
    return float(np.linalg.norm(a - b, axis=1).max())


def rigid_diagnostics(data: RigidData, states: np.ndarray) -> dict[str, float]:
    """Max |E - E0|, max |Phi|, max |G v|, max orthogonality error over the rows of ``states`` (first = t0)."""
    d = np.empty(kernels.N_DIAG)
    acc = np.zeros(states.shape[1])
    rows = np.empty((states.shape[0], kernels.N_DIAG))
    for n, y in enumerate(states):
        rigid.diagnostics(data, np.ascontiguousarray(y), acc, d)
        rows[n] = d
    return {
        "max_energy_error": float(np.abs(rows[:, 0] - rows[0, 0]).max()),
        "max_constraint_position": float(rows[:, 1].max()),
        "max_constraint_velocity": float(rows[:, 2].max()),
        "max_orthogonality_error": float(rows[:, 4].max()),
    }


def dop853_reference(
    t_end: float = 50.0,
    rtol: float = 1e-10,
    atol: float | None = None,
    params: Mapping[str, Any] | None = None,
    check_times: Sequence[float] = (),
    reference: Mapping[str, Any] | None = None,
    diagnostics: bool = True,
) -> dict[str, Any]:
    """SciPy DOP853 on the index-1 DAE of the rigid machinery (the compiled ``rigid_dae.rhs``, dispatch.rhs_function).

    Returns wall and CPU (process) time of ``solve_ivp``, RHS evaluations, accepted steps, the final state and
    the states at ``check_times`` (via the dense output); with ``diagnostics`` the maxima of |E - E0|, |Phi|,
    |G v| and |I - R R^T| over the accepted steps (the drift a non-geometric integrator has); with a
    ``reference`` (an earlier result of this function, e.g. at rtol = atol = 1e-12, same check times) the
    centre-of-mass position errors (m) at t_end and at the check times. ``atol`` defaults to ``rtol``.
    """
    from scipy.integrate import solve_ivp  # the only SciPy use in the package

    atol = rtol if atol is None else atol
    model = seed_model(params)
    data, y0 = model.data, model.y0.astype(float)
    fun = dispatch.rhs_function(*dispatch.pack("rigid", data),
                                lambda t: FloatingPointError(f"singular saddle-point system at t = {t:g}"))

    fun(0.0, y0)  # compile / load the kernel outside the timing
    checks = sorted(float(c) for c in check_times if 0.0 < c <= t_end)
    w0 = time.perf_counter()
    c0 = time.process_time()
    sol = solve_ivp(fun, (0.0, t_end), y0, method="DOP853", rtol=rtol, atol=atol,
                    dense_output=bool(checks))
    cpu = time.process_time() - c0
    wall = time.perf_counter() - w0
    if not sol.success:
        raise RuntimeError(f"DOP853 failed: {sol.message}")
    y_end = sol.y[:, -1].copy()
    at = {c: sol.sol(c) for c in checks}
    out: dict[str, Any] = {
        "rtol": rtol,
        "atol": atol,
        "t_end": t_end,
        "wall_s": wall,
        "cpu_s": cpu,
        "nfev": int(sol.nfev),
        "steps": int(sol.t.size - 1),
        "y_final": y_end,
        "y_at": at,
    }
    if diagnostics:
        out.update(rigid_diagnostics(data, sol.y.T))
    if reference is not None:
        out["error_final"] = position_error(y_end, reference["y_final"])
        out["error_at"] = {c: position_error(at[c], reference["y_at"][c]) for c in checks if c in reference["y_at"]}
    return out


# ---------------------------------------------------------------------------------------------------------------
# the comparison printed by ``python -m solvers.bench --baselines``
# ---------------------------------------------------------------------------------------------------------------


def flat_state(res: Any, i: int = -1) -> np.ndarray:
    """The flat rigid state (layout of solvers/models/rigid.py, free bodies) of saved sample ``i`` of a B1 Result."""
    s = res.state
    n = s["x"].shape[1]
    return np.concatenate([np.concatenate([s["R"][i, b].ravel(), s["x"][i, b], s["Omega"][i, b], s["v"][i, b]])
                           for b in range(n)])


def _state_at(res: Any, t: float) -> np.ndarray | None:
    k = np.nonzero(np.abs(res.t - t) <= 1e-9 * max(1.0, t))[0]
    return flat_state(res, int(k[0])) if k.size else None


def speed_comparison(
    repeat: int = 3,
    numpy_steps: int = 300,
    h: float = 1e-3,
    t_end: float = 50.0,
    check_time: float = 10.0,
    tolerances: Sequence[float] = (1e-8, 1e-10),
    ref_rtol: float = 1e-12,
    methods: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Compiled seed-000 methods vs the NumPy RATTLie vs SciPy DOP853 on the seed run; medians of ``repeat``.

    Accuracy: centre-of-mass position error (m) at ``check_time`` and at ``t_end`` against DOP853 at
    rtol = atol = ``ref_rtol``; the reference's own uncertainty is its difference to a run at ref_rtol / 10.
    The motion is chaotic (errors grow about tenfold every 3 s), so errors at t_end = 50 s compare nothing but
    the chaos; the errors at ``check_time`` are the meaningful ones.
    """
    from .. import api

    methods = [m for m in (methods or ("rattlie", "lgvi", "lgvi_lagrangian", "lie_galpha", "rk4"))
               if m in api.methods(BENCHMARK)]
    checks = (check_time,)
    ref = dop853_reference(t_end, ref_rtol, check_times=checks, diagnostics=False)
    ref2 = dop853_reference(t_end, ref_rtol / 10, check_times=checks, diagnostics=False)
    out: dict[str, Any] = {
        "benchmark": BENCHMARK, "h": h, "t_end": t_end, "check_time": check_time, "repeat": repeat,
        "reference": {"rtol": ref_rtol, "nfev": ref["nfev"], "cpu_s": ref["cpu_s"],
                      "uncertainty_at_check": position_error(ref["y_at"][check_time], ref2["y_at"][check_time]),
                      "uncertainty_final": position_error(ref["y_final"], ref2["y_final"])},
        "compiled": [], "dop853": [],
    }
    t_last = api.step_count(h, t_end) * h
    save_at = sorted({check_time, t_last})  # the check time (a multiple of h) and the end
    for m in methods:
        cpu = []
        res = None
        for _ in range(repeat):
            res = api.simulate(BENCHMARK, m, h=h, t_end=t_end, save_at=save_at)
            cpu.append(res.cpu_time)
        assert res is not None
        at = _state_at(res, check_time)
        out["compiled"].append({
            "method": m, "status": res.status, "steps": res.steps, "cpu_s": float(np.median(cpu)),
            "us_per_step": 1e6 * float(np.median(cpu)) / max(res.steps, 1),
            "error_at_check": position_error(at, ref["y_at"][check_time]) if at is not None else float("nan"),
            "error_final": position_error(flat_state(res), ref["y_final"]) if res.ok else float("nan"),
            "max_energy_error": res.summary["max_energy_error"],
            "max_constraint_position": res.summary["max_constraint_position"],
            "max_constraint_velocity": res.summary["max_constraint_velocity"],
            "max_orthogonality_error": res.summary["max_orthogonality_error"],
        })
    per_step = [rattlie_numpy(h, numpy_steps)[1] for _ in range(repeat)]
    out["numpy_rattlie"] = {"steps": numpy_steps, "us_per_step": 1e6 * float(np.median(per_step)),
                            "all_us_per_step": [1e6 * p for p in per_step]}
    comp = next((c for c in out["compiled"] if c["method"] == "rattlie"), None)
    out["speedup_numpy_over_compiled"] = (out["numpy_rattlie"]["us_per_step"] / comp["us_per_step"]
                                          if comp else float("nan"))
    for tol in tolerances:
        runs = [dop853_reference(t_end, tol, check_times=checks, reference=ref, diagnostics=(i == 0))
                for i in range(repeat)]
        first = runs[0]
        out["dop853"].append({
            "rtol": tol, "atol": tol, "nfev": first["nfev"], "steps": first["steps"],
            "wall_s": float(np.median([r["wall_s"] for r in runs])),
            "cpu_s": float(np.median([r["cpu_s"] for r in runs])),
            "error_at_check": first["error_at"][check_time], "error_final": first["error_final"],
            **{k: first[k] for k in ("max_energy_error", "max_constraint_position", "max_constraint_velocity",
                                     "max_orthogonality_error")},
        })
    return out


def format_comparison(c: Mapping[str, Any]) -> str:
    """The comparison as a text table."""
    ct, te = c["check_time"], c["t_end"]
    r = c["reference"]
    lines = [
        f"# baselines: {c['benchmark']}, seed run h = {c['h']:g}, t_end = {te:g} s; medians of {c['repeat']} runs",
        f"# accuracy: centre-of-mass position error (m) against DOP853 at rtol = atol = {r['rtol']:g} "
        f"({r['nfev']} RHS evaluations); its own uncertainty (vs rtol/10): {r['uncertainty_at_check']:.1e} m at "
        f"t = {ct:g} s, {r['uncertainty_final']:.1e} m at t = {te:g} s (chaotic motion: errors at t = {te:g} s "
        "are not meaningful)",
        f"{'solver':28s} {'cpu s':>8s} {'us/step':>9s} {'RHS evals':>10s} {'err@' + format(ct, 'g') + 's':>9s} "
        f"{'err@' + format(te, 'g') + 's':>9s} {'max|E-E0|':>9s} {'max|Phi|':>9s} {'max|Gv|':>9s} {'max orth':>9s}",
    ]

    def row(name, cpu, us, nfev, e1, e2, s):
        lines.append(f"{name:28s} {cpu:8.3f} {us:>9s} {nfev:>10s} {e1:9.1e} {e2:9.1e} "
                     f"{s['max_energy_error']:9.1e} {s['max_constraint_position']:9.1e} "
                     f"{s['max_constraint_velocity']:9.1e} {s['max_orthogonality_error']:9.1e}")

    for m in c["compiled"]:
        row(f"{m['method']} (compiled)", m["cpu_s"], f"{m['us_per_step']:.3f}", "-", m["error_at_check"],
            m["error_final"], m)
    for d in c["dop853"]:
        row(f"DOP853 rtol=atol={d['rtol']:g}", d["cpu_s"], "-", str(d["nfev"]), d["error_at_check"],
            d["error_final"], d)
    n = c["numpy_rattlie"]
    lines.append(f"{'rattlie (NumPy, ' + str(n['steps']) + ' steps)':28s} {'':8s} {n['us_per_step']:9.1f}"
                 f"   (same algorithm step by step in Python/NumPy)")
    lines.append(f"speed-up of the compiled RATTLie over the NumPy one: {c['speedup_numpy_over_compiled']:.0f}x")
    dop = {d["rtol"]: d for d in c["dop853"]}
    for tol, d in dop.items():
        lines.append(f"DOP853 rtol={tol:g}: wall {d['wall_s']:.3f} s, cpu {d['cpu_s']:.3f} s, {d['steps']} steps")
    return "\n".join(lines)
