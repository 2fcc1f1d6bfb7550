"""The Export Diff page's widgets."""
