"""Property tests for solvers.lie.

Every check compares against an independent computation: scipy (expm, expm_frechet, logm, Rotation),
numpy linear algebra, exact Taylor series evaluated in rational arithmetic, complex-step derivatives of
series-based references, and central finite differences.  Samples come from a seeded generator or from
hypothesis with ``derandomize=True``.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.linalg as sl
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from solvers import lie

PI = math.pi
I3 = np.eye(3)

# Angles spread over [0, pi], including every series threshold from just below to just above.
THRESHOLDS = sorted(
    {
        lie.SINC1_SERIES_BELOW,
        lie.COSC2_SERIES_BELOW,
        lie.SINC3_SERIES_BELOW,
        lie.C_SERIES_BELOW,
        lie.C3_SERIES_BELOW,
        lie.SINC1_D_SERIES_BELOW,
        lie.COSC2_D_SERIES_BELOW,
        lie.SINC3_D_SERIES_BELOW,
    }
)
THRESHOLD_ANGLES = [t * f for t in THRESHOLDS for f in (1.0 - 1e-9, 1.0, 1.0 + 1e-9)]
ANGLES = sorted([1e-12, 1e-8, 1e-5, 1e-3, 0.1, 0.7, 1.5, 2.5, 3.0, PI - 1e-3, PI - 1e-8, *THRESHOLD_ANGLES])


def _rng(seed=0):
    return np.random.default_rng(seed)


def _unit(rng):
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


def _hat_np(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]], dtype=np.result_type(w))


def _vee_np(W):
    return np.array([W[2, 1], W[0, 2], W[1, 0]])


# ---------------------------------------------------------------------------------------------------------
# exact Taylor coefficients (rational arithmetic) as independent references
# ---------------------------------------------------------------------------------------------------------


def _bernoulli(n):
    B = [Fraction(0)] * (n + 1)
    B[0] = Fraction(1)
    for m in range(1, n + 1):
        B[m] = -sum(Fraction(math.comb(m + 1, k)) * B[k] for k in range(m)) / (m + 1)
    return B


_NTERMS = 60
_B = _bernoulli(2 * _NTERMS + 2)
# Coefficients a_k of f(x) = sum_k a_k x^(2k).
_SER = {
    "sinc1": [Fraction((-1) ** k, math.factorial(2 * k + 1)) for k in range(_NTERMS)],
    "cosc2": [Fraction((-1) ** k, math.factorial(2 * k + 2)) for k in range(_NTERMS)],
    "sinc3": [Fraction((-1) ** k, math.factorial(2 * k + 3)) for k in range(_NTERMS)],
    # (x/2) cot(x/2) = sum_n (-1)^n B_2n x^2n/(2n)!  =>  c(x) = sum_{n>=1} (-1)^(n+1) B_2n x^(2n-2)/(2n)!
    "c_coef": [(-1) ** (n + 1) * _B[2 * n] / math.factorial(2 * n) for n in range(1, _NTERMS + 1)],
}


def _d_over_x(coefs):
    """Coefficients of f'(x)/x from those of f."""
    return [2 * k * coefs[k] for k in range(1, len(coefs))]


_SER["sinc1_d"] = _d_over_x(_SER["sinc1"])
_SER["cosc2_d"] = _d_over_x(_SER["cosc2"])
_SER["sinc3_d"] = _d_over_x(_SER["sinc3"])
_SER["c3_coef"] = _d_over_x(_SER["c_coef"])
_SER_F = {k: np.array([float(c) for c in v]) for k, v in _SER.items()}


def _exact(name, x):
    """Coefficient function at float x, summed exactly in rationals (valid for x <= ~3.2)."""
    X = Fraction(x) ** 2
    s = Fraction(0)
    p = Fraction(1)
    for a in _SER[name]:
        s += a * p
        p *= X
    return float(s)


def _series_s(name, s):
    """Coefficient function as a power series in s = x^2 (s may be complex): no sqrt, so analytic in w."""
    p = 0.0 * s
    for a in _SER_F[name][::-1]:
        p = a + s * p
    return p


def _ref_tangent_vec(w, a, kind):
    """[T(w) a], [T^T a], [T^-1 a] or [T^-T a] from the series references (complex-step capable)."""
    s = w @ w
    wa = np.cross(w, a)
    wwa = np.cross(w, wa)
    if kind == "T":
        return a - _series_s("cosc2", s) * wa + _series_s("sinc3", s) * wwa
    if kind == "Tt":
        return a + _series_s("cosc2", s) * wa + _series_s("sinc3", s) * wwa
    if kind == "Ti":
        return a + 0.5 * wa + _series_s("c_coef", s) * wwa
    if kind == "Tit":
        return a - 0.5 * wa + _series_s("c_coef", s) * wwa
    raise ValueError(kind)


