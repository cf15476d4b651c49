"""Arrow columns built from their buffers, for the heatmaps' cells.

pyarrow's `pa.array` of a NumPy array first asks whether it is a pandas object, and that check imports
pandas: 0.34 s of a fresh server's first page, which needs no pandas otherwise. Built from buffers (the
Arrow layout: a validity bitmap, then the values; strings as int32 offsets and UTF-8 bytes), a column
costs the same and imports nothing. Streamlit sends a pyarrow Table as it is (no pandas either).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

_TYPES = {
    np.dtype(np.int8): pa.int8(),
    np.dtype(np.int16): pa.int16(),
    np.dtype(np.float32): pa.float32(),
    np.dtype(np.float64): pa.float64(),
}


def _bits(flags: np.ndarray):
    """A bitmap: bit i (least significant first) is flag i."""
    return pa.py_buffer(np.packbits(np.asarray(flags, dtype=bool), bitorder="little"))


def numbers(values: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """A column of int8, int16, float32 or float64 values; where `valid` is False the value is null."""
    values = np.ascontiguousarray(values)
    bitmap = None if valid is None or np.all(valid) else _bits(valid)
    return pa.Array.from_buffers(_TYPES[values.dtype], len(values), [bitmap, pa.py_buffer(values)])


def flags(values: np.ndarray) -> pa.Array:
    """A column of booleans (Arrow packs them 8 to a byte)."""
    return pa.Array.from_buffers(pa.bool_(), len(values), [None, _bits(values)])


def strings(items: Sequence[str]) -> pa.Array:
    data = [str(s).encode("utf-8") for s in items]
    offsets = np.zeros(len(data) + 1, dtype=np.int32)
    offsets[1:] = np.cumsum([len(d) for d in data])
    return pa.Array.from_buffers(pa.string(), len(data), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))])


def labels(codes: np.ndarray, names: Sequence[str]) -> pa.Array:
    """A dictionary-encoded text column: each name sent once, each row its code (int8 or int16)."""
    return pa.DictionaryArray.from_arrays(numbers(codes), strings(names))


def table(columns: dict[str, pa.Array]) -> pa.Table:
    return pa.Table.from_arrays(list(columns.values()), names=list(columns))
