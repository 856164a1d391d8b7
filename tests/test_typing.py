"""The public API type-checks from a user's script (PEP 561 py.typed; mypy configured in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import solvers

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = '''
from typing import Literal
import numpy as np
import solvers

res: solvers.Result = solvers.simulate("planar_pendulum", "rk4", h=0.01, t_end=1.0, params={"theta0": 0.5})
status: Literal["ok", "diverged", "failed", "cancelled"] = res.status
energy: np.ndarray = res.energy_error
path = res.save("run.npz")
back: solvers.Result = solvers.load(path)
again: solvers.Result = solvers.rerun(back)
same: bool = again.equals(back, timing=False)
version: str = solvers.__version__
table: list[dict[str, object]] = solvers.compare([res])["table"]
'''

BAD = '''
import solvers

res = solvers.simulate("planar_pendulum", "rk4", h=0.01, t_end=1.0)
wrong: int = res.status
'''


def _mypy(tmp_path: Path, scripts: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """One mypy run over the given scripts (one analysis of the package for all of them)."""
    for name, text in scripts.items():
        (tmp_path / name).write_text(text)
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent",
                           "--ignore-missing-imports", *(str(tmp_path / name) for name in scripts)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)


def test_py_typed_ships_with_the_package():
    assert (Path(solvers.__file__).parent / "py.typed").is_file()


def test_a_user_script_type_checks_and_a_wrong_use_does_not(tmp_path):
    pytest.importorskip("mypy")
    out = _mypy(tmp_path, {"user.py": SCRIPT, "wrong.py": BAD})
    errors = [line for line in out.stdout.splitlines() if ": error:" in line]
    assert out.returncode == 1 and len(errors) == 1, out.stdout  # the user's script is clean
    assert "wrong.py:5: error:" in errors[0], out.stdout
    assert 'Incompatible types in assignment (expression has type "Literal[' in errors[0], out.stdout
