"""Follow filters (searches, authors, categories) and the full-text searches behind them.

A filter is stored as a `topic` row of its own (slug `query:…`, `author:…`, `category:…`) plus
its `follow_filter` row; its papers are tags with source "follow". Searches run on each
backend's own index: SQLite's FTS5 table `paper_fts`, PostgreSQL's GIN index on the `simple`
tsvector of the paper's search words (migrations 0003 and 0007, `digests.store.search_words`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import date, datetime

from sqlalchemy import bindparam, delete, insert, literal, select, text
from sqlmodel import Session

from digests.follows.authors import author_name
from digests.follows.filters import FollowFilter, query_tree
from digests.follows.query import Node, to_fts5, to_tsquery
from digests.store.models import Follow, Paper, PaperTopic, Topic
from digests.store.models import FollowFilter as FilterRow
from digests.store.search_words import POSTGRES_VECTOR

SOURCE = "follow"  # the tag source of filter matches; re-tagging leaves it alone
_TAGS = PaperTopic.__table__
_TAG_COLUMNS = ["paper_id", "topic_id", "source", "score", "published_on", "tagged_at"]
_IDS_PER_LOOKUP = 500  # ids per IN (...): under SQLite's variable limit
_PAIRS_PER_INSERT = 50_000  # a day's matches of 10,000 follows are about 160,000
_SEARCH_WORK_MEM = "64MB"  # a third of 1,000,000 papers needs more than the default 4MB
# Names migrations 0003 and 0007 create beside the models, for schema comparisons to pass over.
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


def matching_papers(session: Session, follow: FollowFilter, *, start: date, end: date) -> list[int]:
    """Ids of the stored papers first published start..end that `follow` matches, found
    through the backend's index."""
    statement = select(Paper.id).where(*_matching(session, follow, start=start, end=end))
    return list(session.execute(statement).scalars())


def tag_matching_papers(
    session: Session, topic_id: int, follow: FollowFilter, *, start: date, end: date
) -> int:
    """Tag a new filter's papers first published start..end in one INSERT … SELECT, each as
    tagged when it was ingested: a paper is as new in a digest as it would have been had the
    filter been followed all along. Returns tags added."""
    found = select(
        Paper.id,
        literal(topic_id),
        literal(SOURCE),
        literal(1.0),
        Paper.published_on,
        Paper.ingested_at,
    ).where(*_matching(session, follow, start=start, end=end))
    if session.get_bind().dialect.name == "postgresql":
        # A broad search's bitmap of papers (a third of them for "language") must stay exact:
        # a lossy one makes PostgreSQL recompute the words of every paper on its pages (10.7 s
        # instead of 0.6 s at 1,000,000 papers). For this transaction only.
        session.execute(text(f"SET LOCAL work_mem = '{_SEARCH_WORK_MEM}'"))
    return session.execute(insert(PaperTopic).from_select(_TAG_COLUMNS, found)).rowcount


def _matching(session: Session, follow: FollowFilter, *, start: date, end: date) -> list:
    """The conditions on `paper` that pick what `follow` matches among papers of start..end."""
    window = [Paper.published_on >= start, Paper.published_on <= end]
    dialect = session.get_bind().dialect.name
    if follow.kind == "query":
        return [*window, _text_match(query_tree(follow.definition), dialect)]
    if follow.kind == "category":
        return [*window, _category_match(follow.definition, dialect)]
    return [Paper.id.in_(_author_papers(session, window, follow.definition))]


def _text_match(tree: Node, dialect: str):
    if dialect == "sqlite":
        condition = "paper.id IN (SELECT rowid FROM paper_fts WHERE paper_fts MATCH :match)"
        return text(condition).bindparams(match=to_fts5(tree))
    condition = f"{POSTGRES_VECTOR} @@ CAST(:match AS tsquery)"
    return text(condition).bindparams(match=to_tsquery(tree))


def _category_match(category: str, dialect: str):
    if dialect == "sqlite":
        condition = "EXISTS (SELECT 1 FROM json_each(paper.categories) WHERE value = :category)"
        return text(condition).bindparams(category=category)
    condition = "CAST(paper.categories AS jsonb) @> CAST(:listed AS jsonb)"
    return text(condition).bindparams(listed=json.dumps([category]))


def _author_papers(session: Session, window: list, definition: str) -> list[int]:
    """Author lists are read in the window and compared here: names need more than SQL's
    LIKE (accents, initials, order). Most lists are ASCII and lack the surname: skipped fast."""
    wanted = author_name(definition)
    assert wanted is not None
    found = []
    for row in session.execute(select(Paper.id, Paper.authors).where(*window)):
        listed = " ".join(row.authors)
        if listed.isascii() and "'" not in listed and wanted.surname not in listed.lower():
            continue
        names = filter(None, map(author_name, row.authors))
        if any(wanted.matches(name) for name in names):
            found.append(row.id)
    return found


def write_matches(
    session: Session, matches: Sequence[tuple[int, int]], papers: Sequence[int], *, now: datetime
) -> int:
    """Make the filter tags of `papers` exactly `matches` ((paper id, topic id) pairs): tags
    matching no more are deleted, tags held keep their first `tagged_at`, and the rest are
    inserted tagged `now`, in one statement per _PAIRS_PER_INSERT. Returns tags added."""
    held: set[tuple[int, int]] = set()
    for start in range(0, len(papers), _IDS_PER_LOOKUP):
        chunk = papers[start : start + _IDS_PER_LOOKUP]
        rows = session.execute(
            select(PaperTopic.paper_id, PaperTopic.topic_id).where(
                PaperTopic.source == SOURCE, PaperTopic.paper_id.in_(chunk)
            )
        )
        held.update(tuple(row) for row in rows)
    stale = held.difference(matches)
    if stale:
        session.execute(
            _TAGS.delete().where(
                _TAGS.c.paper_id == bindparam("paper"),
                _TAGS.c.topic_id == bindparam("topic"),
                _TAGS.c.source == SOURCE,
            ),
            [{"paper": paper, "topic": topic} for paper, topic in stale],
        )
    added = [pair for pair in matches if pair not in held]
    statement = _insert_pairs(session.get_bind().dialect.name)
    for start in range(0, len(added), _PAIRS_PER_INSERT):
        pairs = json.dumps(added[start : start + _PAIRS_PER_INSERT])
        session.execute(statement, {"pairs": pairs, "source": SOURCE, "now": now})
    return len(added)


def _insert_pairs(dialect: str):
    """One INSERT of many tags, the (paper id, topic id) pairs passed as one JSON array:
    the database reads it, so no row passes through Python's per-row parameter handling."""
    elements = (
        "json_each(:pairs)"
        if dialect == "sqlite"
        else "jsonb_array_elements(CAST(:pairs AS jsonb))"
    )
    statement = text(
        "INSERT INTO paper_topic (paper_id, topic_id, source, score, published_on, tagged_at) "
        "SELECT paper.id, CAST(pair.value ->> 1 AS INTEGER), :source, 1.0, paper.published_on, "
        f":now FROM {elements} AS pair JOIN paper ON paper.id = CAST(pair.value ->> 0 AS INTEGER)"
    )
    return statement.bindparams(bindparam("now", type_=_TAGS.c.tagged_at.type))
