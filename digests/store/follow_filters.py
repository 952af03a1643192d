"""Follow filters (searches, authors, categories) and the full-text searches behind them.

A filter is stored as a `topic` row of its own (slug `query:…`, `author:…`, `category:…`) plus
its `follow_filter` row; its papers are tags with source "follow". Searches run on each
backend's own index: SQLite's FTS5 table `paper_fts`, PostgreSQL's GIN index on
`to_tsvector('simple', search_text)` (migration 0003).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import date, datetime

from sqlalchemy import delete, func, insert, select, text
from sqlmodel import Session

from digests.follows.authors import author_name
from digests.follows.filters import FollowFilter, query_tree
from digests.follows.query import Node, to_fts5, to_tsquery
from digests.store.models import Follow, Paper, PaperTopic, Topic
from digests.store.models import FollowFilter as FilterRow

SOURCE = "follow"  # the tag source of filter matches; re-tagging leaves it alone
# Names migration 0003 creates beside the models, for schema comparisons to pass over.
FULL_TEXT_OBJECTS = ("paper_fts", "ix_paper_search")


def save(session: Session, follow: FollowFilter, *, now: datetime) -> tuple[int, bool]:
    """The filter's topic id, and whether it was new (its papers then need tagging)."""
    topic_id = session.execute(select(Topic.id).where(Topic.slug == follow.slug)).scalar()
    if topic_id is not None:
        return topic_id, False
    topic = Topic(slug=follow.slug, name=follow.name[:256], description=follow.topic().description)
    session.add(topic)
    session.flush()
    session.add(
        FilterRow(
            topic_id=topic.id,
            kind=follow.kind,
            definition=follow.definition,
            shown=follow.shown,
            created_at=now,
        )
    )
    session.flush()
    return topic.id, True


def all_filters(session: Session) -> list[tuple[int, FollowFilter]]:
    rows = session.execute(
        select(FilterRow.topic_id, FilterRow.kind, FilterRow.definition, FilterRow.shown)
    )
    return [(row.topic_id, FollowFilter(row.kind, row.definition, row.shown)) for row in rows]


def by_slug(session: Session, slugs: Iterable[str]) -> dict[str, FollowFilter]:
    """The filters among `slugs`."""
    wanted = [slug for slug in slugs if ":" in slug]
    if not wanted:
        return {}
    rows = session.execute(
        select(Topic.slug, FilterRow.kind, FilterRow.definition, FilterRow.shown)
        .join(FilterRow, FilterRow.topic_id == Topic.id)
        .where(Topic.slug.in_(wanted))
    )
    return {row.slug: FollowFilter(row.kind, row.definition, row.shown) for row in rows}


def forget_if_unfollowed(session: Session, topic_id: int) -> None:
    """Drop a filter nobody follows any more, so that ingest stops matching it."""
    followed = session.execute(select(Follow.topic_id).where(Follow.topic_id == topic_id).limit(1))
    if followed.first() is None:
        session.execute(delete(PaperTopic).where(PaperTopic.topic_id == topic_id))
        session.execute(delete(FilterRow).where(FilterRow.topic_id == topic_id))
        session.execute(delete(Topic).where(Topic.id == topic_id))


def follow_count(session: Session, channel_id: int) -> int:
    statement = select(func.count()).select_from(Follow).where(Follow.channel_id == channel_id)
    return session.execute(statement).scalar_one()


def matching_papers(
    session: Session, follow: FollowFilter, *, start: date, end: date
) -> list[tuple[int, date, datetime]]:
    """(paper id, first-version day, ingested at) of the stored papers first published
    start..end that `follow` matches, found through the backend's index."""
    columns = select(Paper.id, Paper.published_on, Paper.ingested_at).where(
        Paper.published_on >= start, Paper.published_on <= end
    )
    dialect = session.get_bind().dialect.name
    if follow.kind == "query":
        statement = columns.where(_text_match(query_tree(follow.definition), dialect))
    elif follow.kind == "category":
        statement = columns.where(_category_match(follow.definition, dialect))
    else:
        return _author_papers(session, columns, follow.definition)
    return [tuple(row) for row in session.execute(statement)]


def _text_match(tree: Node, dialect: str):
    if dialect == "sqlite":
        condition = "paper.id IN (SELECT rowid FROM paper_fts WHERE paper_fts MATCH :match)"
        return text(condition).bindparams(match=to_fts5(tree))
    condition = "to_tsvector('simple'::regconfig, paper.search_text) @@ CAST(:match AS tsquery)"
    return text(condition).bindparams(match=to_tsquery(tree))


def _category_match(category: str, dialect: str):
    if dialect == "sqlite":
        condition = "EXISTS (SELECT 1 FROM json_each(paper.categories) WHERE value = :category)"
        return text(condition).bindparams(category=category)
    condition = "CAST(paper.categories AS jsonb) @> CAST(:listed AS jsonb)"
    return text(condition).bindparams(listed=json.dumps([category]))


def _author_papers(session: Session, columns, definition: str) -> list[tuple[int, date, datetime]]:
    """Author lists are read in the window and compared here: names need more than SQL's
    LIKE (accents, initials, order). Most lists are ASCII and lack the surname: skipped fast."""
    wanted = author_name(definition)
    assert wanted is not None
    found = []
    for row in session.execute(columns.add_columns(Paper.authors)):
        listed = " ".join(row.authors)
        if listed.isascii() and "'" not in listed and wanted.surname not in listed.lower():
            continue
        names = filter(None, map(author_name, row.authors))
        if any(wanted.matches(name) for name in names):
            found.append((row.id, row.published_on, row.ingested_at))
    return found


def tag_matches(
    session: Session, topic_id: int, papers: Sequence[tuple[int, date, datetime]]
) -> int:
    """Tag a new filter's papers, each as tagged when it was ingested: a paper is as new in a
    digest as it would have been had the filter been followed all along."""
    rows = [
        {
            "paper_id": paper_id,
            "topic_id": topic_id,
            "source": SOURCE,
            "score": 1.0,
            "published_on": published_on,
            "tagged_at": ingested_at,
        }
        for paper_id, published_on, ingested_at in papers
    ]
    for start in range(0, len(rows), 1000):
        session.execute(insert(PaperTopic), rows[start : start + 1000])
    return len(rows)
