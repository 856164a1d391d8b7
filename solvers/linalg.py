"""Small fixed-size linear algebra for compiled kernels (no allocation in the hot loop)."""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from .jit import python_function

# A computed column index as unsigned: numba then skips the negative-index wrap-around test in the band loops
# (a quarter of a small banded LU's time)
_u = uint64


@njit(cache=True)
def cross_into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """out = a x b for 3-vectors (out must not alias a or b)."""
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@njit(cache=True, inline="always")
def inv3_values(a00, a01, a02, a10, a11, a12, a20, a21, a22, rcond):
    """The inverse of the 3x3 matrix [[a00, a01, a02], [a10, ...], ...] by cofactors, as (ok, its nine entries row by
    row); ok is False unless |det| > rcond max|a_ij|^3 (so also if det is NaN), and then the entries are NaN."""
    c00 = a11 * a22 - a12 * a21
    c01 = a12 * a20 - a10 * a22
    c02 = a10 * a21 - a11 * a20
    det = a00 * c00 + a01 * c01 + a02 * c02
    scale = max(abs(a00), abs(a01), abs(a02), abs(a10), abs(a11), abs(a12), abs(a20), abs(a21), abs(a22))
    ok = abs(det) > rcond * scale * scale * scale
    inv = 1.0 / det if ok else np.nan
    return (ok, c00 * inv, (a02 * a21 - a01 * a22) * inv, (a01 * a12 - a02 * a11) * inv,
            c01 * inv, (a00 * a22 - a02 * a20) * inv, (a02 * a10 - a00 * a12) * inv,
            c02 * inv, (a01 * a20 - a00 * a21) * inv, (a00 * a11 - a01 * a10) * inv)


@njit(cache=True)
def inv3_into(A: np.ndarray, out: np.ndarray, rcond: float = 1e-14) -> bool:
    """out = A^-1 for a 3x3 matrix by cofactors (inv3_values); False unless |det| > rcond max|A_ij|^3 (so also if det
    is NaN), and then out is left as it was.

    rcond = 0 rejects only a zero or NaN determinant (for callers with a conditioning test of their own).
    """
    ok, i00, i01, i02, i10, i11, i12, i20, i21, i22 = inv3_values(
        A[0, 0], A[0, 1], A[0, 2], A[1, 0], A[1, 1], A[1, 2], A[2, 0], A[2, 1], A[2, 2], rcond)
    if not ok:
        return False
    out[0, 0] = i00
    out[0, 1] = i01
    out[0, 2] = i02
    out[1, 0] = i10
    out[1, 1] = i11
    out[1, 2] = i12
    out[2, 0] = i20
    out[2, 1] = i21
    out[2, 2] = i22
    return True


@njit(cache=True)
def _lu_factor(A: np.ndarray, piv, b, n: int) -> bool:
    """LU factorisation with partial pivoting of A[:n,:n] in place (L unit lower, U upper): the one elimination.

    Row swaps are recorded in piv, or applied to b as they happen; either may be None (numba prunes the branch).
    Returns False if A is numerically singular (a pivot below 1e-14 of the largest entry, or no finite entry).
    """
    if n == 0:
        return True  # an empty system (a model without constraints): nothing to factorise
    scale = 0.0
    for i in range(n):
        for j in range(n):
            scale = max(scale, abs(A[i, j]))
    if scale == 0.0 or not np.isfinite(scale):
        return False
    tiny = 1e-14 * scale
    for k in range(n):
        p = k
        big = abs(A[k, k])
        for i in range(k + 1, n):
            v = abs(A[i, k])
            if v > big:
                big = v
                p = i
        if big <= tiny:
            return False
        if piv is not None:
            piv[k] = p
        if p != k:
            for j in range(n):
                tmp = A[k, j]
                A[k, j] = A[p, j]
                A[p, j] = tmp
            if b is not None:
                tmp = b[k]
                b[k] = b[p]
                b[p] = tmp
        inv = 1.0 / A[k, k]
        for i in range(k + 1, n):
            A[i, k] *= inv
            f = A[i, k]
            if f != 0.0:
                for j in range(k + 1, n):
                    A[i, j] -= f * A[k, j]
    return True


@njit(cache=True)
def _substitute(LU: np.ndarray, b: np.ndarray, n: int) -> None:
    """b[:n] <- U^-1 L^-1 b[:n] (forward then back substitution with the factors of _lu_factor, rows swapped)."""
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= LU[i, j] * b[j]
        b[i] = s
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= LU[i, j] * b[j]
        b[i] = s / LU[i, i]