def _complex_step_jac(f, w, h=1e-30):
    return np.column_stack([np.imag(f(w + 1j * h * e)) / h for e in I3])


def _central_fd_jac(f, w, h):
    return np.column_stack([(f(w + h * e) - f(w - h * e)) / (2 * h) for e in I3])


def _tangent_frechet(w):
    """T(w) from scipy's Frechet derivative of expm: column k is vee(expm(W)^T L(W, hat(e_k)))."""
    W = _hat_np(w)
    R = sl.expm(W)
    return np.column_stack([_vee_np(R.T @ sl.expm_frechet(W, _hat_np(e), compute_expm=False)) for e in I3])


# ---------------------------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------------------------


def test_hat_vee_cross():
    rng = _rng(1)
    for _ in range(20):
        w, v = rng.normal(size=3), rng.normal(size=3)
        np.testing.assert_allclose(lie.hat(w) @ v, np.cross(w, v), atol=1e-14)
        np.testing.assert_array_equal(lie.vee(lie.hat(w)), w)
        np.testing.assert_allclose(lie.hat(w), -lie.hat(w).T)
        np.testing.assert_allclose(lie.cross(w, v), np.cross(w, v), atol=1e-14)



def test_orthogonality_error():
    rng = _rng(3)
    A = rng.normal(size=(3, 3))
    assert lie.orthogonality_error(A) == pytest.approx(np.linalg.norm(I3 - A @ A.T), rel=1e-13)
    assert lie.orthogonality_error(I3) == 0.0


# ---------------------------------------------------------------------------------------------------------
# coefficient functions: relative accuracy on both sides of each threshold
# ---------------------------------------------------------------------------------------------------------

# Worst relative error allowed per helper, from the conditioning of the closed form just above its
# threshold (docs/algorithms.md thresholds for the first five): x - sin x cancels to ~4e-8 just above 1e-4,
# 1 - (x/2)cot(x/2) to ~1e-11 above 1e-2, the c3 numerator to ~4e-9 above 0.2.
COEF_RTOL = {
    "sinc1": 1e-15,
    "cosc2": 1e-15,
    "sinc3": 2e-7,
    "c_coef": 5e-11,
    "c3_coef": 2e-8,
    "sinc1_d": 5e-14,
    "cosc2_d": 5e-14,
    "sinc3_d": 2e-13,
}
COEF_X = sorted({0.0, 1e-12, 1e-8, 1e-6, 1e-3, 0.05, 0.3, 0.7, 1.3, 2.0, 2.9, 3.1, *THRESHOLD_ANGLES})


@pytest.mark.parametrize("name", sorted(COEF_RTOL))
def test_coefficients_against_exact_series(name):
    f = getattr(lie, name)
    for x in COEF_X:
        ref = _exact(name, x)
        got = f(x)
        assert abs(got - ref) <= COEF_RTOL[name] * abs(ref), (name, x, got, ref)
        assert f(-x) == got  # even functions


@pytest.mark.parametrize("name", sorted(COEF_RTOL))
def test_coefficients_continuous_at_threshold(name):
    """Jump across the series/closed-form switch is within the documented accuracy."""
    f = getattr(lie, name)
    for t in THRESHOLDS:
        x_lo, x_hi = t * (1 - 1e-12), t * (1 + 1e-12)
        jump = (f(x_hi) - f(x_lo)) - (_exact(name, x_hi) - _exact(name, x_lo))
        assert abs(jump) <= 2 * COEF_RTOL[name] * abs(f(x_lo)), (name, t, jump)


def test_series_precision_where_it_matters():
    """The products entering T, T^-1 and D (coefficient times x^2 or x^3) are accurate in absolute terms,
    even where the coefficient itself is not (c3 just above its 0.2 threshold: ~4e-14)."""
    for x in COEF_X:
        assert abs(lie.sinc3(x) * x * x - _exact("sinc3", x) * x * x) < 3e-16
        assert abs(lie.c_coef(x) * x * x - _exact("c_coef", x) * x * x) < 3e-16
        assert abs(lie.c3_coef(x) * x**3 - _exact("c3_coef", x) * x**3) < 1e-13


# ---------------------------------------------------------------------------------------------------------
# exponential and logarithm
# ---------------------------------------------------------------------------------------------------------


