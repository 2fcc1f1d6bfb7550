"""The Map page's widgets."""
