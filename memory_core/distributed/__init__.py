"""Bulk jobs on a distributed engine: the same job as in-process, run on Ray.

The jobs whose cost grows with the store (embedding every memory, rendering an export) read
the Lance tables in Ray workers (`ray.data.read_lance`, at the version the job pinned) and
hand their results back to this process, which writes them exactly as the in-process job
does: the vectors through the same audited write, the export lines through the same
`ExportWriter`. So a job's result is identical whichever engine ran it, and only the
reading and computing spreads over the cluster.

`ENGINES` names the choices; `local` (in-process) is the default and imports no Ray.
"""

from __future__ import annotations

#: The engines a bulk job runs on: `local` in this process, `ray` on a Ray cluster (a local
#: one started on this machine unless RAY_ADDRESS names one).
ENGINES = ("local", "ray")

__all__ = ["ENGINES"]
