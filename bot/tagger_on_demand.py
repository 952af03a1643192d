"""The tagger, held only while a job tags.

Its learned model takes about 17 MiB once loaded, and a bot spends almost all its time idle
between ingests. `digestbot run` loads it at start (a broken artefact stops the start with one
line, and the version decides whether stored tags are stale), lets it go, and loads it again
for each ingest or re-tag run, which costs about half a second.
"""

from __future__ import annotations

import threading
from typing import Any

from bot.memory import return_freed_memory
from digests.topics.catalog import Catalog
from digests.topics.tagger import Tagger
from digests.topics.topic_model import TopicModel


class TaggerOnDemand:
    """Stands in for a `Tagger`: every attribute but `version` loads it when not held."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._lock = threading.Lock()
        self._tagger: Tagger | None = None
        self.version: str = self._loaded().version
        self.release()

    @property
    def held(self) -> bool:
        return self._tagger is not None

    def _loaded(self) -> Tagger:
        with self._lock:
            if self._tagger is None:
                # Not `TopicModel.shipped()`: that one is cached for the whole process.
                self._tagger = Tagger(self.catalog, model=TopicModel.load())
            return self._tagger

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loaded(), name)

    def release(self) -> None:
        """Let the model go; a job still tagging keeps its own reference until it ends."""
        with self._lock:
            self._tagger = None
        return_freed_memory()
