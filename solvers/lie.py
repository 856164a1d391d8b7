"""SO(3) toolkit for the compiled integrator kernels (the one implementation every method uses).

Every function is ``@numba.njit(cache=True)``, takes float64 numpy arrays (or floats) and returns newly
allocated float64 arrays (or floats); no Python objects and no scipy, so the functions can be called from
other compiled kernels as well as from Python.

Conventions (docs/algorithms.md section 0):

* ``hat(w) @ v == cross(w, v)``; ``vee`` is its inverse on skew matrices.
* Left-trivialised (body) velocities: ``dR/dt = R hat(v)``, a step is ``R+ = R expm_so3(h * delta)``.
* Tangent operator ``T(w)`` with ``x = |w|``, ``W = hat(w)``::

      T(w) = I - ((1 - cos x)/x^2) W + ((x - sin x)/x^3) W^2,
      expm(w)^-1 d/dt expm(w(t)) = hat(T(w) dw/dt).

  ``T(w)^T = T(-w)``, ``T^-1(w) = I + W/2 + c(x) W^2`` with ``c(x) = (1 - (x/2) cot(x/2))/x^2`` and
  ``T^-T(w) = I - W/2 + c(x) W^2``.  ``c`` and ``T^-1`` are singular at ``|w| = 2 k pi`` (k >= 1).
* Quaternions are unit quaternions, scalar first ``(q0, q1, q2, q3)``, Hamilton product convention.

Small-angle series: the five coefficient functions of docs/algorithms.md section 0 switch to their series at the
thresholds given there (taken from StHante/liegroup, src/singular_functions.F90); they are the module
constants ``*_SERIES_BELOW``.  The closed forms lose relative accuracy just above some of these thresholds
(cancellation): about 4e-8 for ``sinc3`` just above 1e-4, 1e-11 for ``c_coef`` above 1e-2 and 4e-9 for
``c3_coef`` above 0.2.  The products that enter the tangent matrices (coefficient times ``x^2`` or ``x^3``)
stay accurate to about 1e-15 absolute.  The derivative coefficients ``sinc1_d``, ``cosc2_d`` and
``sinc3_d`` (not in docs/algorithms.md) use longer series up to thresholds chosen so that both branches are
accurate to about 1e-14 relative.
"""

import math

import numba
import numpy as np

from .jit import python_function

__all__ = [
    "C3_SERIES_BELOW",
    "COSC2_D_SERIES_BELOW",
    "COSC2_SERIES_BELOW",
    "C_SERIES_BELOW",
    "SINC1_D_SERIES_BELOW",
    "SINC1_SERIES_BELOW",
    "SINC3_D_SERIES_BELOW",
    "SINC3_SERIES_BELOW",
    "c3_coef",
    "c_coef",
    "cardan_xyz",
    "cosc2",
    "cosc2_d",
    "cross",
    "d_tangent_inv_t",
    "expm_so3",
    "hat",
    "logm_so3",
    "orthogonality_error",
    "quat_from_rotvec",
    "rot_from_quat",
    "rot_x",
    "rot_y",
    "rot_z",
    "sinc1",
    "sinc1_d",
    "sinc3",
    "sinc3_d",
    "tangent",
    "tangent_inv_t",
    "tangent_t",
    "vee",
]

# Series switch-over thresholds, docs/algorithms.md section 0 (from StHante/liegroup, singular_functions.F90).
SINC1_SERIES_BELOW = 1.0e-2  # 4-term series: truncation x^8/9! < 3e-22
COSC2_SERIES_BELOW = 1.0e-2
SINC3_SERIES_BELOW = 1.0e-2  # 4-term series: truncation x^8/11! < 3e-24 (closed form loses
# 4e-8 relative just above 1e-4 by cancellation)
C_SERIES_BELOW = 1.0e-2
C3_SERIES_BELOW = 0.2
# Derivative coefficients (chosen here: closed form and series both ~1e-14 relative at the switch).
SINC1_D_SERIES_BELOW = 0.2
COSC2_D_SERIES_BELOW = 0.5
SINC3_D_SERIES_BELOW = 1.0

