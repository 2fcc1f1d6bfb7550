"""The `hades` import format: HADES' observation, reflection and entity graph."""
