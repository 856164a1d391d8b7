"""The container's file-system paths without a container engine: an arbitrary UID in group 0 (OpenShift-style
``--user 4242:0``) and a read-only root file system.

The suite runs as root, which ignores file permissions; each case runs its child process as root WITHOUT the
permission-override capabilities (``setpriv --bounding-set -dac_override,...``), so it meets the permissions a
UID that owns none of the files meets: it may write only where group 0 may (the directories are owned by
another UID, group 0), exactly the situation of an arbitrary UID in group 0.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numba
import pytest
from conftest import REPO_ROOT

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                                reason="needs root and setpriv (util-linux) to drop the permission override")

NO_OVERRIDE = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner,-chown"]
OWNER = 4242  # owns the directories; the child process is not it


def _tree(path: Path, mode_dirs: int, mode_files: int, gid: int) -> None:
    for root, _dirs, files in os.walk(path):
        os.chown(root, OWNER, gid)
        os.chmod(root, mode_dirs)
        for name in files:
            os.chown(os.path.join(root, name), OWNER, gid)
            os.chmod(os.path.join(root, name), mode_files)


def _child(code: str, env: dict) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "INTEGRATOR_LAB_", "REDIS"))}
    return subprocess.run([*NO_OVERRIDE, sys.executable, "-c", code], cwd=REPO_ROOT, env={**base, **env},
                          capture_output=True, text=True, timeout=600)


@pytest.fixture
def place():
    path = Path(tempfile.mkdtemp(prefix="integrator-lab-deploy-", dir="/tmp"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _kernels_into(numba_dir: Path) -> Path:
    """This process's compiled kernels (the digest directory) copied under numba_dir: the image's build-time
    compilation."""
    current = Path(numba.config.CACHE_DIR)
    target = numba_dir / current.name
    if current.is_dir():
        shutil.copytree(current, target)
    else:
        target.mkdir(parents=True)
    return target


CODE = """
import numba, solvers
from app import config
directory = config.cache_dir()
config.secret_key(directory)
res = solvers.simulate('planar_pendulum', 'rk4', h=0.01, t_end=0.1)
print(numba.config.CACHE_DIR)
print(directory)
print(res.status)
"""


def test_an_arbitrary_uid_in_group_zero_uses_the_group_writable_caches(place):
    """Caches in directories owned by another UID and writable by group 0 (the image chgrp's them to 0 and gives
    the group the owner's rights): kernels load from the image's cache in place, the job store and the secret
    key are written there."""
    numba_dir, app_dir = place / "numba", place / "app"
    kernels = _kernels_into(numba_dir)
    app_dir.mkdir()
    for path in (numba_dir, app_dir):
        _tree(path, 0o2775, 0o664, 0)
    out = _child(CODE, {"NUMBA_CACHE_DIR": str(numba_dir), "INTEGRATOR_LAB_CACHE_DIR": str(app_dir),
                        "HOME": "/nonexistent"})
    assert out.returncode == 0, out.stderr[-3000:]
    cache, directory, status = out.stdout.split()[-3:]
    assert cache == str(kernels) and directory == str(app_dir) and status == "ok"
    assert (app_dir / "secret_key").is_file()


def test_a_read_only_kernel_cache_is_used_through_a_writable_copy(place):
    """A kernel cache nobody may write (a read-only root file system, or a UID outside the owner's group): numba
    would refuse to import the kernels ("no locator available"); solvers copies them once under the temporary
    directory (a tmpfs) and loads them from there. A job store that is not writable is refused by name."""
    numba_dir, app_dir, tmp = place / "numba", place / "app", place / "tmp"
    kernels = _kernels_into(numba_dir)
    app_dir.mkdir()
    tmp.mkdir()
    os.chmod(tmp, 0o1777)
    _tree(numba_dir, 0o755, 0o644, OWNER)
    _tree(app_dir, 0o2775, 0o664, 0)
    env = {"NUMBA_CACHE_DIR": str(numba_dir), "INTEGRATOR_LAB_CACHE_DIR": str(app_dir), "TMPDIR": str(tmp),
           "HOME": "/nonexistent"}
    out = _child(CODE, env)
    assert out.returncode == 0, out.stderr[-3000:]
    cache, _directory, status = out.stdout.split()[-3:]
    assert Path(cache).parent.parent == tmp and Path(cache).name == kernels.name and status == "ok"
    assert {p.name for p in kernels.iterdir()} <= {p.name for p in Path(cache).iterdir()}
    _tree(app_dir, 0o755, 0o644, OWNER)  # the job store read-only as well: refused with its name
    refused = _child("from app import config; config.cache_dir()", env)
    assert refused.returncode != 0
    assert f"INTEGRATOR_LAB_CACHE_DIR={app_dir} is not a writable directory" in refused.stderr