def _angle_axis_samples(angles, seed, per_angle=3):
    rng = _rng(1000 + seed)  # a stream of its own: test vectors a must not be parallel to w
    out = []
    for t in angles:
        for _ in range(per_angle):
            out.append(t * _unit(rng))
    return out


def test_expm_against_scipy():
    for w in _angle_axis_samples([0.0, *ANGLES, PI, 4.0, 7.0], seed=4):
        R = lie.expm_so3(w)
        # beyond pi scipy's scaling-and-squaring is the less accurate of the two
        atol = 4e-15 if np.linalg.norm(w) <= PI else 1e-13
        np.testing.assert_allclose(R, sl.expm(_hat_np(w)), rtol=0, atol=atol)


def test_expm_orthogonal_det_one():
    rng = _rng(5)
    ws = _angle_axis_samples([*ANGLES, PI], seed=5) + [rng.normal(size=3) * 10 for _ in range(20)]
    for w in ws:
        R = lie.expm_so3(w)
        assert np.linalg.norm(I3 - R @ R.T) < 1e-14
        assert abs(np.linalg.det(R) - 1.0) < 1e-14
        assert lie.orthogonality_error(R) < 1e-14


@pytest.mark.parametrize("angle", [0.0, *ANGLES])
def test_log_exp_roundtrip(angle):
    for w in _angle_axis_samples([angle], seed=6, per_angle=8):
        back = lie.logm_so3(lie.expm_so3(w))
        np.testing.assert_allclose(back, w, rtol=0, atol=1e-14 * max(1.0, angle))


def test_log_exactly_pi():
    for w in _angle_axis_samples([PI], seed=7, per_angle=10) + [PI * e for e in I3]:
        R = lie.expm_so3(w)
        back = lie.logm_so3(R)
        assert abs(np.linalg.norm(back) - PI) < 1e-14
        # either representative: w or -w (both are logarithms of the same rotation)
        assert min(np.abs(back - w).max(), np.abs(back + w).max()) < 1e-14
        np.testing.assert_allclose(lie.expm_so3(back), R, atol=1e-15)
    # axis-aligned half turns built without expm, and the sign convention where it is defined
    for R, axis in [
        (np.diag([1.0, -1.0, -1.0]), 0),
        (np.diag([-1.0, 1.0, -1.0]), 1),
        (np.diag([-1.0, -1.0, 1.0]), 2),
    ]:
        back = lie.logm_so3(R)
        np.testing.assert_allclose(np.abs(back), PI * I3[axis], atol=1e-15)


def test_log_beyond_pi_gives_principal_representative():
    """expm(w) with pi < |w| < 2 pi has log w - 2 pi w/|w| (norm 2 pi - |w|, reversed axis)."""
    for w in _angle_axis_samples([PI + 1e-8, PI + 1e-3, 4.0, 6.0], seed=8):
        x = np.linalg.norm(w)
        np.testing.assert_allclose(lie.logm_so3(lie.expm_so3(w)), w * (1 - 2 * PI / x), atol=1e-14)


def test_log_sign_follows_antisymmetric_part():
    for w in _angle_axis_samples([PI - 1e-3, PI - 1e-8, PI - 1e-12, 2.0, 1e-6], seed=9):
        R = lie.expm_so3(w)
        assert lie.logm_so3(R) @ _vee_np(R - R.T) >= 0.0


def test_log_against_scipy_logm():
    for w in _angle_axis_samples([1e-3, 0.1, 0.7, 1.5, 2.5, 3.0], seed=10):
        R = sl.expm(_hat_np(w))
        L = np.real(sl.logm(R))
        np.testing.assert_allclose(lie.logm_so3(R), _vee_np(L), atol=1e-12)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(
    st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3).filter(lambda v: np.linalg.norm(v) > 1e-3),
    st.floats(0.0, PI - 1e-7),
)
def test_log_exp_hypothesis(axis, angle):
    n = np.array(axis) / np.linalg.norm(axis)
    w = angle * n
    np.testing.assert_allclose(lie.logm_so3(lie.expm_so3(w)), w, atol=1e-14)


def test_log_of_slightly_non_orthogonal():
    rng = _rng(11)
    for w in _angle_axis_samples([0.5, 2.0, PI - 1e-6], seed=11):
        R = lie.expm_so3(w) + 1e-10 * rng.normal(size=(3, 3))
        back = lie.logm_so3(R)
        assert np.linalg.norm(back) <= PI
        np.testing.assert_allclose(back, w, atol=1e-8)


# ---------------------------------------------------------------------------------------------------------
# tangent operator
# ---------------------------------------------------------------------------------------------------------


