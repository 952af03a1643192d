"""Reading a file's next batch in a thread while the batch before is stored.

SQLite lets other threads run while it writes (the driver releases the GIL for each statement),
so `digestbot ingest --file` parses the next batch of papers meanwhile instead of after. At most
`depth` batches wait, so memory stays bounded; a fault of the reader is raised where the batch
after the last good one would have been, so the batches before it are stored first.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
_END = object()


def read_ahead(items: Iterable[T], *, depth: int = 1) -> Iterator[T]:
    """`items`, in order, each read in a background thread while the one before is used."""
    waiting: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def read() -> None:
        try:
            for item in items:
                if not _put(waiting, (item, None), stop):
                    return
            _put(waiting, (_END, None), stop)
        except BaseException as exc:  # raised to the consumer, in order
            _put(waiting, (_END, exc), stop)

    reader = threading.Thread(target=read, name="read-ahead", daemon=True)
    reader.start()
    try:
        while True:
            item, fault = waiting.get()
            if fault is not None:
                raise fault
            if item is _END:
                return
            yield item
    finally:
        stop.set()  # the consumer left early: the reader ends at its next batch
        reader.join(timeout=5)


def _put(waiting: queue.Queue, entry: tuple, stop: threading.Event) -> bool:
    """Hands `entry` over unless the consumer has gone; whether it was handed over."""
    while not stop.is_set():
        try:
            waiting.put(entry, timeout=0.1)
            return True
        except queue.Full:
            continue
    return False
