"""A store's files as Lance keeps them, checked without trusting any one: the versions its
`_versions` folder lists, each version's data, deletion and index files read whole, and
Lance's errors on a damaged file turned into one `StoreDamagedError` line (`damage`).
`memory_core.integrity` builds `memlens check` on these."""
