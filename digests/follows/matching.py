"""Which of a batch of new papers each query matches, in memory.

A day's papers are indexed once (word → paper → positions); each query's tree then becomes set
operations over that index. Ten thousand queries against two thousand papers take well under a
second this way (bench/bench_query_follows.py), and the answer is the one FTS5 and PostgreSQL
give for the same papers: the same words, the same phrase rule (consecutive positions).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from digests.follows.query import Any, Node, Term

_NONE: frozenset[int] = frozenset()
_STRIDE = 1 << 20  # positions of paper i are i * _STRIDE + position: one int per occurrence


class WordIndex:
    """The papers of a batch by word, and every occurrence of each word as one number, so that
    phrases are intersections of shifted occurrence sets (set operations run in C)."""

    def __init__(self, texts: Sequence[str]) -> None:
        """`texts[i]` is paper i's search text (`digests.follows.query.search_text`)."""
        self.papers: dict[str, set[int]] = defaultdict(set)
        self.occurrences: dict[str, set[int]] = defaultdict(set)
        self._shifted: dict[tuple[str, int], set[int]] = {}
        for paper, text in enumerate(texts):
            base = paper * _STRIDE
            for position, word in enumerate(text.split()[: _STRIDE - 1]):
                self.occurrences[word].add(base + position)
        for word, places in self.occurrences.items():
            self.papers[word] = {place // _STRIDE for place in places}

    def matches(self, node: Node) -> set[int] | frozenset[int]:
        """Indexes of the papers `node` matches (the index's own set: read it, do not change
        it)."""
        if isinstance(node, Term):
            return self._phrase(node.words)
        if isinstance(node, Any):
            return set().union(*(self.matches(option) for option in node.options))
        found = self.matches(node.include[0])
        for part in node.include[1:]:
            if not found:
                return found
            found = found & self.matches(part)
        for part in node.exclude:
            if not found:
                break
            found = found - self.matches(part)
        return found

    def _phrase(self, words: tuple[str, ...]) -> set[int] | frozenset[int]:
        if len(words) == 1:
            return self.papers.get(words[0], _NONE)
        if any(word not in self.papers for word in words):
            return _NONE
        starts = self.occurrences[words[0]]
        for offset, word in enumerate(words[1:], start=1):
            starts = starts & self._shifted_back(word, offset)
            if not starts:
                return _NONE
        return {place // _STRIDE for place in starts}

    def _shifted_back(self, word: str, offset: int) -> set[int]:
        """Where `word` would have to start, seen `offset` words later."""
        key = (word, offset)
        if key not in self._shifted:
            self._shifted[key] = {place - offset for place in self.occurrences[word]}
        return self._shifted[key]
