"""``python -m solvers``: see solvers.cli."""

from .cli import main

raise SystemExit(main())
