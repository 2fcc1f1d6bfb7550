"""What is in a store and how healthy it is: the Overview page and `memlens stats`.

Every figure is folded from Arrow batches of a few columns streamed from the store
(`store.streams`), so no function here holds the tenant's memories in memory: at a million
memories the counts read seven columns once, duplicates keep 8 bytes per memory, and
dangling edges look their endpoints up in the table. The pages that only filter use
`filter_choices`, a lighter pass.
"""

from memory_core.stats.choices import FilterChoices, filter_choices
from memory_core.stats.counts import NONE, Combinations, ValueCounts, labelled
from memory_core.stats.duplicates import Duplicates, duplicate_counts
from memory_core.stats.over_time import memories_over_time
from memory_core.stats.summary import StoreStats, dangling_edge_count, store_stats

__all__ = ["NONE", "Combinations", "Duplicates", "FilterChoices", "StoreStats", "ValueCounts",
           "dangling_edge_count", "duplicate_counts", "filter_choices", "labelled",
           "memories_over_time", "store_stats"]
