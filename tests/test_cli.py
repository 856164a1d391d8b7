"""The CLI contract: list, run printing one JSON object, exit codes 0 / 2 / 3."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from solvers import cli


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solvers", *args], capture_output=True, text=True, timeout=300)


def test_list():
    p = run_cli("list")
    assert p.returncode == 0
    assert "spatial_double_pendulum" in p.stdout and "rk4" in p.stdout
    data = json.loads(run_cli("list", "--json").stdout)
    assert set(data) == {"benchmarks", "methods"} and "rk4" in data["methods"]


def test_run_ok_prints_summary_json(tmp_path):
    out = tmp_path / "r.csv"
    p = run_cli("run", "planar_pendulum", "rk4", "--h", "0.01", "--t-end", "5", "--param", "omega0=2",
                "--out", str(out))
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert data["status"] == "ok" and data["steps"] == 500 and data["max_energy_error"] > 0
    assert out.exists()


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["run", "nope", "rk4", "--h", "0.1", "--t-end", "1"], "unknown benchmark 'nope'"),
        (["run", "planar_pendulum", "rk4", "--h", "0", "--t-end", "1"], "h must be a positive"),
        (["run", "planar_pendulum", "rk4", "--h", "0.1", "--t-end", "1", "--param", "m=-2"], "must be > 0"),
        (["run", "planar_pendulum", "rk4", "--h", "0.1", "--t-end", "1", "--param", "m"], "KEY=VALUE"),
        (["run", "planar_pendulum", "rk4", "--h", "x", "--t-end", "1"], "invalid float value"),
        (["run", "planar_pendulum", "rk4", "--h", "0.1", "--t-end", "1", "--out", "a.txt"], ".npz, .csv or .json"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_exits_2_with_message(args, fragment, capsys):
    """In this process (cli.main, as `python -m solvers` calls it): a process each would cost its imports, about 2.5 s
    of CPU. The real process's exit status 2 and traceback-free message are tests/test_fuzz.py's
    test_cli_process_refuses_without_traceback."""
    try:
        code = cli.main(args)
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2
    assert fragment in err
    assert "Traceback" not in err


def test_diverged_exits_3():
    code = cli.main(["run", "two_link_arm", "rk4", "--h", "0.5", "--t-end", "100"])
    assert code == 3
