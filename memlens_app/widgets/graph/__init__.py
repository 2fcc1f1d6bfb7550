"""The Graph page's widgets."""
