"""What the web pages show, read from the store: the topic index and one topic's page.

Momentum is computed for every topic at once (`topic_momenta`, the numbers and wording the
chats get) and kept for `KEPT_FOR`, as is each topic's paper count: both change only when
papers are ingested or re-tagged, and recomputing them on every request would cost a scan of
twelve weeks of tags, or of all the topic's tags. A topic's papers are read on each request, a
page at a time, from an index.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlmodel import Session

from digests.messages.layout import clean_text, link_url, long_date
from digests.messages.reports import topic_momenta
from digests.pages.charts import Chart, sparkline_chart, weekly_chart
from digests.signals.momentum import Momentum
from digests.store import pages, repo
from digests.store.models import Paper
from digests.store.unit_of_work import SessionFactory
from digests.topics.catalog import Catalog, TopicDef, UnknownTopic

PAPERS_PER_PAGE = 20
KEPT_FOR = timedelta(minutes=5)
AUTHORS_SHOWN = 3
TITLE_LIMIT = 500
ABSTRACT_LIMIT = 5000
# The chats' /trending: a topic rises with at least this many papers and a positive change.
RISING_FLOOR = 5


@dataclass(frozen=True)
class TopicLink:
    slug: str
    name: str


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
    topics: tuple[TopicLink, ...]


@dataclass(frozen=True)
class TopicSummary:
    slug: str
    name: str
    description: str
    momentum: Momentum
    sparkline: Chart


@dataclass(frozen=True)
class TopicPage:
    topic: TopicSummary
    chart: Chart
    papers: tuple[PaperItem, ...]
    total: int  # papers of the topic, all pages
    page: int
    pages: int


class PageOutOfRange(LookupError):
    """A page number past the topic's last page; `last` is the last one."""

    def __init__(self, page: int, last: int) -> None:
        super().__init__(f"page {page:,} is past the last page, {last:,}")
        self.last = last


class TopicPages:
    """The pages' data; safe to call from several threads at once."""

    def __init__(
        self, session_factory: SessionFactory, catalog: Catalog, *, per_page: int = PAPERS_PER_PAGE
    ) -> None:
        self.session_factory = session_factory
        self.catalog = catalog
        self.per_page = per_page
        self._slugs = {topic.slug for topic in catalog.topics}
        self._lock = threading.Lock()
        self._momenta: tuple[date, datetime, dict[str, Momentum]] | None = None
        self._totals: dict[int, tuple[datetime, int]] = {}  # topic id -> (counted at, papers)

    def find(self, slug: str) -> TopicDef:
        """The topic `slug` names (a slug, or a name in any case); raises `UnknownTopic` with the
        closest topics as suggestions."""
        try:
            return self.catalog.get(slug)
        except KeyError:
            return self.catalog.resolve(slug)

    def index(self, *, now: datetime, trending: bool = False) -> list[TopicSummary]:
        """Every topic in catalog order, or the rising ones first (as `/trending` ranks them)."""
        momenta = self.momenta(now)
        topics = [_summary(topic, momenta[topic.slug]) for topic in self.catalog.topics]
        if trending:
            topics.sort(key=lambda summary: trending_key(summary.momentum), reverse=True)
        return topics

    def topic(self, slug: str, *, page: int, now: datetime) -> TopicPage:
        """One page of a topic's papers, newest first; raises `UnknownTopic` or
        `PageOutOfRange`."""
        topic = self.find(slug)
        momentum = self.momenta(now)[topic.slug]
        with self.session_factory() as session:
            rows = repo.topic_rows(session)
            row = rows.get(topic.slug)
            total = self._total(session, row.id, now) if row else 0
            last = max(1, math.ceil(total / self.per_page))
            if page > last:
                raise PageOutOfRange(page, last)
            offset = (page - 1) * self.per_page
            found = (
                pages.latest_topic_papers(session, row.id, offset=offset, limit=self.per_page)
                if row
                else []
            )
            items = _paper_items(session, found, self._links(rows))
        summary = _summary(topic, momentum)
        return TopicPage(summary, weekly_chart(momentum.weekly), items, total, page, last)

    def momenta(self, now: datetime) -> dict[str, Momentum]:
        """Every topic's momentum as of `now`'s day, at most `KEPT_FOR` old."""
        with self._lock:
            held = self._momenta
            if held and held[0] == now.date() and now - held[1] < KEPT_FOR:
                return held[2]
            with self.session_factory() as session:
                momenta = topic_momenta(session, self.catalog.topics, as_of=now.date())
            self._momenta = (now.date(), now, momenta)
            return momenta

    def _total(self, session: Session, topic_id: int, now: datetime) -> int:
        """The topic's paper count, at most `KEPT_FOR` old."""
        held = self._totals.get(topic_id)
        if held and timedelta(0) <= now - held[0] < KEPT_FOR:
            return held[1]
        total = pages.topic_paper_total(session, topic_id)
        self._totals[topic_id] = (now, total)
        return total

    def _links(self, rows: dict[str, repo.TopicRow]) -> dict[int, TopicLink]:
        """Stored topic ids that are still in the catalog, as links."""
        return {
            row.id: TopicLink(row.slug, self.catalog.get(row.slug).name)
            for row in rows.values()
            if row.slug in self._slugs
        }


def trending_key(momentum: Momentum) -> tuple[bool, int, int]:
    """Rising topics (as `/trending` says) by their rise, then the others by paper count."""
    rising = momentum.count >= RISING_FLOOR and (momentum.change_pct or 0) > 0
    return rising, (momentum.change_pct or 0) if rising else 0, momentum.count


def authors_line(authors: Sequence[str], shown: int = AUTHORS_SHOWN) -> str:
    """ "A. One, B. Two, C. Three +5", as the seed pages write it."""
    names = [name for name in (" ".join(author.split()) for author in authors) if name]
    line = ", ".join(names[:shown])
    return f"{line} +{len(names) - shown}" if len(names) > shown else line


def suggestions(error: UnknownTopic) -> list[TopicLink]:
    return [TopicLink(topic.slug, topic.name) for topic in error.suggestions]


def _summary(topic: TopicDef, momentum: Momentum) -> TopicSummary:
    return TopicSummary(
        topic.slug, topic.name, topic.description, momentum, sparkline_chart(momentum.weekly)
    )


def _paper_items(
    session: Session, papers: Sequence[Paper], links: dict[int, TopicLink]
) -> tuple[PaperItem, ...]:
    topic_ids = pages.topics_of_papers(session, [paper.id for paper in papers])
    return tuple(_paper_item(paper, topic_ids[paper.id], links) for paper in papers)


def _paper_item(paper: Paper, topic_ids: Sequence[int], links: dict[int, TopicLink]) -> PaperItem:
    topics = sorted((links[i] for i in topic_ids if i in links), key=lambda link: link.name)
    return PaperItem(
        arxiv_id=paper.arxiv_id,
        title=clean_text(paper.title, TITLE_LIMIT) or paper.arxiv_id,
        url=link_url(paper.abs_url, paper.arxiv_id),
        published=paper.published,
        updated=paper.updated or paper.published,
        day=long_date(paper.published_on),
        category=paper.primary_category,
        authors=tuple(paper.authors),
        authors_line=authors_line(paper.authors),
        abstract=" ".join(paper.abstract.split())[:ABSTRACT_LIMIT],
        topics=tuple(topics),
    )