def test_tangent_against_expm_frechet():
    for w in _angle_axis_samples([0.0, *ANGLES, PI, 4.0, 6.0], seed=12):
        np.testing.assert_allclose(lie.tangent(w), _tangent_frechet(w), atol=1e-14)


def test_tangent_defining_relation_finite_difference():
    """expm(w)^-1 d/dt expm(w + t d) at t=0 equals hat(T(w) d) (central difference of expm_so3)."""
    rng = _rng(13)
    h = 1e-6
    for w in _angle_axis_samples([1e-8, 1e-3, 0.1, 1.0, 2.5, PI - 1e-3], seed=13):
        d = rng.normal(size=3)
        R = lie.expm_so3(w)
        dR = (lie.expm_so3(w + h * d) - lie.expm_so3(w - h * d)) / (2 * h)
        Omega = R.T @ dR
        np.testing.assert_allclose(Omega, -Omega.T, atol=5e-9)
        np.testing.assert_allclose(_vee_np(Omega), lie.tangent(w) @ d, atol=5e-9)


def test_spatial_velocity_uses_transpose():
    """docs/algorithms.md section 6: d/dt expm(w) expm(w)^-1 = hat(T(w)^T dw/dt)."""
    rng = _rng(14)
    h = 1e-6
    for w in _angle_axis_samples([1e-3, 1.0, 2.5], seed=14):
        d = rng.normal(size=3)
        R = lie.expm_so3(w)
        dR = (lie.expm_so3(w + h * d) - lie.expm_so3(w - h * d)) / (2 * h)
        np.testing.assert_allclose(_vee_np(dR @ R.T), lie.tangent_t(w) @ d, atol=5e-9)


