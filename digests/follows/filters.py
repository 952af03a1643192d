"""Follows of a search, an author or an arXiv category, as a channel types them.

    query: "world model" AND (agent OR agents) NOT survey
    author: "Sergey Levine"
    category: cs.RO

Each becomes a `FollowFilter`, stored as a topic of its own kind (its slug says which), so the
digest, momentum, the 12-week chart, /following and /unfollow treat it like a catalog topic.
Its papers are tagged when it is first followed (`digests.usecases.follows`) and on every
ingest (`match_new_papers`).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

from digests.errors import UsageError
from digests.follows.authors import AuthorError, AuthorName, author_name, display_name, parse_author
from digests.follows.categories import CATEGORIES, CategoryError, parse_category
from digests.follows.matching import WordIndex
from digests.follows.query import Node, QueryError, canonical, parse, search_text
from digests.papers.records import PaperRecord
from digests.topics.catalog import TopicDef

KINDS = ("query", "author", "category")
LABELS = {"query": "Search", "author": "Author", "category": "Category"}
MAX_FOLLOWS = 25  # per channel, topics and filters together


class FilterError(UsageError, ValueError):
    """A follow that cannot be made; the message says why. `suggestions` are values to offer."""

    def __init__(self, message: str, suggestions: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.suggestions = list(suggestions)


@dataclass(frozen=True)
class FollowFilter:
    kind: str  # query | author | category
    definition: str  # the canonical form: equal filters, equal definitions
    shown: str  # as the channel sees it

    @property
    def slug(self) -> str:
        digest = hashlib.sha256(self.definition.encode()).hexdigest()[:16]
        return f"{self.kind}:{self.definition if self.kind == 'category' else digest}"

    @property
    def name(self) -> str:
        return f"{LABELS[self.kind]}: {self.shown}"

    @property
    def spec(self) -> str:
        """What to type to follow it again (a category's name is shown, not typed)."""
        return f"{self.kind}: {self.definition if self.kind == 'category' else self.shown}"

    def topic(self) -> TopicDef:
        return TopicDef(self.slug, self.name, f"papers matching {self.spec}")


def is_filter_spec(text: str) -> bool:
    kind, colon, _ = text.partition(":")
    return bool(colon) and kind.strip().lower() in KINDS


def is_filter_slug(slug: str) -> bool:
    return slug.partition(":")[0] in KINDS and ":" in slug


def parse_filter(text: str) -> FollowFilter:
    """`query: …`, `author: …` or `category: …` as a filter; raises FilterError saying why."""
    kind, _, value = text.partition(":")
    kind, value = kind.strip().lower(), value.strip()
    try:
        if kind == "query":
            return FollowFilter("query", canonical(parse(value)), value)
        if kind == "author":
            name = parse_author(value)
            return FollowFilter("author", name.key, display_name(value))
        if kind == "category":
            category = parse_category(value)
            return FollowFilter("category", category, f"{category} ({CATEGORIES[category]})")
    except (QueryError, AuthorError) as exc:
        raise FilterError(f"{kind}: {exc}.") from None
    except CategoryError as exc:
        raise FilterError(str(exc), [f"category: {c}" for c in exc.suggestions]) from None
    raise FilterError("say query:, author: or category: followed by what to follow")


@lru_cache(maxsize=20_000)
def query_tree(definition: str) -> Node:
    return parse(definition)


@lru_cache(maxsize=20_000)
def _author(definition: str) -> AuthorName:
    name = author_name(definition)
    assert name is not None  # definitions are keys of names that parsed
    return name


def match_new_papers(
    filters: Sequence[FollowFilter], papers: Sequence[PaperRecord]
) -> list[set[int] | frozenset[int]]:
    """For each filter, the indexes of the `papers` it matches."""
    batch = _Batch(papers)
    return [batch.matches(follow) for follow in filters]


class _Batch:
    """A batch of papers indexed by word, author surname and category, each when first asked."""

    def __init__(self, papers: Sequence[PaperRecord]) -> None:
        self.papers = papers

    def matches(self, follow: FollowFilter) -> set[int] | frozenset[int]:
        if follow.kind == "query":
            return self.words.matches(query_tree(follow.definition))
        if follow.kind == "author":
            wanted = _author(follow.definition)
            listed = self.surnames.get(wanted.surname, ())
            return {i for i, name in listed if wanted.matches(name)}
        return set(self.categories.get(follow.definition, ()))

    @cached_property
    def words(self) -> WordIndex:
        return WordIndex([search_text(paper.title, paper.abstract) for paper in self.papers])

    @cached_property
    def surnames(self) -> dict[str, list[tuple[int, AuthorName]]]:
        found = defaultdict(list)
        for i, paper in enumerate(self.papers):
            for name in filter(None, map(author_name, paper.authors)):
                found[name.surname].append((i, name))
        return found

    @cached_property
    def categories(self) -> dict[str, list[int]]:
        found = defaultdict(list)
        for i, paper in enumerate(self.papers):
            for category in set(paper.categories):
                found[category].append(i)
        return found
