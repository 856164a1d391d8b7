"""python -m solvers.papers list | run ID (solvers.papers.cli)."""

from .cli import main

raise SystemExit(main())