@njit(cache=True)
def lu_factor_inplace(A: np.ndarray, piv: np.ndarray, n: int) -> bool:
    """LU factorisation with partial pivoting of A[:n,:n] in place (L unit lower, U upper); rows swapped per piv.

    Returns False if A is numerically singular. Pair with lu_solve_factored to reuse the factors (simplified
    Newton).
    """
    return _lu_factor(A, piv, None, n)


@njit(cache=True)
def lu_solve_inplace(A: np.ndarray, b: np.ndarray, n: int) -> bool:
    """Solve A[:n,:n] x = b[:n] by Gaussian elimination with partial pivoting (lu_factor_inplace's elimination).

    A and b are overwritten (b holds x on return; b's rows are swapped during the elimination, so no pivot array
    is needed). Returns False if A is numerically singular. Used for the small saddle-point systems
    [[M, B^T], [B, 0]] of the index-1 DAEs.
    """
    if not _lu_factor(A, None, b, n):
        return False
    _substitute(A, b, n)
    return True


# numba-IR inlined forms for hot loops (a compiled call with array arguments costs atomic reference counting)
inv3_into_inline = njit(inline="always")(python_function(inv3_into))
@njit(cache=True, inline="always")
def saddle_point_solve(M: np.ndarray, G: np.ndarray, n: int, m: int, A: np.ndarray, b: np.ndarray) -> bool:
    """Solve [[M, G^T], [G, 0]] [x; mu] = [b_1..n; 0] in place in ``b`` (its first n entries the right-hand side;
    the next m are set here), ``A`` scratch of at least (n + m)^2: the index-1 form of a constrained mechanism's
    acceleration or velocity (Hairer and Wanner, Solving Ordinary Differential Equations II, VII.1). False if the
    matrix is singular."""
    sz = n + m
    for r in range(sz):
        for c in range(sz):
            A[r, c] = 0.0
    for r in range(n):
        for c in range(n):
            A[r, c] = M[r, c]
    for e in range(m):
        b[n + e] = 0.0
        for c in range(n):
            A[n + e, c] = G[e, c]
            A[c, n + e] = G[e, c]
    return lu_solve_inplace(A, b, sz)


_lu_factor_inline = njit(inline="always")(python_function(_lu_factor))
_substitute_inline = njit(inline="always")(python_function(_substitute))


@njit(inline="always")
def lu_solve_factored_inline(LU: np.ndarray, piv: np.ndarray, b: np.ndarray, n: int) -> None:
    """Solve with the factors of lu_factor_inplace; b[:n] is overwritten by the solution."""
    for k in range(n):
        p = piv[k]
        if p != k:
            tmp = b[k]
            b[k] = b[p]
            b[p] = tmp
    _substitute_inline(LU, b, n)


lu_solve_factored = njit(cache=True)(python_function(lu_solve_factored_inline))  # the same as a plain compiled call


@njit(inline="always")
def lu_solve_inline(A: np.ndarray, b: np.ndarray, n: int) -> bool:
    """lu_solve_inplace, inlined into the caller (the same operations in the same order)."""
    if not _lu_factor_inline(A, None, b, n):
        return False
    _substitute_inline(A, b, n)
    return True


# ---------------------------------------------------------------------------------------------------------------
# Block-tridiagonal matrices of 3x3 blocks (the joint-space Schur complements of a chain), in block storage: row
# 3 k + a holds row a of the blocks (k, k - 1), (k, k), (k, k + 1) in columns 0-2, 3-5, 6-8. Block LU without
# pivoting (the block Thomas algorithm): for symmetric positive definite matrices, whose diagonal Schur complements
# U_k are positive definite. Straight-line 3x3 arithmetic, no fill-in: O(n) with a small constant.

