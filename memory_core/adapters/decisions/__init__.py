"""The `decisions` import format: decision records (ADR-style Markdown) read into memories."""