# Taylor coefficients in x^2 (exact rationals; c3 from the Bernoulli series of (x/2) cot(x/2)).
_C3_SERIES = (1.0 / 360.0, 1.0 / 7560.0, 1.0 / 201600.0, 1.0 / 5987520.0, 691.0 / 130767436800.0)
_SINC1_D_SERIES = (-1.0 / 3.0, 1.0 / 30.0, -1.0 / 840.0, 1.0 / 45360.0, -1.0 / 3991680.0, 1.0 / 518918400.0)
_COSC2_D_SERIES = (
    -1.0 / 12.0,
    1.0 / 180.0,
    -1.0 / 6720.0,
    1.0 / 453600.0,
    -1.0 / 47900160.0,
    1.0 / 7264857600.0,
    -1.0 / 1494484992000.0,
)
_SINC3_D_SERIES = (
    -1.0 / 60.0,
    1.0 / 1260.0,
    -1.0 / 60480.0,
    1.0 / 4989600.0,
    -1.0 / 622702080.0,
    1.0 / 108972864000.0,
    -1.0 / 25406244864000.0,
    1.0 / 7602818775552000.0,
)

# Cardan decomposition: below this cos(a1) the angles a0 and a2 are treated as gimbal locked.
_GIMBAL_COS = 1.0e-12


# ---------------------------------------------------------------------------------------------------------
# small fixed-size helpers
# ---------------------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def cross(a, b):
    """Cross product of two 3-vectors (numba's ``np.cross`` supports only some shapes)."""
    out = np.empty(3)
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    return out


@numba.njit(cache=True)
def hat(w):
    """Skew matrix of a 3-vector, ``hat(w) @ v == cross(w, v)`` (docs/algorithms.md section 0)."""
    W = np.empty((3, 3))
    W[0, 0] = 0.0
    W[0, 1] = -w[2]
    W[0, 2] = w[1]
    W[1, 0] = w[2]
    W[1, 1] = 0.0
    W[1, 2] = -w[0]
    W[2, 0] = -w[1]
    W[2, 1] = w[0]
    W[2, 2] = 0.0
    return W


@numba.njit(cache=True)
def vee(W):
    """Inverse of ``hat``: ``(W[2,1], W[0,2], W[1,0])`` (only the lower/upper pairs used by hat are read)."""
    w = np.empty(3)
    w[0] = W[2, 1]
    w[1] = W[0, 2]
    w[2] = W[1, 0]
    return w


@numba.njit(cache=True)
def _norm3(w):
    return math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])


