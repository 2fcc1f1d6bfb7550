"""Retrieval: candidate engines, fusion, decay rerank, MMR, `search()` and `recall()`."""
