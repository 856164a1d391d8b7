"""The rigid machinery's model data (solvers.models.rigid.make_data): one named tuple, read by field name in every
kernel. Numba compiles a named tuple as it compiles a plain one (a struct of its fields), so the names cost
nothing at run time; a Python caller may still unpack it as a tuple."""

from __future__ import annotations

from typing import Any, NamedTuple


class RigidData(NamedTuple):
    mass: Any  # (N,)
    inertia: Any  # (N, 3, 3): about the centre of mass (free body) or the pivot (pinned body)
    gravity: Any  # (3,)
    joint_bodies: Any  # (K, 2) int: bodies i, j of joint k (j = -1: the ground)
    joint_points: Any  # (K, 2, 3): the joined points a (body i's frame) and b (body j's frame or world)
    momentum_axis: Any  # (3,): the axis of the conserved angular momentum reported
    pinned: Any  # (N,) int: 1 for a pinned body
    pivot: Any  # (N, 3): a pinned body's world pivot
    com: Any  # (N, 3): a pinned body's vector pivot -> centre of mass (body frame)
    y_off: Any  # (N + 1,) int: state offsets; the last is the state size
    v_off: Any  # (N + 1,) int: velocity offsets; the last is the velocity size
    inertia_inv: Any  # (N, 3, 3): J_i^-1, NaN where J_i is singular
    topology: Any  # (N + 1, 1 + 4 max(K, 1)) int: joint sides per body and the band (joints.topology_of)


FIELDS = RigidData._fields
