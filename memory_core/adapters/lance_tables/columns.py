"""Column type checks of a LanceDB source table, and the refusal that names a wrong one."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pyarrow as pa

from memory_core.adapters.lance_tables.source import LanceTable
from memory_core.model.errors import ExportFormatError

Check = Callable[[pa.DataType], bool]


def is_text(kind: pa.DataType) -> bool:
    """Whether a column holds strings."""
    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind)
                or pa.types.is_string_view(kind))


def is_integer(kind: pa.DataType) -> bool:
    """Whether a column holds integers."""
    return bool(pa.types.is_integer(kind))


def is_key(kind: pa.DataType) -> bool:
    """Whether a column can hold ids: strings or integers."""
    return is_text(kind) or is_integer(kind)


def is_number(kind: pa.DataType) -> bool:
    """Whether a column holds integers or floats."""
    return bool(pa.types.is_integer(kind) or pa.types.is_floating(kind))


def is_time(kind: pa.DataType) -> bool:
    """Whether a column holds a time: a timestamp or date, an ISO string or epoch seconds."""
    return bool(pa.types.is_timestamp(kind) or pa.types.is_date(kind) or is_text(kind)
                or is_number(kind))


def is_epoch(kind: pa.DataType) -> bool:
    """Whether a column holds epoch seconds (numbers) or timestamps."""
    return bool(is_number(kind) or pa.types.is_timestamp(kind))


def is_text_list(kind: pa.DataType) -> bool:
    """Whether a column holds lists of strings."""
    return bool((pa.types.is_list(kind) or pa.types.is_large_list(kind)
                 or pa.types.is_fixed_size_list(kind)) and is_text(kind.value_type))


def is_json(kind: pa.DataType) -> bool:
    """Whether a column can hold a JSON object: a string of JSON or a struct."""
    return bool(is_text(kind) or pa.types.is_struct(kind) or pa.types.is_map(kind))


def is_vector(kind: pa.DataType) -> bool:
    """Whether a column holds vectors: lists of numbers."""
    return bool((pa.types.is_list(kind) or pa.types.is_large_list(kind)
                 or pa.types.is_fixed_size_list(kind)) and pa.types.is_floating(kind.value_type))


#: What each column check accepts, for error messages.
KIND_NAMES: dict[Callable[[pa.DataType], bool], str] = {
    is_text: "strings", is_integer: "integers", is_number: "numbers",
    is_key: "ids (strings or integers)",
    is_time: "times (timestamps, ISO-8601 strings or epoch seconds)",
    is_epoch: "epoch seconds (numbers) or timestamps",
    is_text_list: "lists of strings", is_json: "JSON objects (JSON text or a struct)",
    is_vector: "vectors (lists of floats)",
}


def check_columns(source: LanceTable, required: Mapping[str, Check],
                  optional: Mapping[str, Check], what: str) -> None:
    """Refuse a table without the `required` columns, or whose columns (required or
    optional) have a type their check (e.g. `is_text`) refuses."""
    names = source.schema.names
    missing = [name for name in required if name not in names]
    if missing:
        raise ExportFormatError(
            f"{source.label} has no column {', '.join(map(repr, missing))}, so it is not "
            f"{what}; its columns: {', '.join(names)}")
    for name, check in {**required, **optional}.items():
        if name in names and not check(source.schema.field(name).type):
            wanted = KIND_NAMES.get(check, check.__name__)
            raise ExportFormatError(
                f"{source.label}: column {name!r} is {source.schema.field(name).type}, but "
                f"it should hold {wanted}")
