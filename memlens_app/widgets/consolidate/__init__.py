"""The Consolidate tab's widgets (a tab of the Curate page, with its own data and actions)."""
