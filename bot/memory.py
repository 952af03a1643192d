"""Giving freed heap memory back to the operating system.

Loading the topic model parses a 4.5 MB artefact into tens of thousands of small objects;
once they are freed, glibc keeps the pages in its heap (about 20 MiB), so an idle bot looks
20 MiB bigger than what it holds. `malloc_trim` hands them back. Elsewhere it is a no-op.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc


@functools.cache
def _malloc_trim():
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        return ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS)
        return None


def return_freed_memory() -> bool:
    """Collect garbage and release free heap pages; True when the C library could."""
    gc.collect()
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
