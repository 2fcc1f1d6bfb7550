"""Benchmarks behind `memlens bench ...`: figures and ratios, never timed unit tests.

The current figure of each bench, with its target, command, machine and date, is in
docs/performance.md."""
