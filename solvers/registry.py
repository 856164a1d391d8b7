"""The registry: plain dicts of benchmarks and methods. Adding either is one line here.

The CLI, the dashboard and the tests are all driven from these two dicts.
"""

from __future__ import annotations

from .composition import composed
from .methods import (
    erk,
    hermite,
    lgvi,
    lie_galpha,
    magnus4,
    midpoint,
    quaternion_rk4,
    rattlie,
    rk4,
    rkmk,
    rotvec_rk45,
    scipy_ivp,
    spark,
)
from .methods.base import Method
from .models import (
    angular_velocity,
    natural_double_pendulum,
    pendulum_3d,
    planar_pendulum,
    spatial_chain,
    spatial_double_pendulum,
    two_link_arm,
)
from .models.base import Benchmark

BENCHMARKS: dict[str, Benchmark] = {
    b.id: b
    for b in (
        spatial_double_pendulum.BENCHMARK,
        pendulum_3d.BENCHMARK,
        planar_pendulum.BENCHMARK,
        two_link_arm.BENCHMARK,
        natural_double_pendulum.BENCHMARK,
        angular_velocity.BENCHMARK,
        spatial_chain.BENCHMARK,
    )
}

METHODS: dict[str, Method] = {
    m.id: m
    for m in (
        rk4.METHOD,
        erk.METHOD,
        lie_galpha.METHOD,
        rattlie.METHOD,
        *(composed(rattlie.METHOD, p) for p in (4, 6, 8)),
        lgvi.METHOD,
        *(composed(lgvi.METHOD, p) for p in (4, 6, 8)),
        lgvi.METHOD_LAGRANGIAN,
        spark.METHOD,
        rotvec_rk45.METHOD,
        rotvec_rk45.METHOD_SWITCH,
        quaternion_rk4.METHOD,
        rkmk.METHOD_RKMK4,
        rkmk.METHOD,
        magnus4.METHOD,
        hermite.METHOD_H23,
        hermite.METHOD_H33,
        midpoint.METHOD_ANGLE,
        *(composed(midpoint.METHOD_ANGLE, p) for p in (4, 6, 8)),
        midpoint.METHOD_REDUCED,
        midpoint.METHOD_ROTATION,
        *(composed(midpoint.METHOD_ROTATION, p) for p in (4, 6, 8)),
        midpoint.METHOD_CARDAN,
        scipy_ivp.METHOD_DOP853,
        scipy_ivp.METHOD_RADAU,
    )
}

# which machinery each benchmark's model uses (declared by its module)
MACHINERY: dict[str, str] = {b.id: b.machinery for b in BENCHMARKS.values()}


def applies(method_id: str, benchmark_id: str) -> bool:
    """True if the method is offered on the benchmark."""
    m = METHODS[method_id]
    if m.benchmarks is not None:
        return benchmark_id in m.benchmarks
    return MACHINERY[benchmark_id] in m.machineries
