"""The read-only queries behind the web pages: a topic's papers, newest first, a page at a time.

Each topic's papers are read from `ix_paper_topic_topic_day` (topic, first-version day, paper)
alone, so a page of the newest papers and the topic's paper count cost an index range scan
whatever the size of the store.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

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
    ids = list(session.execute(newest).scalars())
    if not ids:
        return []
    rows = session.execute(select(Paper).where(Paper.id.in_(ids))).scalars()
    by_id = {paper.id: paper for paper in rows}
    return [by_id[paper_id] for paper_id in ids if paper_id in by_id]


def topics_of_papers(session: Session, paper_ids: Sequence[int]) -> dict[int, list[int]]:
    """Each paper's topic ids (any source), in id order."""
    found: dict[int, set[int]] = defaultdict(set)
    if paper_ids:
        statement = select(PaperTopic.paper_id, PaperTopic.topic_id).where(
            PaperTopic.paper_id.in_(list(paper_ids))
        )
        for paper_id, topic_id in session.execute(statement):
            found[paper_id].add(topic_id)
    return {paper_id: sorted(found[paper_id]) for paper_id in paper_ids}
