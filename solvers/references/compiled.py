"""The references' compiled integrator: DOP853 (Hairer, Norsett and Wanner, Solving Ordinary Differential
Equations I, Sec. II.10; the 8(5,3) pair with its 7th-order dense output) in numba, calling compiled right-hand
sides of the reference equations.

It follows SciPy's ``solve_ivp(method="DOP853")`` step for step (the same coefficients, read from SciPy as data;
the same error norm, step-size control and first step), so it takes the steps SciPy takes and its accuracy is
SciPy's; only the Python overhead per step and the NumPy temporaries of each right-hand side call are gone.
Dense output is formed only on steps that contain a requested time.

The right-hand sides are the equations of :mod:`solvers.references.numpy_rhs` (their readable NumPy
specification; tests/test_reference_rhs.py checks the two agree), written as loops over small arrays. One
function :func:`rhs` branches on a problem code (``PLANAR`` ...); a problem's constants travel in a float array
``p`` and its scratch in ``w`` (:func:`scratch_size`), so a call allocates nothing.
Imports nothing else from ``solvers``.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.integrate._ivp import dop853_coefficients as _dop

PLANAR, TWO_BARS, TOP, CHAIN = 0, 1, 2, 3  # problem codes of :func:`rhs`

# DOP853's tableau as data (SciPy's copy of Hairer's coefficients)
N_STAGES = _dop.N_STAGES
A = np.ascontiguousarray(_dop.A)  # (16, 16): rows 13-15 are the dense output's extra stages
B = np.ascontiguousarray(_dop.B)
C = np.ascontiguousarray(_dop.C)
E3 = np.ascontiguousarray(_dop.E3)
E5 = np.ascontiguousarray(_dop.E5)
D = np.ascontiguousarray(_dop.D)  # (4, 16)
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0  # scipy.integrate._ivp.rk
ERROR_EXPONENT = -1.0 / 8.0  # -1 / (error estimator order + 1)

# status of :func:`advance`
RUNNING, DONE, TOO_SMALL_STEP = 0, 1, 2


# ----------------------------------------------------------------------------------------------------------
# right-hand sides
# ----------------------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _quat_matrix(y: np.ndarray, o: int, R: np.ndarray, r: int) -> None:
    """R[r:r+9] = the rotation of the (not necessarily unit) quaternion y[o:o+4], scalar first, over |q|^2."""
    w, x, yy, z = y[o], y[o + 1], y[o + 2], y[o + 3]
    n = w * w + x * x + yy * yy + z * z
    R[r + 0] = (w * w + x * x - yy * yy - z * z) / n
    R[r + 1] = 2.0 * (x * yy - w * z) / n
    R[r + 2] = 2.0 * (x * z + w * yy) / n
    R[r + 3] = 2.0 * (x * yy + w * z) / n
    R[r + 4] = (w * w - x * x + yy * yy - z * z) / n
    R[r + 5] = 2.0 * (yy * z - w * x) / n
    R[r + 6] = 2.0 * (x * z - w * yy) / n
    R[r + 7] = 2.0 * (yy * z + w * x) / n
    R[r + 8] = (w * w - x * x - yy * yy + z * z) / n


@njit(cache=True, inline="always")
def _quat_rate(y: np.ndarray, o: int, W: np.ndarray, k: int, out: np.ndarray, r: int) -> None:
    """out[r:r+4] = dq/dt = 1/2 q (x) (0, Omega) for q = y[o:o+4], Omega = W[k:k+3]."""
    w, a, b, c = y[o], y[o + 1], y[o + 2], y[o + 3]
    p, q, s = W[k], W[k + 1], W[k + 2]
    out[r] = 0.5 * -(a * p + b * q + c * s)
    out[r + 1] = 0.5 * (w * p + (b * s - c * q))
    out[r + 2] = 0.5 * (w * q + (c * p - a * s))
    out[r + 3] = 0.5 * (w * s + (a * q - b * p))


@njit(cache=True)
def _solve(M: np.ndarray, m0: int, b: np.ndarray, b0: int, n: int) -> None:
    """b[b0:b0+n] <- M^-1 b by Gaussian elimination with partial pivoting; M is the row-major n x n matrix at
    M[m0:m0+n*n], overwritten."""
    for k in range(n):
        piv = k
        big = abs(M[m0 + k * n + k])
        for i in range(k + 1, n):
            if abs(M[m0 + i * n + k]) > big:
                big, piv = abs(M[m0 + i * n + k]), i
        if piv != k:
            for j in range(n):
                M[m0 + k * n + j], M[m0 + piv * n + j] = M[m0 + piv * n + j], M[m0 + k * n + j]
            b[b0 + k], b[b0 + piv] = b[b0 + piv], b[b0 + k]
        inv = 1.0 / M[m0 + k * n + k]
        for i in range(k + 1, n):
            lik = M[m0 + i * n + k] * inv
            if lik != 0.0:
                for j in range(k + 1, n):
                    M[m0 + i * n + j] -= lik * M[m0 + k * n + j]
                b[b0 + i] -= lik * b[b0 + k]
    for k in range(n - 1, -1, -1):
        s = b[b0 + k]
        for j in range(k + 1, n):
            s -= M[m0 + k * n + j] * b[b0 + j]
        b[b0 + k] = s / M[m0 + k * n + k]


@njit(cache=True)
def _planar(y: np.ndarray, p: np.ndarray, out: np.ndarray) -> None:
    """theta'' = -(m g l / J) sin(theta); p = [m g l / J]."""
    out[0] = y[1]
    out[1] = -p[0] * np.sin(y[0])


@njit(cache=True)
def _two_bars(y: np.ndarray, p: np.ndarray, out: np.ndarray) -> None:
    """Lagrange's equations of two uniform bars in their absolute angles (solutions._two_bar_angles);
    p = [M11, M22, a, G1, G2]."""
    M11, M22, a, G1, G2 = p[0], p[1], p[2], p[3], p[4]
    q1, q2, w1, w2 = y[0], y[1], y[2], y[3]
    d = q1 - q2
    c, s = np.cos(d), np.sin(d)
    f1 = -a * s * w2 * w2 - G1 * np.cos(q1)
    f2 = a * s * w1 * w1 - G2 * np.cos(q2)
    det = M11 * M22 - (a * c) ** 2
    out[0] = w1
    out[1] = w2
    out[2] = (M22 * f1 - a * c * f2) / det
    out[3] = (M11 * f2 - a * c * f1) / det


@njit(cache=True)
def _top(y: np.ndarray, p: np.ndarray, w: np.ndarray, out: np.ndarray) -> None:
    """Heavy top: J dOmega/dt = m g rho x (R^T e3) - Omega x J Omega, dq/dt = 1/2 q (x) Omega; y = [q, Omega],
    p = [m g rho (3), J (9, row-major)]; w: R (9), J copy (9)."""
    _quat_matrix(y, 0, w, 0)
    r0, r1, r2 = w[6], w[7], w[8]  # R^T e3: the third row of R
    W0, W1, W2 = y[4], y[5], y[6]
    J = p[3:12]
    L0 = J[0] * W0 + J[1] * W1 + J[2] * W2
    L1 = J[3] * W0 + J[4] * W1 + J[5] * W2
    L2 = J[6] * W0 + J[7] * W1 + J[8] * W2
    out[4] = (p[1] * r2 - p[2] * r1) - (W1 * L2 - W2 * L1)
    out[5] = (p[2] * r0 - p[0] * r2) - (W2 * L0 - W0 * L2)
    out[6] = (p[0] * r1 - p[1] * r0) - (W0 * L1 - W1 * L0)
    for i in range(9):
        w[9 + i] = J[i]
    _solve(w, 9, out, 4, 3)
    _quat_rate(y, 0, y, 4, out, 0)


@njit(cache=True)
def _chain(y: np.ndarray, p: np.ndarray, w: np.ndarray, out: np.ndarray) -> None:
    """N rods joined end to end (B7; N = 2 is B1) in N quaternions and N body angular velocities, Kane's equations
    (rods.spatial_chain_reference):  (m A^T A + diag(J)) dOmega/dt = A^T (m g e3 - m a_c) - [Omega_i x J Omega_i].
    y = [q (N, 4), Omega (N, 3)]; p = [N, m, g, J (9), c (3), d (3), hat(c) (9), hat(d) (9)];
    w: :func:`scratch_size`."""
    N = int(p[0])
    m, g = p[1], p[2]
    J = p[3:12]
    c = p[12:15]
    d = p[15:18]
    n3 = 3 * N
    R = w[0:9 * N]
    P = w[9 * N:18 * N]
    Q = w[18 * N:27 * N]
    S = w[27 * N:36 * N]  # n_k P_k + Q_k
    yv = w[36 * N:39 * N]  # m g e3 - m a_c per rod
    tail = w[39 * N:42 * N]
    M = w
    m0 = 42 * N  # the mass matrix, row-major
    o = 4 * N  # the angular velocities in y
    hc = p[18:27]  # hat(c), hat(d) row-major
    hd = p[27:36]
    for i in range(N):
        _quat_matrix(y, 4 * i, R, 9 * i)
        beyond = float(N - 1 - i)
        for a in range(3):
            for b in range(3):
                sp = 0.0
                sq = 0.0
                for k in range(3):
                    sp += R[9 * i + 3 * a + k] * hd[3 * k + b]
                    sq += R[9 * i + 3 * a + k] * hc[3 * k + b]
                P[9 * i + 3 * a + b] = sp
                Q[9 * i + 3 * a + b] = sq
        for a in range(9):
            S[9 * i + a] = beyond * P[9 * i + a] + Q[9 * i + a]
    # mass matrix: blocks (j, k), j < k: P_j^T S_k; j = k: n_j P_j^T P_j + Q_j^T Q_j; j > k: the transpose
    for j in range(N):
        beyond = float(N - 1 - j)
        for k in range(j, N):
            for b in range(3):
                for cc in range(3):
                    if k > j:
                        s = 0.0
                        for a in range(3):
                            s += P[9 * j + 3 * a + b] * S[9 * k + 3 * a + cc]
                        M[m0 + (3 * j + b) * n3 + 3 * k + cc] = m * s
                        M[m0 + (3 * k + cc) * n3 + 3 * j + b] = m * s
                    else:
                        spp = 0.0
                        sqq = 0.0
                        for a in range(3):
                            spp += P[9 * j + 3 * a + b] * P[9 * j + 3 * a + cc]
                            sqq += Q[9 * j + 3 * a + b] * Q[9 * j + 3 * a + cc]
                        M[m0 + (3 * j + b) * n3 + 3 * k + cc] = m * (beyond * spp + sqq) + J[3 * b + cc]
    # velocity-dependent centre accelerations a_c and y_ = m g e3 - m a_c
    run0 = 0.0
    run1 = 0.0
    run2 = 0.0
    for i in range(N):
        W0, W1, W2 = y[o + 3 * i], y[o + 3 * i + 1], y[o + 3 * i + 2]
        # W x (W x d) and W x (W x c)
        t0, t1, t2 = W1 * d[2] - W2 * d[1], W2 * d[0] - W0 * d[2], W0 * d[1] - W1 * d[0]
        e0, e1, e2 = W1 * t2 - W2 * t1, W2 * t0 - W0 * t2, W0 * t1 - W1 * t0
        t0, t1, t2 = W1 * c[2] - W2 * c[1], W2 * c[0] - W0 * c[2], W0 * c[1] - W1 * c[0]
        h0, h1, h2 = W1 * t2 - W2 * t1, W2 * t0 - W0 * t2, W0 * t1 - W1 * t0
        r = 9 * i
        u0 = R[r] * e0 + R[r + 1] * e1 + R[r + 2] * e2
        u1 = R[r + 3] * e0 + R[r + 4] * e1 + R[r + 5] * e2
        u2 = R[r + 6] * e0 + R[r + 7] * e1 + R[r + 8] * e2
        v0 = R[r] * h0 + R[r + 1] * h1 + R[r + 2] * h2
        v1 = R[r + 3] * h0 + R[r + 4] * h1 + R[r + 5] * h2
        v2 = R[r + 6] * h0 + R[r + 7] * h1 + R[r + 8] * h2
        run0 += u0
        run1 += u1
        run2 += u2
        yv[3 * i] = 0.0 - m * ((run0 - u0) + v0)
        yv[3 * i + 1] = 0.0 - m * ((run1 - u1) + v1)
        yv[3 * i + 2] = m * g - m * ((run2 - u2) + v2)
    # tail_j = sum_{i > j} y_i
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    for i in range(N - 1, -1, -1):
        s0 += yv[3 * i]
        s1 += yv[3 * i + 1]
        s2 += yv[3 * i + 2]
        tail[3 * i] = s0 - yv[3 * i]
        tail[3 * i + 1] = s1 - yv[3 * i + 1]
        tail[3 * i + 2] = s2 - yv[3 * i + 2]
    # f_j = -P_j^T tail_j - Q_j^T y_j - Omega_j x J Omega_j, into out's angular-velocity rows, then solved there
    for j in range(N):
        W0, W1, W2 = y[o + 3 * j], y[o + 3 * j + 1], y[o + 3 * j + 2]
        L0 = J[0] * W0 + J[1] * W1 + J[2] * W2
        L1 = J[3] * W0 + J[4] * W1 + J[5] * W2
        L2 = J[6] * W0 + J[7] * W1 + J[8] * W2
        g0, g1, g2 = W1 * L2 - W2 * L1, W2 * L0 - W0 * L2, W0 * L1 - W1 * L0
        for b in range(3):
            sp = 0.0
            sq = 0.0
            for a in range(3):
                sp += P[9 * j + 3 * a + b] * tail[3 * j + a]
                sq += Q[9 * j + 3 * a + b] * yv[3 * j + a]
            gb = g0 if b == 0 else (g1 if b == 1 else g2)
            out[o + 3 * j + b] = -sp - sq - gb
    _solve(w, m0, out, o, n3)
    for i in range(N):
        _quat_rate(y, 4 * i, y, o + 3 * i, out, 4 * i)


def scratch_size(kind: int, p: np.ndarray) -> int:
    """The length of the scratch array ``w`` of a problem."""
    if kind == TOP:
        return 18
    if kind == CHAIN:
        N = int(p[0])
        return 42 * N + 9 * N * N
    return 1


@njit(cache=True)
def rhs(kind: int, t: float, y: np.ndarray, p: np.ndarray, w: np.ndarray, out: np.ndarray) -> None:
    """out = dy/dt of problem ``kind`` (PLANAR, TWO_BARS, TOP, CHAIN) at (t, y); autonomous."""
    if kind == PLANAR:
        _planar(y, p, out)
    elif kind == TWO_BARS:
        _two_bars(y, p, out)
    elif kind == TOP:
        _top(y, p, w, out)
    else:
        _chain(y, p, w, out)


# ----------------------------------------------------------------------------------------------------------
# DOP853
# ----------------------------------------------------------------------------------------------------------
@njit(cache=True)
def _rms(x: np.ndarray) -> float:
    return np.sqrt(np.sum(x * x) / x.size)


@njit(cache=True)
def first_step(kind: int, p: np.ndarray, w: np.ndarray, y0: np.ndarray, f0: np.ndarray, t_bound: float,
               rtol: float, atol: float) -> float:
    """SciPy's ``select_initial_step`` for an 8th-order method from t = 0 (Hairer et al., Sec. II.4);
    f0 = rhs(0, y0) is filled here."""
    rhs(kind, 0.0, y0, p, w, f0)
    scale = atol + np.abs(y0) * rtol
    d0 = _rms(y0 / scale)
    d1 = _rms(f0 / scale)
    h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
    h0 = min(h0, t_bound)
    f1 = np.empty_like(y0)
    rhs(kind, h0, y0 + h0 * f0, p, w, f1)
    d2 = _rms((f1 - f0) / scale) / h0
    h1 = max(1e-6, h0 * 1e-3) if (d1 <= 1e-15 and d2 <= 1e-15) else (0.01 / max(d1, d2)) ** (1.0 / 8.0)
    return min(100.0 * h0, h1, t_bound)


@njit(cache=True)
def advance(kind: int, p: np.ndarray, w: np.ndarray, y: np.ndarray, f: np.ndarray, clock: np.ndarray,
            t_bound: float, rtol: float, atol: float, t_out: np.ndarray, y_out: np.ndarray, i_out: int,
            max_steps: int) -> tuple[int, int]:
    """At most ``max_steps`` accepted DOP853 steps of problem ``kind`` from ``clock = [t, |h|, nfev]`` and the
    state ``y`` (its derivative ``f``), both advanced in place, towards ``t_bound``; the dense output fills the
    rows ``i_out, ...`` of ``y_out`` at the times ``t_out`` the steps pass. Returns (next output row, status)."""
    n = y.size
    K = np.empty((16, n))
    y_new = np.empty(n)
    f_new = np.empty(n)
    tmp = np.empty(n)
    F = np.empty((7, n))
    t = clock[0]
    h_abs = clock[1]
    nfev = clock[2]
    status = RUNNING
    for _ in range(max_steps):
        min_step = 10.0 * abs(np.nextafter(t, np.inf) - t)
        if h_abs < min_step:
            h_abs = min_step
        rejected = False
        while True:
            if h_abs < min_step:
                clock[0], clock[1], clock[2] = t, h_abs, nfev
                return i_out, TOO_SMALL_STEP
            t_new = t + h_abs
            if t_new > t_bound:
                t_new = t_bound
            h = t_new - t
            h_abs = abs(h)
            K[0] = f
            for s in range(1, N_STAGES):
                for i in range(n):
                    acc = 0.0
                    for j in range(s):
                        acc += K[j, i] * A[s, j]
                    tmp[i] = y[i] + acc * h
                rhs(kind, t + C[s] * h, tmp, p, w, K[s])
            for i in range(n):
                acc = 0.0
                for j in range(N_STAGES):
                    acc += K[j, i] * B[j]
                y_new[i] = y[i] + h * acc
            rhs(kind, t + h, y_new, p, w, f_new)
            nfev += N_STAGES
            K[N_STAGES] = f_new
            e5 = 0.0
            e3 = 0.0
            for i in range(n):
                scale = atol + max(abs(y[i]), abs(y_new[i])) * rtol
                a5 = 0.0
                a3 = 0.0
                for j in range(N_STAGES + 1):
                    a5 += K[j, i] * E5[j]
                    a3 += K[j, i] * E3[j]
                e5 += (a5 / scale) ** 2
                e3 += (a3 / scale) ** 2
            err = 0.0 if (e5 == 0.0 and e3 == 0.0) else h_abs * e5 / np.sqrt((e5 + 0.01 * e3) * n)
            if err < 1.0:
                factor = MAX_FACTOR if err == 0.0 else min(MAX_FACTOR, SAFETY * err ** ERROR_EXPONENT)
                if rejected:
                    factor = min(1.0, factor)
                h_abs *= factor
                break
            h_abs *= max(MIN_FACTOR, SAFETY * err ** ERROR_EXPONENT)
            rejected = True
        # dense output on this step (t, t_new] where it holds a requested time
        if i_out < t_out.size and t_out[i_out] <= t_new:
            for s in range(N_STAGES + 1, 16):
                for i in range(n):
                    acc = 0.0
                    for j in range(s):
                        acc += K[j, i] * A[s, j]
                    tmp[i] = y[i] + acc * h
                rhs(kind, t + C[s] * h, tmp, p, w, K[s])
            nfev += 3
            for i in range(n):
                dy = y_new[i] - y[i]
                F[0, i] = dy
                F[1, i] = h * f[i] - dy
                F[2, i] = 2.0 * dy - h * (f_new[i] + f[i])
                for r in range(4):
                    acc = 0.0
                    for j in range(16):
                        acc += D[r, j] * K[j, i]
                    F[3 + r, i] = h * acc
            while i_out < t_out.size and t_out[i_out] <= t_new:
                x = (t_out[i_out] - t) / h
                for i in range(n):
                    v = 0.0
                    for r in range(6, -1, -1):
                        v += F[r, i]
                        v *= x if (6 - r) % 2 == 0 else 1.0 - x
                    y_out[i_out, i] = v + y[i]
                i_out += 1
        t = t_new
        y[:] = y_new
        f[:] = f_new
        if t >= t_bound:
            status = DONE
            break
    clock[0], clock[1], clock[2] = t, h_abs, nfev
    return i_out, status