def test_tangent_inverse_and_transposes():
    for w in _angle_axis_samples([0.0, *ANGLES, PI, 4.0, 6.0], seed=15):
        T_ref = _tangent_frechet(w)
        T_inv_ref = np.linalg.inv(T_ref)
        np.testing.assert_allclose(lie.tangent_t(w), T_ref.T, atol=1e-14)
        np.testing.assert_allclose(lie.tangent_inv_t(w), T_inv_ref.T, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(lie.tangent_inv_t(w) @ lie.tangent_t(w), I3, atol=1e-13)


def test_series_references_are_right():
    """The series-based references used for complex steps agree with scipy's Frechet derivative."""
    rng = _rng(16)
    for w in _angle_axis_samples([1e-3, 0.5, 2.0, 3.0], seed=16):
        a = rng.normal(size=3)
        T_ref = _tangent_frechet(w)
        np.testing.assert_allclose(_ref_tangent_vec(w, a, "T"), T_ref @ a, atol=1e-13)
        np.testing.assert_allclose(_ref_tangent_vec(w, a, "Tt"), T_ref.T @ a, atol=1e-13)
        np.testing.assert_allclose(_ref_tangent_vec(w, a, "Ti"), np.linalg.solve(T_ref, a), atol=1e-12)
        np.testing.assert_allclose(_ref_tangent_vec(w, a, "Tit"), np.linalg.solve(T_ref.T, a), atol=1e-12)


DERIVS = [
    ("d_tangent_inv_t", "Tit", "tangent_inv_t"),  # the one derivative the kernels use (rattlie's Newton matrix)
]
# Error allowed relative to 1 + max|J|: d_tangent_inv_t carries c(x) just above 1e-2 (~1e-11 relative): ~1e-14.
DERIV_TOL = {"d_tangent_inv_t": 3e-14}


@pytest.mark.parametrize(("dname", "kind", "_"), DERIVS)
def test_derivatives_complex_step(dname, kind, _):
    """Each derivative against a complex step of an independent series reference, at small, moderate
    and threshold angles (both sides of every switch)."""
    rng = _rng(17)
    dfun = getattr(lie, dname)
    for w in _angle_axis_samples([0.0, *ANGLES], seed=17):
        a = rng.normal(size=3)
        J_ref = _complex_step_jac(lambda v, a=a: _ref_tangent_vec(v, a, kind), w.astype(complex))
        x = np.linalg.norm(w)
        tol = DERIV_TOL[dname] if x >= lie.SINC3_SERIES_BELOW / 2 else 1e-15
        np.testing.assert_allclose(dfun(w, a), J_ref, rtol=0, atol=tol * (1 + np.abs(J_ref).max()))


@pytest.mark.parametrize(("dname", "_", "fname"), DERIVS)
def test_derivatives_central_difference(dname, _, fname):
    """Each derivative against a central difference of the module's own matrix function."""
    rng = _rng(18)
    dfun, fun = getattr(lie, dname), getattr(lie, fname)
    h = 1e-6
    for w in _angle_axis_samples([1e-12, 1e-5, *THRESHOLD_ANGLES, 1.0, 2.5, 3.1], seed=18, per_angle=2):
        a = rng.normal(size=3)
        J_fd = _central_fd_jac(lambda v, a=a: fun(v) @ a, w, h)
        np.testing.assert_allclose(dfun(w, a), J_fd, atol=1e-8)


def test_D_formula_of_algorithms_md():
    """D(w; a) = 1/2 hat(a) - c (W hat(a) + hat(w x a)) - c3 (w x (a x w)) w^T is d/dw [T^-T(w) a]."""
    rng = _rng(19)
    for w in _angle_axis_samples([1e-3, 0.5, 2.0, 3.0], seed=19):
        a = rng.normal(size=3)
        x = np.linalg.norm(w)
        c, c3 = _exact("c_coef", x), _exact("c3_coef", x)
        D = (
            0.5 * _hat_np(a)
            - c * (_hat_np(w) @ _hat_np(a) + _hat_np(np.cross(w, a)))
            - c3 * np.outer(np.cross(w, np.cross(a, w)), w)
        )
        J_ref = _complex_step_jac(lambda v, a=a: _ref_tangent_vec(v, a, "Tit"), w.astype(complex))
        np.testing.assert_allclose(D, J_ref, atol=1e-13)
        np.testing.assert_allclose(lie.d_tangent_inv_t(w, a), D, atol=1e-13)


# ---------------------------------------------------------------------------------------------------------
# quaternions
# ---------------------------------------------------------------------------------------------------------


def _scipy_quat(q):
    """scalar-first -> scipy's scalar-last"""
    return np.array([q[1], q[2], q[3], q[0]])


def test_quaternion_roundtrips():
    rng = _rng(22)
    qs = [rng.normal(size=4) for _ in range(30)]
    # near every Shepperd branch: identity, half turns about x, y, z and a generic half turn
    qs += [
        np.array([1.0, 0, 0, 0]),
        np.array([1e-9, 1, 0, 0]),
        np.array([0, 1e-9, 1, 0]),
        np.array([0, 0, 0, 1.0]),
    ]
    qs += [np.concatenate([[0.0], _unit(rng)]) for _ in range(5)]
    for q in qs:
        q = q / np.linalg.norm(q)
        R = lie.rot_from_quat(q)
        np.testing.assert_allclose(R, Rotation.from_quat(_scipy_quat(q)).as_matrix(), atol=1e-15)


def test_rot_from_non_unit_quaternion_is_orthogonal():
    q = np.array([2.0, -1.0, 0.5, 3.0])
    R = lie.rot_from_quat(q)
    assert lie.orthogonality_error(R) < 1e-15
    np.testing.assert_allclose(R, lie.rot_from_quat(q / np.linalg.norm(q)), atol=1e-15)



def test_quat_from_rotvec():
    for w in _angle_axis_samples([0.0, 1e-12, 1e-5, 0.3, 2.0, PI, 5.0], seed=24):
        q = lie.quat_from_rotvec(w)
        assert abs(np.linalg.norm(q) - 1.0) < 1e-15
        np.testing.assert_allclose(lie.rot_from_quat(q), sl.expm(_hat_np(w)), atol=2e-15)


# ---------------------------------------------------------------------------------------------------------
# elementary rotations and Cardan angles
# ---------------------------------------------------------------------------------------------------------


def test_elementary_rotations_right_handed():
    for a in [0.0, 0.3, -1.2, 2.9]:
        for f, e in [(lie.rot_x, I3[0]), (lie.rot_y, I3[1]), (lie.rot_z, I3[2])]:
            np.testing.assert_allclose(f(a), sl.expm(_hat_np(a * e)), atol=1e-15)
    # quarter turn about z takes x to y
    np.testing.assert_allclose(lie.rot_z(PI / 2) @ I3[0], I3[1], atol=1e-15)


def test_cardan_xyz():
    rng = _rng(25)
    for _ in range(50):
        a = np.array([rng.uniform(-PI, PI), rng.uniform(-PI / 2 + 1e-6, PI / 2 - 1e-6), rng.uniform(-PI, PI)])
        R = lie.cardan_xyz(a)
        np.testing.assert_allclose(R, lie.rot_x(a[0]) @ lie.rot_y(a[1]) @ lie.rot_z(a[2]), atol=1e-15)
        np.testing.assert_allclose(R, Rotation.from_euler("XYZ", a).as_matrix(), atol=1e-15)

