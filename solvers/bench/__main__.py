"""``python -m solvers.bench``: see the package docstring."""

from . import main

raise SystemExit(main())
