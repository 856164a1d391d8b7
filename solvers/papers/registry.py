"""The experiments, in seed order: the one place where an experiment is registered."""

from __future__ import annotations

from .model import Experiment
from .seed000 import SEED000
from .seed001 import SEED001
from .seed002 import SEED002
from .seed003 import SEED003
from .seed004 import SEED004

EXPERIMENTS: dict[str, Experiment] = {e.id: e for e in (SEED000, SEED001, SEED002, SEED003, SEED004)}
