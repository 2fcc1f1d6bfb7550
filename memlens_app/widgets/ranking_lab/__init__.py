"""The Ranking Lab page's widgets."""
