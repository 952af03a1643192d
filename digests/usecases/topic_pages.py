"""What the web pages show, read from the store: the topic index, one topic's page, and the
page of a follow filter (a search, an author, a category), which reads like a topic's.

Momentum is computed for every topic at once (`topic_momenta`, the numbers and wording the
chats get) and kept for `KEPT_FOR`, as is each topic's paper count: both change only when
papers are ingested or re-tagged, and recomputing them on every request would cost a scan of
twelve weeks of tags, or of all the topic's tags. A topic's papers are read on each request, a
page at a time, from an index; with a period, the papers a digest of that period counted.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import replace
from datetime import date, datetime, timedelta

from sqlmodel import Session

from digests.ask.questions import best_sentence, question_words
from digests.links.pages import Period
from digests.messages.digest import TopicRef
from digests.messages.layout import clean_text, link_url, long_date
from digests.messages.tags import Lineage, lineage, shown_tags
from digests.pages.charts import sparkline_chart, weekly_chart
from digests.pages.page_data import (
    PageOutOfRange,
    PaperItem,
    TopicPage,
    TopicSummary,
    UnknownFollow,
    authors_line,
    typed_follow,
)
from digests.signals.momentum import Momentum
from digests.signals.trending import trending_key
from digests.store import follow_filters, pages, repo
from digests.store.models import Paper
from digests.store.unit_of_work import SessionFactory
from digests.text_hygiene import without_controls
from digests.topics.catalog import Catalog, TopicDef
from digests.usecases.ask import matching_papers
from digests.usecases.reports import NEWS_AGE_DAYS, day_end, day_start, topic_momenta

PAPERS_PER_PAGE = 20
KEPT_FOR = timedelta(minutes=5)
TITLE_LIMIT = 500
ABSTRACT_LIMIT = 5000


class TopicPages:
    """The pages' data; safe to call from several threads at once."""

    def __init__(
        self, session_factory: SessionFactory, catalog: Catalog, *, per_page: int = PAPERS_PER_PAGE
    ) -> None:
        self.session_factory = session_factory
        self.catalog = catalog
        self.per_page = per_page
        self._slugs = {topic.slug for topic in catalog.topics}
        self._lineage = lineage(catalog)
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
            topics.sort(key=lambda summary: trending_key(summary.momentum))
        return topics

    def topic(
        self, slug: str, *, page: int, now: datetime, period: Period | None = None
    ) -> TopicPage:
        """One page of a topic's papers, newest first (of `period`, with one); raises
        `UnknownTopic` or `PageOutOfRange`."""
        topic = self.find(slug)
        return self._page(topic, self.momenta(now)[topic.slug], page, now, period)

    def ask(self, slug: str, *, question: str, page: int, now: datetime) -> TopicPage:
        """One page of the topic's papers that match `question`, most relevant first, each with
        its best-matching sentence; raises `AskError`, `UnknownTopic` or `PageOutOfRange`."""
        words = question_words(question)
        topic = self.find(slug)
        momentum = self.momenta(now)[topic.slug]
        with self.session_factory() as session:
            offset = (page - 1) * self.per_page
            found, total = matching_papers(
                session, topic, words, offset=offset, limit=self.per_page
            )
            last = max(1, math.ceil(total / self.per_page))
            if page > last:
                raise PageOutOfRange(page, last)
            items = _paper_items(
                session, found, self._links(repo.topic_rows(session)), self._lineage, topic.slug
            )
        items = tuple(replace(item, match=best_sentence(item.abstract, words)) for item in items)
        chart = weekly_chart(momentum.weekly)
        summary = _summary(topic, momentum)
        return TopicPage(summary, chart, items, total, page, last, question=question)

    def follow(
        self, slug: str, *, page: int, now: datetime, period: Period | None = None
    ) -> TopicPage:
        """A follow filter's page, read as a topic's; raises `UnknownFollow` or
        `PageOutOfRange`."""
        with self.session_factory() as session:
            follow = follow_filters.by_slug(session, [slug]).get(slug)
        if follow is None:
            raise UnknownFollow(slug)
        topic = follow.topic()
        momentum = self.momenta(now, including=topic.slug).get(topic.slug)
        if momentum is None:  # unfollowed by its last chat a moment ago
            raise UnknownFollow(slug)
        found = self._page(topic, momentum, page, now, period)
        return replace(found, typed=typed_follow(follow))

    def _page(
        self, topic: TopicDef, momentum: Momentum, page: int, now: datetime, period: Period | None
    ) -> TopicPage:
        offset = (page - 1) * self.per_page
        with self.session_factory() as session:
            rows = repo.topic_rows(session)
            row = rows.get(topic.slug)
            found, total = [], 0
            if row and period:
                found, total = pages.period_topic_papers(
                    session,
                    row.id,
                    tagged_from=day_start(period.start),
                    tagged_to=day_end(period.end),
                    published_from=period.start - timedelta(days=NEWS_AGE_DAYS),
                    offset=offset,
                    limit=self.per_page,
                )
            elif row:
                total = self._total(session, row.id, now)
                if offset < total:
                    found = pages.latest_topic_papers(
                        session, row.id, offset=offset, limit=self.per_page
                    )
            last = max(1, math.ceil(total / self.per_page))
            if page > last:
                raise PageOutOfRange(page, last)
            home = topic.slug if topic.slug in self._slugs else None
            items = _paper_items(session, found, self._links(rows), self._lineage, home)
        chart = weekly_chart(momentum.weekly)
        return TopicPage(_summary(topic, momentum), chart, items, total, page, last, period)

    def momenta(self, now: datetime, *, including: str = "") -> dict[str, Momentum]:
        """Every topic's and stored filter's momentum as of `now`'s day, at most `KEPT_FOR`
        old; computed afresh when the filter `including` names is newer than that."""
        with self._lock:
            held = self._momenta
            fresh = held and held[0] == now.date() and now - held[1] < KEPT_FOR
            if fresh and (not including or including in held[2]):
                return held[2]
            with self.session_factory() as session:
                filters = [follow.topic() for _, follow in follow_filters.all_filters(session)]
                topics = [*self.catalog.topics, *filters]
                momenta = topic_momenta(session, topics, as_of=now.date())
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

    def _links(self, rows: dict[str, repo.TopicRow]) -> dict[int, TopicRef]:
        """Stored topic ids that are still in the catalog, as links."""
        return {
            row.id: TopicRef(row.slug, self.catalog.get(row.slug).name)
            for row in rows.values()
            if row.slug in self._slugs
        }


