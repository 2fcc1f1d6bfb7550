"""The Agents page's widgets."""
