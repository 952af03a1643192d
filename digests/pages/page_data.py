"""What a web page shows, as plain data: a topic's summary, its page of papers, and the errors
a page can end in. `digests.usecases.topic_pages` reads them from the store; `bot/web.py` and
`digests.pages.atom` present them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlencode

from digests.follows.filters import FollowFilter
from digests.links.pages import Period, page_path
from digests.messages.digest import TopicRef
from digests.messages.layout import period_text
from digests.pages.charts import Chart
from digests.signals.momentum import Momentum
from digests.topics.catalog import UnknownTopic

AUTHORS_SHOWN = 3


@dataclass(frozen=True)
class PaperItem:
    arxiv_id: str
    title: str
    url: str
    published: datetime
    updated: datetime
    day: str  # "Sep 27, 2026"
    category: str
    authors: tuple[str, ...]  # every author, for the feed
    authors_line: str  # "A. One, B. Two, C. Three +5"
    abstract: str
    topics: tuple[TopicRef, ...]
    match: str = ""  # with a question: the abstract's sentence that matches it best


@dataclass(frozen=True)
class TopicSummary:
    slug: str
    name: str
    description: str
    momentum: Momentum
    sparkline: Chart

    @property
    def path(self) -> str:
        return page_path(self.slug)


@dataclass(frozen=True)
class TopicPage:
    topic: TopicSummary
    chart: Chart
    papers: tuple[PaperItem, ...]
    total: int  # papers of the topic (of the period, with one), all pages
    page: int
    pages: int
    period: Period | None = None
    typed: str = ""  # a follow filter's page: what a chat types to follow it
    question: str = ""  # a search's page: what was asked (`?q=…`)

    @property
    def follow_text(self) -> str:
        """What a chat types to follow this page's topic or filter."""
        return self.typed or f"/follow {self.topic.name}"

    @property
    def period_text(self) -> str:
        return period_text(self.period.start, self.period.end) if self.period else ""

    def page_query(self, number: int) -> str:
        """The query string of page `number` of the same list."""
        if self.question:
            return f"?{urlencode({'q': self.question})}&page={number}"
        return f"?{self.period.query}&page={number}" if self.period else f"?page={number}"


class PageOutOfRange(LookupError):
    """A page number past the topic's last page; `last` is the last one."""

    def __init__(self, page: int, last: int) -> None:
        super().__init__(f"page {page:,} is past the last page, {last:,}")
        self.last = last


class UnknownFollow(LookupError):
    """No stored follow filter has the slug (never followed, or unfollowed by all)."""


def authors_line(authors: Sequence[str], shown: int = AUTHORS_SHOWN) -> str:
    """ "A. One, B. Two, C. Three +5", as the seed pages write it."""
    names = [name for name in (" ".join(author.split()) for author in authors) if name]
    line = ", ".join(names[:shown])
    return f"{line} +{len(names) - shown}" if len(names) > shown else line


def typed_follow(follow: FollowFilter) -> str:
    """What a chat types to follow the filter, e.g. `/follow author: S. Levine`."""
    return f"/follow {follow.spec}"


def suggestions(error: UnknownTopic) -> list[TopicRef]:
    return [TopicRef(topic.slug, topic.name) for topic in error.suggestions]
