"""Freed NumPy buffers kept for reuse while training (glibc only; elsewhere nothing changes).

A training step allocates a few dozen arrays of 100-500 KB and frees them at the step's end. glibc
gives blocks that large their own mmap and returns them to the system when freed, so the next step
pays page faults for the same sizes again: about a third of a small model's step
(benchmarks/README.md). Raising the mmap threshold (32 MB) and the trim threshold (64 MB) keeps
those blocks in the heap, where the next step reuses them. The numbers computed are the same.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import lru_cache

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
MMAP_FROM = 32 << 20  # blocks below this come from the heap
TRIM_FROM = 64 << 20  # free heap above this goes back to the system


@lru_cache(maxsize=1)
def keep_freed_buffers() -> bool:
    """Ask glibc once per process to keep freed blocks for reuse; True if it agreed."""
    try:
        mallopt = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc (macOS, musl): nothing to tune
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_FROM)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_FROM))
