"""What is in a store and how healthy it is: the Overview page and `memlens stats`.

Every figure is folded from Arrow batches of a few columns streamed from the store
(`store.streams`), so no function here holds the tenant's memories in memory: at a million
memories the counts read six short columns once, duplicates keep 8 bytes per memory, and
dangling edges look their endpoints up in the table.
"""

from memory_core.stats.counts import NONE, ValueCounts
from memory_core.stats.duplicates import Duplicates, duplicate_counts
from memory_core.stats.over_time import memories_over_time
from memory_core.stats.summary import StoreStats, dangling_edge_count, store_stats
from memory_core.stats.tags import tag_counts

__all__ = ["NONE", "Duplicates", "StoreStats", "ValueCounts", "dangling_edge_count",
           "duplicate_counts", "memories_over_time", "store_stats", "tag_counts"]