@njit(cache=True, inline="always")
def block3_factor(S: np.ndarray, nk: int) -> bool:
    """Factorise the block-tridiagonal matrix S (nk blocks, block storage above) in place: the diagonal blocks become
    U_k^-1 (U_0 = D_0, U_k = D_k - L_k C_{k-1}), the sub-diagonal blocks L_k = A_k U_{k-1}^-1; the super-diagonal
    blocks C_k stay. False if some U_k is numerically singular (inv3_values' test with rcond 1e-14)."""
    for k in range(nk):
        r = 3 * k
        if k > 0:
            for a in range(3):
                l0 = S[r + a, 0] * S[r - 3, 3] + S[r + a, 1] * S[r - 2, 3] + S[r + a, 2] * S[r - 1, 3]
                l1 = S[r + a, 0] * S[r - 3, 4] + S[r + a, 1] * S[r - 2, 4] + S[r + a, 2] * S[r - 1, 4]
                l2 = S[r + a, 0] * S[r - 3, 5] + S[r + a, 1] * S[r - 2, 5] + S[r + a, 2] * S[r - 1, 5]
                S[r + a, 0] = l0
                S[r + a, 1] = l1
                S[r + a, 2] = l2
                for c in range(3):
                    S[r + a, 3 + c] -= l0 * S[r - 3, 6 + c] + l1 * S[r - 2, 6 + c] + l2 * S[r - 1, 6 + c]
        ok, i00, i01, i02, i10, i11, i12, i20, i21, i22 = inv3_values(
            S[r, 3], S[r, 4], S[r, 5], S[r + 1, 3], S[r + 1, 4], S[r + 1, 5], S[r + 2, 3], S[r + 2, 4], S[r + 2, 5],
            1e-14)
        if not ok:
            return False
        S[r, 3] = i00
        S[r, 4] = i01
        S[r, 5] = i02
        S[r + 1, 3] = i10
        S[r + 1, 4] = i11
        S[r + 1, 5] = i12
        S[r + 2, 3] = i20
        S[r + 2, 4] = i21
        S[r + 2, 5] = i22
    return True


@njit(cache=True, inline="always")
def block3_solve(S: np.ndarray, b: np.ndarray, nk: int) -> None:
    """Solve with the factors of block3_factor; b[:3 nk] is overwritten by the solution."""
    for k in range(1, nk):  # y_k = b_k - L_k y_{k-1}
        r = 3 * k
        b0 = b[r - 3]
        b1 = b[r - 2]
        b2 = b[r - 1]
        for a in range(3):
            b[r + a] -= S[r + a, 0] * b0 + S[r + a, 1] * b1 + S[r + a, 2] * b2
    for k in range(nk - 1, -1, -1):  # x_k = U_k^-1 (y_k - C_k x_{k+1})
        r = 3 * k
        y0 = b[r]
        y1 = b[r + 1]
        y2 = b[r + 2]
        if k < nk - 1:
            x0 = b[r + 3]
            x1 = b[r + 4]
            x2 = b[r + 5]
            y0 -= S[r, 6] * x0 + S[r, 7] * x1 + S[r, 8] * x2
            y1 -= S[r + 1, 6] * x0 + S[r + 1, 7] * x1 + S[r + 1, 8] * x2
            y2 -= S[r + 2, 6] * x0 + S[r + 2, 7] * x1 + S[r + 2, 8] * x2
        b[r] = S[r, 3] * y0 + S[r, 4] * y1 + S[r, 5] * y2
        b[r + 1] = S[r + 1, 3] * y0 + S[r + 1, 4] * y1 + S[r + 1, 5] * y2
        b[r + 2] = S[r + 2, 3] * y0 + S[r + 2, 4] * y1 + S[r + 2, 5] * y2


# ---------------------------------------------------------------------------------------------------------------
# Banded LU with partial pivoting (LAPACK dgbtrf/dgbtrs's algorithm, row storage): the joint-space Schur complements
# of a chain are block-tridiagonal, so their factorisation costs O(n kl (kl + ku)) instead of O(n^3).
# Storage: A (n, 2 kl + ku + 1), entry (r, c) at A[r, c - r + kl] for r - kl <= c <= r + kl + ku; the first kl + ku
# + 1 diagonals hold the matrix (lower bandwidth kl, upper ku), the last kl the fill-in of the row interchanges.
# ---------------------------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def band_width(kl: int, ku: int) -> int:
    """Columns of the band storage for lower / upper bandwidths kl, ku (room for the pivoting fill-in)."""
    return 2 * kl + ku + 1


