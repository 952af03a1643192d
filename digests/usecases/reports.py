"""Momentum and digests read from the store: the queries behind what users see."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import Engine
from sqlmodel import Session

from digests.follows.filters import FollowFilter
from digests.messages.digest import Digest, DigestPaper, TopicRef, compose_digest
from digests.messages.tags import Lineage
from digests.signals.momentum import HISTOGRAM_WEEKS, Momentum, compute_momentum, window_bounds
from digests.store import repo
from digests.store.models import Paper
from digests.topics.catalog import TopicDef
from digests.usecases.follows import store_filter

if TYPE_CHECKING:
    from digests.feedback.ranking import ChannelFeedback

# A paper announced late in a period may be tagged after the period's digest went out; it is
# still news the week after, but a paper first published long before is not.
NEWS_AGE_DAYS = 7


def topic_momenta(
    session: Session, topics: Sequence[TopicDef], *, as_of: date
) -> dict[str, Momentum]:
    """Momentum of each topic as of a day, from two grouped queries for all topics at once."""
    _, _, previous_start, _ = window_bounds(as_of)
    first_day = min(previous_start, as_of - timedelta(days=7 * HISTOGRAM_WEEKS - 1))
    counts = repo.daily_topic_counts(session, first_day, as_of)
    totals = repo.daily_totals(session, first_day, as_of)
    rows = repo.topic_rows(session)
    momenta = {}
    for topic in topics:
        row = rows.get(topic.slug)
        daily = counts.get(row.id, {}) if row else {}
        momenta[topic.slug] = compute_momentum(topic.name, daily, totals, as_of)
    return momenta


def followed_momentum(
    session: Session, followed: TopicDef | FollowFilter, *, as_of: date
) -> Momentum:
    """A topic's or a filter's momentum line and 12-week histogram as of a day; a filter's
    papers are tagged in `session`, which the caller does not commit."""
    (topic,) = as_topics(session, [followed], as_of=as_of)
    return topic_momenta(session, [topic], as_of=as_of)[topic.slug]


def read_momentum(engine: Engine, followed: TopicDef | FollowFilter, *, as_of: date) -> Momentum:
    """`followed_momentum` in a session of its own, never committed: a filter is looked up
    only (`digestbot momentum` reads without building the app)."""
    with Session(engine) as session:
        return followed_momentum(session, followed, as_of=as_of)


def as_topics(
    session: Session, followed: Sequence[TopicDef | FollowFilter], *, as_of: date
) -> list[TopicDef]:
    """Filters as topics, their papers tagged in `session` when nobody follows them yet."""
    topics = []
    for item in followed:
        if isinstance(item, FollowFilter):
            store_filter(session, item, now=day_end(as_of))
            item = item.topic()
        topics.append(item)
    return topics


def day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def day_end(day: date) -> datetime:
    return datetime.combine(day, time.max, tzinfo=UTC)


def digest_paper(paper: Paper, scores: dict[str, float]) -> DigestPaper:
    """A stored paper as a digest shows it, with its scores per topic slug."""
    return DigestPaper(
        arxiv_id=paper.arxiv_id,
        title=paper.title,
        url=paper.abs_url,
        authors=tuple(paper.authors),
        published=paper.published_on,
        primary_category=paper.primary_category,
        abstract=paper.abstract,
        scores=scores,
    )


def build_digest(
    session: Session,
    followed: Sequence[TopicDef],
    *,
    since: date,
    until: date,
    per_topic_cap: int = 5,
    tagged_after: datetime | None = None,
    feedback: ChannelFeedback | None = None,
    ancestors: Lineage | None = None,
) -> Digest:
    """The digest for `followed` topics over the days since..until (inclusive).

    `tagged_after` narrows it to papers tagged after that moment (instant deliveries);
    `feedback`, a channel's votes, hides its off-topic papers and ranks by its model;
    `ancestors` (`digests.messages.tags.lineage`) keeps a topic's ancestors out of "also in".
    """
    rows = repo.topic_rows(session)
    known = [topic for topic in followed if topic.slug in rows]
    slug_by_id = {rows[topic.slug].id: topic.slug for topic in known}
    found = repo.tagged_papers(
        session,
        list(slug_by_id),
        tagged_from=tagged_after or day_start(since),
        tagged_to=day_end(until),
        published_from=since - timedelta(days=NEWS_AGE_DAYS),
    )
    papers = [
        digest_paper(paper, {slug_by_id[topic_id]: score for topic_id, score in scores.items()})
        for paper, scores in found
    ]
    momenta = topic_momenta(session, followed, as_of=until)
    refs = [TopicRef(topic.slug, topic.name) for topic in followed]
    hidden, preference, note = frozenset(), None, ""
    if feedback is not None:
        hidden, note = feedback.hidden, feedback.note
        if feedback.model is not None:
            preference = {paper.arxiv_id: feedback.model.score(paper) for paper in papers}
    return compose_digest(
        refs,
        papers,
        momenta,
        since,
        until,
        per_topic_cap=per_topic_cap,
        hidden=hidden,
        preference=preference,
        note=note,
        ancestors=ancestors,
    )
