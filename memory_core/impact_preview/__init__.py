"""Impact preview: what a curation batch (archive, delete, purge, merge, supersede, correct,
consolidate, undo) would do to retrieval, measured on a scratch copy before it runs.

It sits above curation and evaluation: it runs a curation action on a copy of the store
and scores the queries that matter with the evaluation runner and its paired tests.
"""

from memory_core.impact_preview.changes import QueryChange
from memory_core.impact_preview.measure import ImpactReport, impact, impact_steps
from memory_core.impact_preview.queries import impact_queries, save_query_set

__all__ = ["ImpactReport", "QueryChange", "impact", "impact_queries", "impact_steps",
           "save_query_set"]