@njit(cache=True)
def band_lu_factor(A: np.ndarray, piv: np.ndarray, n: int, kl: int, ku: int) -> bool:
    """LU factorisation with partial pivoting of the band matrix A (storage above) in place.

    The same elimination as lu_factor_inplace restricted to the band: with kl = ku = n - 1 it performs the
    same operations in the same order. Returns False if A is numerically singular (a pivot below 1e-14 of the
    largest entry, or no finite entry).
    """
    if n == 0:
        return True
    w = kl + ku  # the last column of a row's band after fill-in, relative to its diagonal
    scale = 0.0
    for r in range(n):
        for c in range(max(0, r - kl), min(n, r + ku + 1)):
            scale = max(scale, abs(A[r, _u(c - r + kl)]))
    if scale == 0.0 or not np.isfinite(scale):
        return False
    tiny = 1e-14 * scale
    for r in range(n):  # clear the fill-in room
        for c in range(r + ku + 1, min(n, r + w + 1)):
            A[r, _u(c - r + kl)] = 0.0
    for k in range(n):
        last = min(n - 1, k + kl)  # the rows below k with an entry in column k
        p = k
        big = abs(A[k, kl])
        for i in range(k + 1, last + 1):
            v = abs(A[i, _u(k - i + kl)])
            if v > big:
                big = v
                p = i
        if big <= tiny:
            return False
        piv[k] = p
        end = min(n - 1, k + w)
        if p != k:
            for j in range(k, end + 1):
                tmp = A[k, _u(j - k + kl)]
                A[k, _u(j - k + kl)] = A[p, _u(j - p + kl)]
                A[p, _u(j - p + kl)] = tmp
        inv = 1.0 / A[k, kl]
        for i in range(k + 1, last + 1):
            A[i, _u(k - i + kl)] *= inv
            f = A[i, _u(k - i + kl)]
            if f != 0.0:
                for j in range(k + 1, end + 1):
                    A[i, _u(j - i + kl)] -= f * A[k, _u(j - k + kl)]
    return True


@njit(cache=True)
def band_lu_solve(A: np.ndarray, piv: np.ndarray, b: np.ndarray, n: int, kl: int, ku: int) -> None:
    """Solve with the factors of band_lu_factor; b[:n] is overwritten by the solution."""
    for k in range(n):  # L^-1 P b, interchanges applied as the factorisation met them
        p = piv[k]
        if p != k:
            tmp = b[k]
            b[k] = b[p]
            b[p] = tmp
        bk = b[k]
        for i in range(k + 1, min(n - 1, k + kl) + 1):
            b[i] -= A[i, _u(k - i + kl)] * bk
    w = kl + ku
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, min(n - 1, i + w) + 1):
            s -= A[i, _u(j - i + kl)] * b[j]
        b[i] = s / A[i, kl]


@njit(cache=True, inline="always")
def band_cholesky_factor(A: np.ndarray, r0: int, n: int, kl: int) -> bool:
    """Cholesky factorisation S = L L^T in place of a symmetric positive definite band matrix S given by its lower
    band in rows r0 .. r0 + n - 1 of A (entry (r, c), c <= r, at A[r0 + r, c - r + kl]). Returns False if S is
    not numerically positive definite (a pivot below 1e-14 of the largest diagonal entry, or not finite)."""
    scale = 0.0
    for j in range(n):
        scale = max(scale, A[r0 + j, kl])
    if not (scale > 0.0 and np.isfinite(scale)):
        return n == 0
    tiny = 1e-14 * scale
    for j in range(n):
        s = A[r0 + j, kl]
        for p in range(max(0, j - kl), j):
            lj = A[r0 + j, _u(p - j + kl)]
            s -= lj * lj
        if not s > tiny:
            return False
        d = np.sqrt(s)
        A[r0 + j, kl] = d
        for i in range(j + 1, min(n, j + kl + 1)):
            s = A[r0 + i, _u(j - i + kl)]
            for p in range(max(0, i - kl), j):
                s -= A[r0 + i, _u(p - i + kl)] * A[r0 + j, _u(p - j + kl)]
            A[r0 + i, _u(j - i + kl)] = s / d
    return True


@njit(cache=True, inline="always")
def band_cholesky_solve(A: np.ndarray, r0: int, b: np.ndarray, b0: int, n: int, kl: int) -> None:
    """Solve S x = b[b0 : b0 + n] with the factor of band_cholesky_factor; b holds x on return."""
    for i in range(n):  # L y = b
        s = b[b0 + i]
        for p in range(max(0, i - kl), i):
            s -= A[r0 + i, _u(p - i + kl)] * b[b0 + p]
        b[b0 + i] = s / A[r0 + i, kl]
    for i in range(n - 1, -1, -1):  # L^T x = y
        s = b[b0 + i]
        for p in range(i + 1, min(n, i + kl + 1)):
            s -= A[r0 + p, _u(i - p + kl)] * b[b0 + p]
        b[b0 + i] = s / A[r0 + i, kl]


@njit(cache=True, inline="always")
def band_cholesky_solve_lower(A: np.ndarray, r0: int, b: np.ndarray, b0: int, n: int, kl: int) -> bool:
    """band_cholesky_factor, then band_cholesky_solve of b[b0 : b0 + n]; False if S is not positive definite."""
    if not band_cholesky_factor(A, r0, n, kl):
        return False
    band_cholesky_solve(A, r0, b, b0, n, kl)
    return True
