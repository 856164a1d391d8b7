"""The package version (kept equal to pyproject.toml's ``version``; tests/test_provenance.py checks it)."""

__version__ = "0.1.0"
