"""Benchmark suites. Each module defines `cases(ctx) -> list[Case]`; add a module per capability."""
