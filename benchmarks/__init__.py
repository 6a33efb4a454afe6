"""Benchmarks (``assess bench …``): commands that print figures, kept apart from the packages they measure
so that no product module imports its own benchmark. Figures and how to read them: docs/BENCHMARKS.md."""