def _summary(topic: TopicDef, momentum: Momentum) -> TopicSummary:
    return TopicSummary(
        topic.slug, topic.name, topic.description, momentum, sparkline_chart(momentum.weekly)
    )


def _paper_items(
    session: Session,
    papers: Sequence[Paper],
    links: dict[int, TopicRef],
    ancestors: Lineage,
    home: str | None,
) -> tuple[PaperItem, ...]:
    """The papers as a page shows them, each with its specific tags (`shown_tags`)."""
    scores = pages.paper_tag_scores(session, [paper.id for paper in papers])
    by_slug = {link.slug: link for link in links.values()}
    items = []
    for paper in papers:
        tagged = {links[i].slug: score for i, score in scores[paper.id].items() if i in links}
        shown = shown_tags(tagged, ancestors, home=home)
        items.append(_paper_item(paper, tuple(by_slug[slug] for slug in shown if slug in by_slug)))
    return tuple(items)


def _paper_item(paper: Paper, topics: tuple[TopicRef, ...]) -> PaperItem:
    return PaperItem(
        arxiv_id=paper.arxiv_id,
        title=clean_text(paper.title, TITLE_LIMIT) or paper.arxiv_id,
        url=link_url(paper.abs_url, paper.arxiv_id),
        published=paper.published,
        updated=paper.updated or paper.published,
        day=long_date(paper.published_on),
        category=paper.primary_category,
        authors=tuple(without_controls(name) for name in paper.authors),
        authors_line=authors_line([without_controls(name) for name in paper.authors]),
        abstract=" ".join(without_controls(paper.abstract).split())[:ABSTRACT_LIMIT],
        topics=topics,
    )
