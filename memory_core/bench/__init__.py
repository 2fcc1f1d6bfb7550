"""Benchmarks behind `memlens bench ...`: figures and ratios, never timed unit tests."""
