"""The seed papers' numerical experiments as data: what each paper ran, what it claims, and a runner that
measures every claim with this library.

    python -m solvers.papers list
    python -m solvers.papers run seed000 [--out FILE.json] [--t-end T] [--max-samples N]

An :class:`Experiment` is one entry of :data:`EXPERIMENTS`: the paper's runs (benchmark, method, step, end time,
parameters, options, the paper's label), the series its figures show (each an extractor from a
:class:`~solvers.result.Result`), and its claims, each with the paper's words, our criterion and an evaluator
that turns the runs into a measured value and a verdict. :func:`run_experiment` runs everything through
``solvers.simulate`` and returns plain JSON-able data for the CLI and the dashboard. Methods that are not
registered yet are skipped with a note, and the claims that need them are reported as "not measured".

Layout: ``model`` (Run, Series, Claim, Experiment and the generic claim helpers), one module per seed
(``seed000`` ... ``seed004``: its runs, series and claims), ``registry`` (EXPERIMENTS, the one place an experiment
is registered), ``runner`` (run_experiment) and ``cli``. Adding an experiment: one module with one ``Experiment``
and one line in ``registry``.
"""

from .cli import format_claims, format_runs, main
from .model import (
    ROUNDOFF,
    Claim,
    Evaluator,
    Experiment,
    Run,
    Series,
    Verdict,
    energy_windows,
    on_common_times,
    summary_below,
    summary_in_band,
    summary_of,
    summary_ratio,
)
from .registry import EXPERIMENTS
from .runner import describe, experiments, run_experiment
from .seed000 import SEED000, joint_a_velocity, rod2_omega_x, rod2_x
from .seed001 import SEED001, SEED001_TABLES, tip2
from .seed002 import SEED002, norm_crossings, theta_norm
from .seed003 import S003_GRID, SEED003, error_curve, mean_errors, q_x2, q_y2
from .seed004 import P3D_MIDPOINT, P3D_OTHERS, PLANAR_LABELS, SEED004, planar_amplitude

__all__ = [
    "EXPERIMENTS", "P3D_MIDPOINT", "P3D_OTHERS", "PLANAR_LABELS", "ROUNDOFF", "S003_GRID", "SEED000", "SEED001",
    "SEED001_TABLES", "SEED002", "SEED003", "SEED004", "Claim", "Evaluator", "Experiment", "Run", "Series", "Verdict",
    "describe", "energy_windows", "error_curve", "experiments", "format_claims", "format_runs", "joint_a_velocity",
    "main", "mean_errors", "norm_crossings", "on_common_times", "planar_amplitude", "q_x2", "q_y2", "rod2_omega_x",
    "rod2_x", "run_experiment", "summary_below", "summary_in_band", "summary_of", "summary_ratio", "theta_norm",
    "tip2",
]
