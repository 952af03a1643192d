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


class WordIndex:
    """The papers of a batch by word, with each word's positions in each paper."""

    def __init__(self, texts: Sequence[str]) -> None:
        """`texts[i]` is paper i's search text (`digests.follows.query.search_text`)."""
        self.size = len(texts)
        self.postings: dict[str, dict[int, list[int]]] = defaultdict(dict)
        for paper, text in enumerate(texts):
            for position, word in enumerate(text.split()):
                self.postings[word].setdefault(paper, []).append(position)

    def matches(self, node: Node) -> set[int]:
        """Indexes of the papers `node` matches."""
        if isinstance(node, Term):
            return self._phrase(node.words)
        if isinstance(node, Any):
            return set().union(*(self.matches(option) for option in node.options))
        found = self.matches(node.include[0])
        for part in node.include[1:]:
            if not found:
                return found
            found &= self.matches(part)
        for part in node.exclude:
            if not found:
                break
            found -= self.matches(part)
        return found

    def _phrase(self, words: tuple[str, ...]) -> set[int]:
        lists = [self.postings.get(word, {}) for word in words]
        candidates = set(lists[0])
        for postings in lists[1:]:
            candidates &= postings.keys()
        if len(words) == 1:
            return candidates
        return {paper for paper in candidates if _consecutive(paper, lists)}


def _consecutive(paper: int, lists: list[dict[int, list[int]]]) -> bool:
    starts = set(lists[0][paper])
    for offset, postings in enumerate(lists[1:], start=1):
        starts &= {position - offset for position in postings[paper]}
        if not starts:
            return False
    return True
