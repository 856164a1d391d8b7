"""Your own mechanism: rigid bodies joined by spherical joints, pinned to the ground or free, run by every rigid
method.

    import solvers
    from solvers.mechanism import Body, Joint

    rod = lambda m, l: Body(mass=m, inertia=[[m * l * l / 12, 0, 0], [0, 1e-4, 0], [0, 0, m * l * l / 12]])
    solvers.mechanism("three_rods", bodies=[rod(1.0, 1.0), rod(2.0, 0.5), rod(0.5, 0.8)],
                      joints=[Joint(0, [0, -0.5, 0]),                  # body 0's point at the ground's origin
                              Joint(1, [0, -0.25, 0], 0, [0, 0.5, 0]),  # body 1's point on body 0's point
                              Joint(2, [0, -0.4, 0], 1, [0, 0.25, 0])])
    res = solvers.simulate("three_rods", "rattlie", h=1e-3, t_end=2.0)

The model is the rigid machinery's (solvers.models.rigid, seed 000's spherical joints; the equations of
Lee, Leok and McClamroch's and Brüls and Cardona's Lie group formulations in docs/references.md): each body has
its rotation R, centre of mass x, body angular velocity Omega and velocity v; a joint holds a point of one body
on a point of another or on a fixed point of the world. Registering puts the mechanism in the registry under its
name, so ``simulate``, ``rerun``, the diagnostics, the references and the 3D view (``solvers.compare``) take it
like a built-in benchmark, in this process. Its reference is SciPy's DOP853 at rtol = atol = 1e-13 on the same
equations (the index-1 DAE of solvers.models.rigid_dae): no other coordinates exist for a user's mechanism, so it
is not an independent reference, and says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .models import rigid
from .models.base import Benchmark, Model, Param, Scales
from .models.rigid_data import RigidData

MAX_BODIES = 64
NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")


@dataclass(frozen=True)
class Body:
    """A rigid body: mass (kg), inertia about its centre of mass in its body frame (kg m^2, symmetric positive
    definite), its initial rotation R (body to world) and body angular velocity Omega (rad/s). ``x`` and ``v``
    (m, m/s) place the one body no joint places (a free mechanism's root); the others follow from the joints."""

    mass: float
    inertia: Any
    R: Any = None
    Omega: Any = None
    x: Any = None
    v: Any = None
    name: str = ""


@dataclass(frozen=True)
class Joint:
    """A spherical joint: the point ``at`` of ``body`` (its body frame, from its centre of mass) held on the point
    ``to_at`` of body ``to`` (its body frame), or with ``to`` None on the fixed world point ``to_at``."""

    body: int
    at: Any
    to: int | None = None
    to_at: Any = field(default=(0.0, 0.0, 0.0))


_ROTATION = Param(np.eye(3), "initial rotation", shape=(3, 3), kind="rotation")
_INERTIA = Param(np.eye(3), "inertia", shape=(3, 3), kind="inertia", positive=False)
_VECTOR = Param(np.zeros(3), "vector", shape=(3,))


def _body(i: int, b: Body | Mapping[str, Any]) -> Body:
    if isinstance(b, Mapping):
        try:
            b = Body(**b)
        except TypeError as exc:
            raise ValueError(f"bodies[{i}]: {exc}") from None
    if not isinstance(b, Body):
        raise ValueError(f"bodies[{i}]: expected a solvers.mechanism.Body or a dict of its fields")
    mass = Param(1.0, "mass", positive=True).validate(f"bodies[{i}].mass", b.mass)
    J = _INERTIA.validate(f"bodies[{i}].inertia", b.inertia)
    m1, m2, m3 = np.linalg.eigvalsh(J)
    if m1 + m2 < m3 * (1.0 - 1e-12):  # the principal moments of any mass distribution obey J1 + J2 >= J3
        raise ValueError(f"parameter 'bodies[{i}].inertia': principal moments {m1:.4g}, {m2:.4g}, {m3:.4g} break "
                         "the triangle inequality J1 + J2 >= J3: no rigid body has this inertia")
    R = _ROTATION.validate(f"bodies[{i}].R", np.eye(3) if b.R is None else b.R)
    vec = {k: _VECTOR.validate(f"bodies[{i}].{k}", np.zeros(3) if getattr(b, k) is None else getattr(b, k))
           for k in ("Omega", "x", "v")}
    return Body(mass, J, R, vec["Omega"], vec["x"] if b.x is not None else None,
                vec["v"] if b.v is not None else None, str(b.name or f"B{i + 1}"))


def _joint(k: int, j: Joint | Mapping[str, Any] | Sequence[Any], n: int) -> Joint:
    if isinstance(j, Mapping):
        try:
            j = Joint(**j)
        except TypeError as exc:
            raise ValueError(f"joints[{k}]: {exc}") from None
    elif not isinstance(j, Joint) and isinstance(j, Sequence):
        j = Joint(*j)
    if not isinstance(j, Joint):
        raise ValueError(f"joints[{k}]: expected a solvers.mechanism.Joint, a dict or (body, at, to, to_at)")
    for name, idx in (("body", j.body), ("to", j.to)):
        if idx is None and name == "to":
            continue
        if isinstance(idx, bool) or not isinstance(idx, (int, np.integer)) or not 0 <= idx < n:
            raise ValueError(f"joints[{k}].{name}: {idx!r} is not a body index from 0 to {n - 1}")
    if j.to == j.body:
        raise ValueError(f"joints[{k}]: joins body {j.body} to itself")
    return Joint(int(j.body), _VECTOR.validate(f"joints[{k}].at", j.at), None if j.to is None else int(j.to),
                 _VECTOR.validate(f"joints[{k}].to_at", j.to_at))


def _check_tree(bodies: list[Body], joints: list[Joint]) -> int | None:
    """The free root's index (None when the joints pin the mechanism to the ground); ValueError unless the joints
    form one tree listed from its root outwards."""
    placed_by: dict[int, int] = {}
    for k, j in enumerate(joints):
        if j.body in placed_by:
            raise ValueError(f"joints[{k}]: body {j.body} is already placed by joints[{placed_by[j.body]}] (a body "
                             "is the 'body' of at most one joint; closed loops are not supported)")
        placed_by[j.body] = k
    roots = [i for i in range(len(bodies)) if i not in placed_by]
    grounded = any(j.to is None for j in joints)
    if len(roots) > (0 if grounded else 1):
        raise ValueError(f"bodies {roots} are placed by no joint: the bodies must form one mechanism, pinned to the "
                         "ground by joints with to=None, or free with a single root body")
    root = roots[0] if roots else None
    placed = {root} if root is not None else set()
    for k, j in enumerate(joints):
        if j.to is not None and j.to not in placed:
            raise ValueError(f"joints[{k}]: body {j.to} is not placed yet: list the joints from the ground (or the "
                             "root body) outwards, each joining a new body to one placed before")
        placed.add(j.body)
    for i, b in enumerate(bodies):
        if i != root and (b.x is not None or b.v is not None):
            raise ValueError(f"bodies[{i}]: its position and velocity follow from joints[{placed_by[i]}]; give x "
                             "and v only for a free mechanism's root body")
    return root


def _tour(n: int, joints: list[Joint], root: int | None) -> list[tuple[str, int]]:
    """The drawn points as a walk through the tree (a body's centre, its joints' points, back): a polyline along it
    draws every body as the segments from its centre to its joints, and no segment that is not one."""
    children: dict[tuple[str, int], list[tuple[str, int]]] = {("c", i): [] for i in range(n)}
    ground = []
    for k, j in enumerate(joints):
        children[("j", k)] = [("c", j.body)]
        if j.to is None:
            ground.append(("j", k))
        else:
            children[("c", j.to)].append(("j", k))

    walk: list[tuple[str, int]] = []

    def visit(node: tuple[str, int]) -> None:
        walk.append(node)
        for child in children[node]:
            visit(child)
            walk.append(node)

    for start in ([("c", root)] if root is not None else ground):
        visit(start)
    return walk


def build_model(bodies: Sequence[Body | Mapping[str, Any]], joints: Sequence[Any],
                gravity: Sequence[float] = (0.0, 0.0, -9.81)) -> Model:
    """The rigid machinery's Model of these bodies and joints (validated: ValueError naming the entry)."""
    if not isinstance(bodies, Sequence) or not 1 <= len(bodies) <= MAX_BODIES:
        raise ValueError(f"bodies: give 1 to {MAX_BODIES} bodies")
    if not isinstance(joints, Sequence) or len(joints) > 2 * MAX_BODIES:
        raise ValueError(f"joints: give at most {2 * MAX_BODIES} joints")
    bs = [_body(i, b) for i, b in enumerate(bodies)]
    js = [_joint(k, j, len(bs)) for k, j in enumerate(joints)]
    g = _VECTOR.validate("gravity", gravity)
    root = _check_tree(bs, js)
    rjoints: list[tuple[int, Any, int, Any]] = [(j.body, j.at, -1 if j.to is None else j.to, j.to_at) for j in js]
    data = rigid.make_data([b.mass for b in bs], [b.inertia for b in bs], g, rjoints)
    R0, W0 = [b.R for b in bs], [b.Omega for b in bs]
    if root is None:
        y0 = rigid.place_bodies(data, R0, W0)
    else:  # the root placed at x by a joint to the world at its centre, then every body moved at the root's v
        x = bs[root].x if bs[root].x is not None else np.zeros(3)
        pin: tuple[int, Any, int, Any] = (root, np.zeros(3), -1, x)
        at_root = rigid.make_data([b.mass for b in bs], [b.inertia for b in bs], g, [pin, *rjoints])
        y0 = rigid.place_bodies(at_root, R0, W0)
        v = bs[root].v if bs[root].v is not None else np.zeros(3)
        y0.reshape(len(bs), rigid.BODY)[:, 15:18] += v
    walk = _tour(len(bs), js, root)
    names = tuple(bs[i].name if kind == "c" else f"J{i + 1}" for kind, i in walk)
    body_of = np.array([i if kind == "c" else js[i].body for kind, i in walk])
    offset = np.array([np.zeros(3) if kind == "c" else js[i].at for kind, i in walk])

    def points(states: np.ndarray) -> np.ndarray:
        s = rigid.unpack(data, states)
        return s["x"][:, body_of] + np.einsum("nbij,bj->nbi", s["R"][:, body_of], offset)

    # the size: every body's centre-to-joint segments end to end; the lowest potential: each centre that far from
    # the ground point (none for a free mechanism, which can fall forever)
    size = float(sum(2.0 * np.linalg.norm(j.at) + np.linalg.norm(j.to_at) * (j.to is not None) for j in js)) or 1.0
    scales = None
    if root is None:
        lowest = min(float(-g @ j.to_at) for j in js if j.to is None)  # -g.p: the potential per kg at a pivot p
        gn = float(np.linalg.norm(g))
        scales = Scales(size, sum(b.mass for b in bs) * (lowest - gn * size), 0.01 * size)
    return Model("rigid", data, y0, lambda st: rigid.unpack(data, st), points, names, scales=scales)


def mechanism(name: str, bodies: Sequence[Body | Mapping[str, Any]], joints: Sequence[Any],
              gravity: Sequence[float] = (0.0, 0.0, -9.81), *, title: str = "", h: float = 1e-3,
              t_end: float = 5.0) -> Benchmark:
    """Register a mechanism of ``bodies`` joined by ``joints`` (:class:`Body`, :class:`Joint`, or dicts of their
    fields) under ``name`` (lower case, digits, underscores; not a built-in benchmark's) with its default step and
    end time, and return its Benchmark. Every rigid method then runs it by name (module docstring). Registering a
    name again replaces that mechanism; :func:`unregister` removes it."""
    from . import references
    from .registry import BENCHMARKS, MACHINERY

    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ValueError(f"name: {name!r} is not a lower-case identifier of at most 40 characters")
    if name in BENCHMARKS and name not in _USER:
        raise ValueError(f"name: {name!r} is a built-in benchmark; choose another name")
    model = build_model(bodies, joints, gravity)
    g = np.array(RigidData(*model.data).gravity, dtype=float)
    bench = Benchmark(
        id=name, title=title or f"Your mechanism: {name}", seed="",
        description=(f"{len(bodies)} rigid bodies and {len(joints)} spherical joints (solvers.mechanism); its "
                     "reference is DOP853 on the methods' own equations (not independent)."),
        params={}, build=lambda _p: model, default_h=h, default_t_end=t_end, machinery="rigid",
        gravity_direction=tuple(g / np.linalg.norm(g)) if np.any(g) else None)

    BENCHMARKS[name], MACHINERY[name] = bench, "rigid"
    references.SOLUTIONS[name] = (lambda t, _p: references.same_equations(model, t), "m", references.NOT_INDEPENDENT)
    references._cached.cache_clear()  # a replaced mechanism of the same name must not meet the old one's reference
    _USER.add(name)
    return bench


def unregister(name: str) -> None:
    """Remove a mechanism registered by :func:`mechanism` (a built-in benchmark cannot be removed)."""
    from . import references
    from .registry import BENCHMARKS, MACHINERY

    if name not in _USER:
        raise ValueError(f"{name!r} is not a registered mechanism")
    for table in (BENCHMARKS, MACHINERY, references.SOLUTIONS):
        table.pop(name, None)
    references._cached.cache_clear()
    _USER.discard(name)


_USER: set[str] = set()  # the names this module registered (the library's registry, not the dashboard's state)
