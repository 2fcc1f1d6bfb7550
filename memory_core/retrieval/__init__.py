"""Retrieval: candidate engines, session context, fusion, decay rerank, MMR, output tiers and
token budgets, `search()` and `recall()`."""
