"""Benchmark models: one module per benchmark, two machineries (rigid, coords) and the rotation test."""
