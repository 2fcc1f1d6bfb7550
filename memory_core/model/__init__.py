"""The model layer: what a memory, an edge, an audit row and an event are (records, their
validation and value forms, schema, columns, codec, canonical), the filters over them,
settings, errors and the handling of untrusted text. It imports nothing of memlens above it."""
