"""The read-only queries behind the web pages: a topic's papers, newest first, a page at a time.

Each topic's papers are read from `ix_paper_topic_topic_day` (topic, first-version day, paper)
alone, so a page of the newest papers and the topic's paper count cost an index range scan
whatever the size of the store.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import func, select
from sqlmodel import Session

from digests.store.models import Paper, PaperTopic


def topic_paper_total(session: Session, topic_id: int) -> int:
    """How many distinct papers carry the topic, from any source."""
    statement = select(func.count(func.distinct(PaperTopic.paper_id))).where(
        PaperTopic.topic_id == topic_id
    )
    return session.execute(statement).scalar_one()


def latest_topic_papers(session: Session, topic_id: int, *, offset: int, limit: int) -> list[Paper]:
    """The topic's papers by first-version day, newest first (ties: the later stored first)."""
    newest = (
        select(PaperTopic.paper_id)
        .where(PaperTopic.topic_id == topic_id)
        # A paper tagged by several sources has a row per source; grouping in index order
        # keeps one without a sort.
        .group_by(PaperTopic.published_on, PaperTopic.paper_id)
        .order_by(PaperTopic.published_on.desc(), PaperTopic.paper_id.desc())
        .offset(offset)
        .limit(limit)
    )
    return papers_in_order(session, list(session.execute(newest).scalars()))


def period_topic_papers(
    session: Session,
    topic_id: int,
    *,
    tagged_from: datetime,
    tagged_to: datetime,
    published_from: date,
    offset: int,
    limit: int,
) -> tuple[list[Paper], int]:
    """A page of the topic's papers a digest of the period counts (first tagged into the topic
    in tagged_from..tagged_to, first published on or after `published_from`, as
    `repo.tagged_papers` picks them), newest first, and how many there are in all."""
    in_period = (
        select(PaperTopic.paper_id, PaperTopic.published_on)
        .where(PaperTopic.topic_id == topic_id, PaperTopic.published_on >= published_from)
        .group_by(PaperTopic.published_on, PaperTopic.paper_id)
        .having(func.min(PaperTopic.tagged_at) >= tagged_from)
        .having(func.min(PaperTopic.tagged_at) <= tagged_to)
    )
    total = session.execute(select(func.count()).select_from(in_period.subquery())).scalar_one()
    newest = (
        in_period.order_by(PaperTopic.published_on.desc(), PaperTopic.paper_id.desc())
        .offset(offset)
        .limit(limit)
    )
    ids = [paper_id for paper_id, _ in session.execute(newest)]
    return papers_in_order(session, ids), total


def paper_tag_scores(session: Session, paper_ids: list[int]) -> dict[int, dict[int, float]]:
    """Per paper, each topic id it is tagged with and its best score over the tag's sources."""
    scores: dict[int, dict[int, float]] = {paper_id: {} for paper_id in paper_ids}
    if not paper_ids:
        return scores
    statement = (
        select(PaperTopic.paper_id, PaperTopic.topic_id, func.max(PaperTopic.score))
        .where(PaperTopic.paper_id.in_(paper_ids))
        .group_by(PaperTopic.paper_id, PaperTopic.topic_id)
    )
    for paper_id, topic_id, score in session.execute(statement):
        scores[paper_id][topic_id] = score
    return scores


def papers_in_order(session: Session, ids: list[int]) -> list[Paper]:
    """The papers of `ids`, in that order."""
    if not ids:
        return []
    rows = session.execute(select(Paper).where(Paper.id.in_(ids))).scalars()
    by_id = {paper.id: paper for paper in rows}
    return [by_id[paper_id] for paper_id in ids if paper_id in by_id]
