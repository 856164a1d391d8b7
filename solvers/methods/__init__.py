"""Time integrators: one module per method."""
