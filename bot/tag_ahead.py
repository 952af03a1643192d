"""Tagging a batch ahead, in a second process, while this one stores the batch before.

`digestbot ingest --file` spends about as long tagging papers as parsing and storing them; on
two cores the two halves overlap. The worker is forked once the tagger is loaded, so it shares
the model's memory instead of loading its own. Anything it was not given, or cannot answer
(it died), is tagged here: the papers stored are the same either way.
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import signal
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager, suppress

from digests.papers.feeds import ParsedFeed
from digests.topics.tagger import Paper, Tagger, TagScore

_WORKER_TAGGER: Tagger | None = None  # the forked worker's copy of the parent's tagger
_PR_SET_PDEATHSIG = 1  # Linux prctl(2)


def _exit_with_parent(parent: int) -> None:
    """The worker dies with the ingest, even one killed outright (SIGKILL runs no cleanup)."""
    with suppress(OSError, AttributeError):  # not Linux: it ends when the parent exits
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(0)


def _tag_in_worker(papers: list[Paper]) -> list[list[tuple[str, float, str]]]:
    """Each paper's tags as plain tuples: pickled in C, where the frozen dataclasses cost a
    Python call per field on both sides of the pipe (a tenth of the worker's time)."""
    assert _WORKER_TAGGER is not None
    tagged = _WORKER_TAGGER.tag_many(papers)
    return [[(tag.slug, tag.score, tag.source) for tag in tags] for tags in tagged]


def _key(paper: Paper) -> tuple:
    title, abstract, categories = paper
    return title, abstract, tuple(categories)


class TagAhead:
    """Stands in for the tagger of an ingest: `ahead(batches)` hands each batch to the worker
    before the batch before it is stored; `tag_many` then finds its papers tagged already."""

    def __init__(self, tagger: Tagger, pool: ProcessPoolExecutor) -> None:
        self.tagger = tagger
        self.version = tagger.version
        self._pool = pool
        self._pending: list[tuple[list[Paper], Future]] = []
        self._ready: dict[tuple, list[TagScore]] = {}

    def ahead(self, batches: Iterable[ParsedFeed]) -> Iterator[ParsedFeed]:
        previous, upcoming = None, iter(batches)
        while True:
            try:
                batch = next(upcoming)
            except StopIteration:
                break
            except Exception:  # a fault further on: the batch read before it is stored first
                if previous is not None:
                    yield previous
                raise
            papers = [(r.title, r.abstract, r.categories) for r in batch.records]
            self._pending.append((papers, self._pool.submit(_tag_in_worker, papers)))
            if previous is not None:
                yield previous
                self._ready.clear()  # the previous batch is stored: its tags are done with
            previous = batch
        if previous is not None:
            yield previous

    def tag_many(self, papers: Iterable[Paper]) -> list[list[TagScore]]:
        papers = list(papers)
        while self._pending and any(_key(paper) not in self._ready for paper in papers):
            self._collect(*self._pending.pop(0))
        missing = [paper for paper in papers if _key(paper) not in self._ready]
        if missing:
            tagged = self.tagger.tag_many(missing)
            self._ready.update(zip(map(_key, missing), tagged, strict=True))
        return [list(self._ready[_key(paper)]) for paper in papers]

    def _collect(self, papers: list[Paper], future: Future) -> None:
        try:
            tagged = future.result()
        except Exception:  # the worker died or failed: tagged here, where a fault shows
            return
        scores = ([TagScore(*tag) for tag in tags] for tags in tagged)
        self._ready.update(zip(map(_key, papers), scores, strict=True))


@contextmanager
def tagging_ahead(tagger: Tagger) -> Iterator[TagAhead | None]:
    """A `TagAhead` with its worker, or None where a second core or fork is missing."""
    global _WORKER_TAGGER
    if (os.cpu_count() or 1) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        yield None
        return
    _WORKER_TAGGER = tagger
    # What is loaded now (the tagger's tables, the catalog, the store's modules) lives as long
    # as the command: the cycle collector of either process no longer looks through it after
    # every few thousand allocations, and the worker's copy stays shared instead of being
    # touched page by page.
    gc.freeze()
    pool = ProcessPoolExecutor(
        1,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_exit_with_parent,
        initargs=(os.getpid(),),
    )
    try:
        # Forked now, while this is the only thread: reading ahead (`bot.read_ahead`) starts
        # another, and a child forked beside it could inherit a lock that thread holds.
        with suppress(Exception):  # a worker that cannot start leaves the tagging here
            pool.submit(os.getpid).result()
        yield TagAhead(tagger, pool)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        _WORKER_TAGGER = None
        gc.unfreeze()
