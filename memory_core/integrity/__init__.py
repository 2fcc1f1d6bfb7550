"""`memlens check`: a store's tables read whole and held against what they must satisfy,
and `--repair`, which restores from the tables' version history (docs/design/records.md).

`check_store` scans every table (manifests, data files, deletion files, indexes: the store
layer's `memory_core.store.files`), the memories' content and vectors and the audit against
the versions; `plan_repair` and `apply_repair` put the store right. `store_damage` (from
`store.files.damage`) turns Lance's errors on a damaged file into one `StoreDamagedError`
line for every other command.
"""

from memory_core.integrity.check import check_store
from memory_core.integrity.repair import RepairPlan, RepairResult, apply_repair, plan_repair
from memory_core.store.files.damage import store_damage
from memory_core.store.files.findings import CheckReport, Problem, TableCheck

__all__ = ["CheckReport", "Problem", "RepairPlan", "RepairResult", "TableCheck",
           "apply_repair", "check_store", "plan_repair", "store_damage"]
