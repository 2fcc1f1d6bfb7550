"""The Decay page's widgets."""
