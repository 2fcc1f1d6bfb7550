"""The Curate page's widgets."""
