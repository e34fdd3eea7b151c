"""Reading ahead in a helper thread, so parsing overlaps with SQLite's writes."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import TypeVar

T = TypeVar("T")
_DONE = object()


def read_ahead(items: Iterator[T], batch: int = 500, depth: int = 8) -> Iterator[T]:
    """Yield `items` as produced by a background thread; its exception is re-raised here.

    Stopping early (the consumer fails or is closed) stops the producer too.
    """
    handoff: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce() -> None:
        chunk: list = []
        try:
            for item in items:
                chunk.append(item)
                if len(chunk) >= batch:
                    if not _put(handoff, chunk, stop):
                        return
                    chunk = []
            _put(handoff, chunk, stop)
            _put(handoff, _DONE, stop)
        except BaseException as error:  # handed to the consumer, raised there
            _put(handoff, error, stop)

    worker = threading.Thread(target=produce, name="import-reader", daemon=True)
    worker.start()
    try:
        while True:
            chunk = handoff.get()
            if chunk is _DONE:
                return
            if isinstance(chunk, BaseException):
                raise chunk
            yield from chunk
    finally:
        stop.set()
        worker.join()


def _put(handoff: queue.Queue, value, stop: threading.Event) -> bool:
    while not stop.is_set():
        try:
            handoff.put(value, timeout=0.1)
            return True
        except queue.Full:
            continue
    return False