@numba.njit(cache=True)
def _dot3(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@numba.njit(cache=True)
def _poly_into(w, a, b, out):
    """out = I + a W + b W^2 with W = hat(w), written out (W^2 = w w^T - |w|^2 I); no allocation."""
    x2 = _dot3(w, w)
    d = 1.0 - b * x2
    for i in range(3):
        for j in range(3):
            out[i, j] = b * w[i] * w[j]
        out[i, i] += d
    out[0, 1] -= a * w[2]
    out[0, 2] += a * w[1]
    out[1, 0] += a * w[2]
    out[1, 2] -= a * w[0]
    out[2, 0] -= a * w[1]
    out[2, 1] += a * w[0]


@numba.njit(cache=True)
def _poly_i_w_w2(w, a, b):
    """I + a W + b W^2 with W = hat(w)."""
    out = np.empty((3, 3))
    _poly_into(w, a, b, out)
    return out


# ---------------------------------------------------------------------------------------------------------
# coefficient functions with small-angle series
# ---------------------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def _horner(coefs, x2):
    """sum_k coefs[k] x2^k (Horner)."""
    p = 0.0
    for k in range(len(coefs) - 1, -1, -1):
        p = coefs[k] + x2 * p
    return p


@numba.njit(cache=True)
def sinc1(x):
    """sin(x)/x; series 1 - x^2/6 + x^4/120 - x^6/5040 below 1e-2 (docs/algorithms.md section 0 uses two terms
    below 1e-4, liegroup ``sinx_x``; the longer series is as exact and spares the sin call at the small angles
    of a time step)."""
    if abs(x) < SINC1_SERIES_BELOW:
        x2 = x * x
        return 1.0 - x2 * (1.0 / 6.0) + x2 * x2 * (1.0 / 120.0) - x2 * x2 * x2 * (1.0 / 5040.0)
    return math.sin(x) / x


@numba.njit(cache=True)
def cosc2(x):
    """(1 - cos x)/x^2; series 1/2 - x^2/24 + x^4/720 below 1e-2 (docs/algorithms.md section 0).

    The closed form is evaluated as 2 (sin(x/2)/x)^2, which has no cancellation.
    """
    if abs(x) < COSC2_SERIES_BELOW:
        x2 = x * x
        return 0.5 - x2 * (1.0 / 24.0) + x2 * x2 * (1.0 / 720.0)
    s = math.sin(0.5 * x) / x
    return 2.0 * s * s


@numba.njit(cache=True)
def sinc3(x):
    """(x - sin x)/x^3; series 1/6 - x^2/120 + x^4/5040 - x^6/362880 below 1e-2 (docs/algorithms.md section 0 uses
    three terms below 1e-4; above 1e-4 the closed form loses digits by cancellation)."""
    if abs(x) < SINC3_SERIES_BELOW:
        x2 = x * x
        return 1.0 / 6.0 - x2 * (1.0 / 120.0) + x2 * x2 * (1.0 / 5040.0) - x2 * x2 * x2 * (1.0 / 362880.0)
    return (x - math.sin(x)) / (x * x * x)


@numba.njit(cache=True)
def c_coef(x):
    """c(x) = (1 - (x/2) cot(x/2))/x^2, the W^2 coefficient of T^-1 (docs/algorithms.md section 0).

    Series 1/12 + x^2/720 + x^4/30240 below 1e-2 (liegroup ``two_xcotx2_2x2``); singular at x = 2 k pi.
    """
    if abs(x) < C_SERIES_BELOW:
        x2 = x * x
        return 1.0 / 12.0 + x2 * (1.0 / 720.0) + x2 * x2 * (1.0 / 30240.0)
    h = 0.5 * x
    return (1.0 - h * math.cos(h) / math.sin(h)) / (x * x)


@numba.njit(cache=True)
def c3_coef(x):
    """c3(x) = c'(x)/x = (x sin x + 4 cos x + x^2 - 4)/(4 sin^2(x/2) x^4) (docs/algorithms.md section 0).

    Series below 0.2: 1/360 + x^2/7560 + x^4/201600 + x^6/5987520 + 691 x^8/130767436800 (the last two
    terms as in liegroup ``xsinx_4cosx_x2_4_4sinx22_x4``; coefficients re-derived from the Bernoulli series
    of (x/2) cot(x/2)).
    """
    if abs(x) < C3_SERIES_BELOW:  # Horner, written out: the uncompiled py_func stays plain Python (baselines)
        x2 = x * x
        c = _C3_SERIES
        return c[0] + x2 * (c[1] + x2 * (c[2] + x2 * (c[3] + x2 * c[4])))
    s = math.sin(0.5 * x)
    x2 = x * x
    return (x * math.sin(x) + 4.0 * math.cos(x) + x2 - 4.0) / (4.0 * s * s * x2 * x2)


@numba.njit(cache=True)
def sinc1_d(x):
    """sinc1'(x)/x = (x cos x - sin x)/x^3 (b1 of docs/algorithms.md section 3); Taylor series below 0.2."""
    if abs(x) < SINC1_D_SERIES_BELOW:
        return _horner(_SINC1_D_SERIES, x * x)
    return (x * math.cos(x) - math.sin(x)) / (x * x * x)


@numba.njit(cache=True)
def cosc2_d(x):
    """cosc2'(x)/x = (x sin x - 2 (1 - cos x))/x^4 (b2 of docs/algorithms.md section 3; liegroup
    ``two_2cosx_xsinx_x4`` with the opposite sign); Taylor series below 0.5."""
    if abs(x) < COSC2_D_SERIES_BELOW:
        return _horner(_COSC2_D_SERIES, x * x)
    s = math.sin(0.5 * x)
    x2 = x * x
    return (x * math.sin(x) - 4.0 * s * s) / (x2 * x2)


@numba.njit(cache=True)
def sinc3_d(x):
    """sinc3'(x)/x = (3 sin x - x (2 + cos x))/x^5 (liegroup ``x_2_cosx_3sinx_x5`` with the opposite sign);
    Taylor series below 1.0 (the closed form cancels badly: 5e-10 relative at x = 0.1)."""
    if abs(x) < SINC3_D_SERIES_BELOW:
        return _horner(_SINC3_D_SERIES, x * x)
    x2 = x * x
    return (3.0 * math.sin(x) - x * (2.0 + math.cos(x))) / (x2 * x2 * x)


# ---------------------------------------------------------------------------------------------------------
# exponential and logarithm
# ---------------------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def expm_so3(w):
    """Rodrigues' formula R = I + (sin x/x) W + ((1 - cos x)/x^2) W^2 (HLW GNI IV.8, docs/algorithms.md sec. 0).

    Written as R = cos(x) I + cosc2(x) w w^T + sinc1(x) W, with the small-angle series of sinc1/cosc2.
    """
    x = _norm3(w)
    return _poly_i_w_w2(w, sinc1(x), cosc2(x))


@numba.njit(cache=True)
def logm_so3(R):
    """Principal logarithm w = vee(log R), |w| in [0, pi] (docs/algorithms.md section 0, "Log map near pi").

    angle = atan2(|vee(R - R^T)|/2, (tr R - 1)/2) (no acos).  For angle <= pi/2, w = vee(R - R^T) /
    (2 sinc1(angle)).  Beyond pi/2 the axis is the largest column of the symmetric part
    (R + R^T)/2 - cos(angle) I = (1 - cos(angle)) n n^T, with its sign chosen so that n . vee(R - R^T) >= 0
    (at angle pi exactly, where that product is only rounding noise, either sign is a valid logarithm).
    """
    v0 = R[2, 1] - R[1, 2]
    v1 = R[0, 2] - R[2, 0]
    v2 = R[1, 0] - R[0, 1]
    s = 0.5 * math.sqrt(v0 * v0 + v1 * v1 + v2 * v2)
    c = 0.5 * (R[0, 0] + R[1, 1] + R[2, 2] - 1.0)
    theta = math.atan2(s, c)
    w = np.empty(3)
    if c >= 0.0:
        f = 0.5 / sinc1(theta)
        w[0] = f * v0
        w[1] = f * v1
        w[2] = f * v2
        return w
    B = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            B[i, j] = 0.5 * (R[i, j] + R[j, i])
        B[i, i] -= c
    k = 0
    if B[1, 1] > B[k, k]:
        k = 1
    if B[2, 2] > B[k, k]:
        k = 2
    n0 = B[0, k]
    n1 = B[1, k]
    n2 = B[2, k]
    nn = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
    if n0 * v0 + n1 * v1 + n2 * v2 < 0.0:
        nn = -nn
    f = theta / nn
    w[0] = f * n0
    w[1] = f * n1
    w[2] = f * n2
    return w


# ---------------------------------------------------------------------------------------------------------
# tangent operator and its derivatives
# ---------------------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def tangent(w):
    """T(w) = I - ((1-cos x)/x^2) W + ((x - sin x)/x^3) W^2, expm(w)^-1 d expm(w) = hat(T dw)
    (docs/algorithms.md section 0; liegroup ``tan_op_s3``)."""
    x = _norm3(w)
    return _poly_i_w_w2(w, -cosc2(x), sinc3(x))


@numba.njit(cache=True)
def tangent_t(w):
    """T(w)^T = T(-w) = I + ((1-cos x)/x^2) W + ((x - sin x)/x^3) W^2 (docs/algorithms.md sections 0 and 6)."""
    x = _norm3(w)
    return _poly_i_w_w2(w, cosc2(x), sinc3(x))


@numba.njit(cache=True)
def tangent_inv_t(w):
    """T(w)^-T = I - W/2 + c(x) W^2 (docs/algorithms.md section 0; liegroup ``tan_tr_inv_s3``)."""
    x = _norm3(w)
    return _poly_i_w_w2(w, -0.5, c_coef(x))


@numba.njit(cache=True)
def _d_poly_into(w, a, alpha, beta, dalpha, dbeta, out):
    """out = d/dw [a + alpha(x) w x a + beta(x) w x (w x a)] with dalpha = alpha'(x)/x, dbeta = beta'(x)/x.

    Uses d/dw (w x a) = -hat(a) and d/dw (w x (w x a)) = -hat(w x a) - W hat(a). No allocation.
    """
    wa0 = w[1] * a[2] - w[2] * a[1]
    wa1 = w[2] * a[0] - w[0] * a[2]
    wa2 = w[0] * a[1] - w[1] * a[0]
    wwa0 = w[1] * wa2 - w[2] * wa1
    wwa1 = w[2] * wa0 - w[0] * wa2
    wwa2 = w[0] * wa1 - w[1] * wa0
    wdota = _dot3(w, a)
    # hat(a) and hat(w x a), entry by entry
    for i in range(3):
        wai = wa0 if i == 0 else (wa1 if i == 1 else wa2)
        wwai = wwa0 if i == 0 else (wwa1 if i == 1 else wwa2)
        for j in range(3):
            if i == j:
                ha = 0.0
                hwa = 0.0
            elif i == 0 and j == 1:
                ha = -a[2]
                hwa = -wa2
            elif i == 0 and j == 2:
                ha = a[1]
                hwa = wa1
            elif i == 1 and j == 0:
                ha = a[2]
                hwa = wa2
            elif i == 1 and j == 2:
                ha = -a[0]
                hwa = -wa0
            elif i == 2 and j == 0:
                ha = -a[1]
                hwa = -wa1
            else:
                ha = a[0]
                hwa = wa0
            # (W hat(a))_ij = w_j a_i - (w . a) delta_ij
            wha = w[j] * a[i] - (wdota if i == j else 0.0)
            out[i, j] = -alpha * ha - beta * (hwa + wha) + (dalpha * wai + dbeta * wwai) * w[j]


@numba.njit(cache=True)
def _d_poly(w, a, alpha, beta, dalpha, dbeta):
    """Allocating form of _d_poly_into."""
    out = np.empty((3, 3))
    _d_poly_into(w, a, alpha, beta, dalpha, dbeta, out)
    return out


@numba.njit(cache=True)
def d_tangent_inv_t(w, a):
    """D(w; a) = d/dw [T(w)^-T a] (docs/algorithms.md section 0; liegroup ``d_tan_tr_inv_s3``)::

        1/2 hat(a) - c(x) (W hat(a) + hat(w x a)) - c3(x) (w x (a x w)) w^T

    (note w x (a x w) = -w x (w x a), so the c3 term is +c3 (w x (w x a)) w^T).
    """
    x = _norm3(w)
    return _d_poly(w, a, -0.5, c_coef(x), 0.0, c3_coef(x))


# ---------------------------------------------------------------------------------------------------------
# Cayley map
# ---------------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------------
# SO(2)
# ---------------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------------
# quaternions (scalar first)
# ---------------------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def rot_from_quat(q):
    """Rotation matrix of a quaternion (scalar first); divides by |q|^2, so R is orthogonal for any q != 0
    (liegroup quaternion_functions.F90 conventions)."""
    q0 = q[0]
    q1 = q[1]
    q2 = q[2]
    q3 = q[3]
    s = 2.0 / (q0 * q0 + q1 * q1 + q2 * q2 + q3 * q3)
    R = np.empty((3, 3))
    R[0, 0] = 1.0 - s * (q2 * q2 + q3 * q3)
    R[0, 1] = s * (q1 * q2 - q0 * q3)
    R[0, 2] = s * (q1 * q3 + q0 * q2)
    R[1, 0] = s * (q1 * q2 + q0 * q3)
    R[1, 1] = 1.0 - s * (q1 * q1 + q3 * q3)
    R[1, 2] = s * (q2 * q3 - q0 * q1)
    R[2, 0] = s * (q1 * q3 - q0 * q2)
    R[2, 1] = s * (q2 * q3 + q0 * q1)
    R[2, 2] = 1.0 - s * (q1 * q1 + q2 * q2)
    return R


@numba.njit(cache=True)
def quat_from_rotvec(w):
    """Unit quaternion (cos(x/2), sin(x/2)/x w) of expm_so3(w) (liegroup ``expt_s3``)."""
    x = _norm3(w)
    f = 0.5 * sinc1(0.5 * x)
    q = np.empty(4)
    q[0] = math.cos(0.5 * x)
    q[1] = f * w[0]
    q[2] = f * w[1]
    q[3] = f * w[2]
    return q


# ---------------------------------------------------------------------------------------------------------
# elementary rotations and Cardan angles
# ---------------------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def rot_x(a):
    """Right-handed rotation by angle a about the x axis, expm_so3(a e_x)."""
    c = math.cos(a)
    s = math.sin(a)
    R = np.zeros((3, 3))
    R[0, 0] = 1.0
    R[1, 1] = c
    R[1, 2] = -s
    R[2, 1] = s
    R[2, 2] = c
    return R


@numba.njit(cache=True)
def rot_y(a):
    """Right-handed rotation by angle a about the y axis, expm_so3(a e_y)."""
    c = math.cos(a)
    s = math.sin(a)
    R = np.zeros((3, 3))
    R[1, 1] = 1.0
    R[0, 0] = c
    R[0, 2] = s
    R[2, 0] = -s
    R[2, 2] = c
    return R


@numba.njit(cache=True)
def rot_z(a):
    """Right-handed rotation by angle a about the z axis, expm_so3(a e_z)."""
    c = math.cos(a)
    s = math.sin(a)
    R = np.zeros((3, 3))
    R[2, 2] = 1.0
    R[0, 0] = c
    R[0, 1] = -s
    R[1, 0] = s
    R[1, 1] = c
    return R


@numba.njit(cache=True)
def cardan_xyz(a):
    """Cardan (Tait-Bryan) angles: R = rot_x(a0) rot_y(a1) rot_z(a2), written out."""
    cx = math.cos(a[0])
    sx = math.sin(a[0])
    cy = math.cos(a[1])
    sy = math.sin(a[1])
    cz = math.cos(a[2])
    sz = math.sin(a[2])
    R = np.empty((3, 3))
    R[0, 0] = cy * cz
    R[0, 1] = -cy * sz
    R[0, 2] = sy
    R[1, 0] = sx * sy * cz + cx * sz
    R[1, 1] = cx * cz - sx * sy * sz
    R[1, 2] = -sx * cy
    R[2, 0] = sx * sz - cx * sy * cz
    R[2, 1] = cx * sy * sz + sx * cz
    R[2, 2] = cx * cy
    return R


@numba.njit(cache=True)
def orthogonality_error(R):
    """Frobenius norm of I - R R^T (drift diagnostic for integrated rotation matrices)."""
    s = 0.0
    for i in range(3):
        for j in range(3):
            e = R[i, 0] * R[j, 0] + R[i, 1] * R[j, 1] + R[i, 2] * R[j, 2]
            if i == j:
                e -= 1.0
            s += e * e
    return math.sqrt(s)


# ---------------------------------------------------------------------------------------------------------
# allocation-free forms for the inner loops of implicit kernels (same formulas as above)
# ---------------------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def expm_so3_into(w, out):
    """out = expm_so3(w) without allocation."""
    x = _norm3(w)
    _poly_into(w, sinc1(x), cosc2(x), out)


@numba.njit(cache=True)
def tangent_into(w, out):
    """out = T(w) without allocation."""
    x = _norm3(w)
    _poly_into(w, -cosc2(x), sinc3(x), out)


# numba-IR inlined forms for the hot loops of implicit kernels: a compiled call with array arguments copies the
# array structs and increments/decrements their reference counts (atomic), which costs more than these bodies.
poly_into_inline = numba.njit(inline="always")(python_function(_poly_into))
# the scalar coefficients inlined into step loops: an opaque call in a loop keeps LLVM from hoisting the loop's
# invariant loads, and whether a cached callee gets inlined at all depends on the cache's state (docs/performance.md)
sinc1_inline = numba.njit(inline="always")(python_function(sinc1))
cosc2_inline = numba.njit(inline="always")(python_function(cosc2))
sinc3_inline = numba.njit(inline="always")(python_function(sinc3))
c_coef_inline = numba.njit(inline="always")(python_function(c_coef))
c3_coef_inline = numba.njit(inline="always")(python_function(c3_coef))
horner_inline = numba.njit(inline="always")(python_function(_horner))  # lgvi_map's series
d_poly_into_inline = numba.njit(inline="always")(python_function(_d_poly_into))
