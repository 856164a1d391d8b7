"""The long-time view: the energy envelope of decimated runs and the log-time energy chart."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

import solvers
from solvers import figures


@pytest.mark.parametrize("method", ["rk4", "rattlie", "scipy_dop853"])
def test_the_envelope_holds_the_extremes_of_every_step_between_two_samples(method):
    full = solvers.simulate("pendulum_3d", method, h=0.01, t_end=5.0)
    dec = solvers.simulate("pendulum_3d", method, h=0.01, t_end=5.0, save_every=25)
    env = dec.energy_error_envelope
    assert env.shape == (len(dec.t), 2)
    e = full.energy_error
    for j in range(1, len(dec.t)):
        lo, hi = round(dec.t[j - 1] / 0.01) + 1, round(dec.t[j] / 0.01) + 1  # the steps since the previous sample
        assert env[j, 0] == e[lo:hi].min() and env[j, 1] == e[lo:hi].max()
    # the peaks the decimated series misses are there: the largest one is the summary's maximum over all steps
    assert np.nanmax(np.abs(env)) == pytest.approx(full.summary["max_energy_error"], rel=1e-12)
    assert np.abs(dec.energy_error).max() <= np.nanmax(np.abs(env))


def test_log_time_energy_chart_and_envelope_peaks():
    res = solvers.simulate("planar_pendulum", "rk4", h=0.05, t_end=200.0, save_every=40)
    rec = figures.record(res, reference=False)
    fig = figures.energy_figure([rec], "loglog")
    go.Figure(fig)  # valid plotly
    assert fig["layout"]["xaxis"]["type"] == "log" and fig["layout"]["yaxis"]["type"] == "log"
    peaks = figures.energy_error_peaks(rec)
    assert np.all(peaks >= np.abs(rec["energy_error"]) - 1e-300)
    assert peaks.max() == pytest.approx(res.summary["max_energy_error"], rel=1e-12)
    with pytest.raises(ValueError, match="energy mode"):
        figures.energy_figure([rec], "semilog")
    # no energy (angular_velocity): no envelope either
    rot = solvers.simulate("angular_velocity", "rk4", h=0.01, t_end=0.5, save_every=5)
    assert np.all(np.isnan(rot.energy_error_envelope))
