"""Every query digestbot makes, as keyword-friendly functions taking a `Session`.

Bulk paths (paper upserts, tag writes, momentum counts) use SQLAlchemy Core statements so that
50,000 papers or 1,000,000 stored rows stay fast on both SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime

from sqlalchemy import delete, func, select, update
from sqlmodel import Session

from digests.papers.records import PaperRecord
from digests.store.bulk import chunks, insert_returning, insert_rows
from digests.store.counts import TopicRow as TopicRow
from digests.store.counts import daily_topic_counts as daily_topic_counts
from digests.store.counts import daily_totals as daily_totals
from digests.store.counts import topic_rows as topic_rows
from digests.store.models import IngestState, Paper, PaperTopic, Topic
from digests.store.search_words import stored_search_text

# Momentum's reads live in `counts` (Core only, for light commands); imported above so that
# callers find every read here.
_CHUNK = 500  # rows per IN (...) lookup; keeps statements under SQLite's variable limit
# Metadata a newer version may lack (listings carry no affiliations or comments, and only
# sometimes a DOI): without a value of its own, a newer version keeps the stored one.
_KEPT_WHEN_MISSING = ("affiliations", "comment", "doi", "journal_ref")


@dataclass
class UpsertResult:
    """Paper ids by what happened to them, with the records as stored (first-version dates)."""

    new: dict[int, PaperRecord] = field(default_factory=dict)
    updated: dict[int, PaperRecord] = field(default_factory=dict)
    unchanged: int = 0
    # Records passed over for a newer version of the same paper among the same records.
    superseded: int = 0


def _paper_values(record: PaperRecord, now: datetime) -> dict:
    return {
        "arxiv_id": record.arxiv_id,
        "version": record.version,
        "title": record.title,
        "abstract": record.abstract,
        "authors": list(record.authors),
        "affiliations": list(record.affiliations),
        "categories": list(record.categories),
        "primary_category": record.primary_category,
        "published": record.published,
        "published_on": record.first_version_date,
        "updated": record.updated,
        "abs_url": record.abs_url,
        "pdf_url": record.pdf_url,
        "comment": record.comment,
        "doi": record.doi,
        "journal_ref": record.journal_ref,
        "ingested_at": now,
        "search_text": stored_search_text(record.title, record.abstract),
    }


def _newest_per_id(records: Iterable[PaperRecord]) -> dict[str, PaperRecord]:
    newest: dict[str, PaperRecord] = {}
    for record in records:
        held = newest.get(record.arxiv_id)
        if held is None or _is_newer(record, held.version, held.updated):
            newest[record.arxiv_id] = record
    return newest


def _is_newer(record: PaperRecord, version: int, updated: datetime | None) -> bool:
    if record.version != version:
        return record.version > version
    return record.updated is not None and (updated is None or record.updated > updated)


def upsert_papers(
    session: Session, records: Iterable[PaperRecord], *, now: datetime
) -> UpsertResult:
    """Insert new papers and refresh stored ones on the base id; never duplicate a paper.

    A newer version (or a later `updated` of the same version) rewrites the row but keeps the
    first-version date already stored, and the DOI, journal reference, comment and
    affiliations where it has none of its own.
    """
    records = list(records)
    incoming = _newest_per_id(records)
    result = UpsertResult(superseded=len(records) - len(incoming))
    stored: dict[str, tuple[int, int, datetime | None, datetime]] = {}
    for ids in chunks(incoming, _CHUNK):
        rows = session.execute(
            select(Paper.id, Paper.arxiv_id, Paper.version, Paper.updated, Paper.published).where(
                Paper.arxiv_id.in_(ids)
            )
        )
        stored.update(
            {row.arxiv_id: (row.id, row.version, row.updated, row.published) for row in rows}
        )

    to_insert: list[PaperRecord] = []
    for arxiv_id, record in incoming.items():
        held = stored.get(arxiv_id)
        if held is None:
            to_insert.append(record)
            continue
        paper_id, version, updated, published = held
        if not _is_newer(record, version, updated):
            result.unchanged += 1
            continue
        record = replace(record, published=min(published, record.published))
        values = _paper_values(record, now)
        for name in _KEPT_WHEN_MISSING:
            if not values[name]:
                del values[name]
        session.execute(update(Paper).where(Paper.id == paper_id).values(**values))
        result.updated[paper_id] = record

    # Through the driver (`bulk.insert_returning`): SQLAlchemy's handling of each row's
    # parameters cost more than storing the row.
    for batch in chunks(to_insert, _CHUNK):
        values = [_paper_values(record, now) for record in batch]
        columns = list(values[0])
        rows = insert_returning(
            session,
            Paper.__table__,
            columns,
            [tuple(row.values()) for row in values],
            returning=("id", "arxiv_id"),
        )
        by_id = {record.arxiv_id: record for record in batch}
        result.new.update({paper_id: by_id[arxiv_id] for paper_id, arxiv_id in rows})
    return result


def held_ids(session: Session, arxiv_ids: Sequence[str]) -> set[str]:
    """Which of `arxiv_ids` (base ids) are stored."""
    held: set[str] = set()
    for ids in chunks(dict.fromkeys(arxiv_ids), _CHUNK):
        held.update(
            session.execute(select(Paper.arxiv_id).where(Paper.arxiv_id.in_(ids))).scalars()
        )
    return held


def sync_topics(session: Session, topics: Iterable) -> list[str]:
    """Store the catalog's topics; returns the slugs that are new or whose rules changed.

    `topics` are `digests.topics.catalog.TopicDef`s. Topics that left the catalog are kept, since
    follows may still point at them.
    """
    existing = {row.slug: row for row in session.exec(select(Topic)).scalars()}
    changed: list[str] = []
    for topic in topics:
        rules_hash = topic.rules_hash()
        row = existing.get(topic.slug)
        if row is None:
            row = Topic(slug=topic.slug)
            session.add(row)
        if row.rules_hash != rules_hash:
            changed.append(topic.slug)
        row.name, row.description = topic.name, topic.description
        row.parents, row.rules_hash = list(topic.parents), rules_hash
    session.flush()
    return changed


MACHINE_SOURCES = ("model", "rules", "rollup")  # the tagger's own; "upstream" is kept apart


def write_tags(
    session: Session,
    tags: Mapping[int, Sequence[tuple[int, float, str]]],
    published_on: Mapping[int, date],
    *,
    now: datetime,
    replace_sources: Sequence[str] = MACHINE_SOURCES,
) -> int:
    """Set each paper's tags from `replace_sources` to exactly `tags[paper_id]`.

    `tags[paper_id]` holds (topic_id, score, source). A tag the paper already had, from any
    source, keeps its first `tagged_at`, so re-tagging never makes an old paper look new.
    Returns tags added.
    """
    paper_ids = list(tags)
    held: dict[tuple[int, int, str], float] = {}
    first_tagged: dict[tuple[int, int], datetime] = {}
    for ids in chunks(paper_ids, _CHUNK):
        rows = session.execute(
            select(
                PaperTopic.paper_id,
                PaperTopic.topic_id,
                PaperTopic.source,
                PaperTopic.score,
                PaperTopic.tagged_at,
            ).where(PaperTopic.paper_id.in_(ids))
        )
        for r in rows:
            held[(r.paper_id, r.topic_id, r.source)] = r.score
            pair = (r.paper_id, r.topic_id)
            first_tagged[pair] = min(r.tagged_at, first_tagged.get(pair, r.tagged_at))

    wanted = {
        (paper_id, topic_id, source): score
        for paper_id, paper_tags in tags.items()
        for topic_id, score, source in paper_tags
    }
    stale = [key for key in held if key[2] in replace_sources and key not in wanted]
    for key in stale:
        session.execute(
            delete(PaperTopic).where(
                PaperTopic.paper_id == key[0],
                PaperTopic.topic_id == key[1],
                PaperTopic.source == key[2],
            )
        )
    rescored = [(key, score) for key, score in wanted.items() if key in held and held[key] != score]
    for (paper_id, topic_id, source), score in rescored:
        session.execute(
            update(PaperTopic)
            .where(PaperTopic.paper_id == paper_id, PaperTopic.topic_id == topic_id)
            .where(PaperTopic.source == source)
            .values(score=score)
        )
    added = [
        (*key, score, published_on[key[0]], first_tagged.get(key[:2], now))
        for key, score in wanted.items()
        if key not in held
    ]
    columns = ("paper_id", "topic_id", "source", "score", "published_on", "tagged_at")
    insert_rows(session, PaperTopic.__table__, columns, added)
    return len(added)


def machine_topics(session: Session, paper_ids: Sequence[int]) -> dict[int, set[int]]:
    """Per paper, the topics the tagger gave it (any source but "upstream")."""
    return paper_topics(session, paper_ids, sources=MACHINE_SOURCES)


def paper_topics(
    session: Session, paper_ids: Sequence[int], *, sources: Sequence[str] | None = None
) -> dict[int, set[int]]:
    """Per paper, its topic ids: from tags of any source, or of `sources` only."""
    topics: dict[int, set[int]] = {paper_id: set() for paper_id in paper_ids}
    for ids in chunks(paper_ids, _CHUNK):
        statement = select(PaperTopic.paper_id, PaperTopic.topic_id).where(
            PaperTopic.paper_id.in_(ids)
        )
        if sources is not None:
            statement = statement.where(PaperTopic.source.in_(sources))
        for paper_id, topic_id in session.execute(statement):
            topics[paper_id].add(topic_id)
    return topics


def papers_for_tagging(session: Session, *, after_id: int, limit: int) -> list:
    """Up to `limit` stored papers with ids above `after_id`, in id order, with what the
    tagger reads."""
    columns = (Paper.id, Paper.title, Paper.abstract, Paper.categories, Paper.published_on)
    statement = select(*columns).where(Paper.id > after_id).order_by(Paper.id).limit(limit)
    return session.execute(statement).all()


def max_paper_id(session: Session) -> int:
    return session.execute(select(func.max(Paper.id))).scalar_one() or 0


def papers_up_to(session: Session, paper_id: int) -> int:
    """How many stored papers have ids up to `paper_id`."""
    statement = select(func.count()).select_from(Paper).where(Paper.id <= paper_id)
    return session.execute(statement).scalar_one()


def tagged_paper_count(session: Session) -> int:
    """How many stored papers have at least one tag."""
    return session.execute(select(func.count(func.distinct(PaperTopic.paper_id)))).scalar_one()


def tagged_topic_count(session: Session) -> int:
    """How many topics have at least one paper."""
    return session.execute(select(func.count(func.distinct(PaperTopic.topic_id)))).scalar_one()


def last_ingest_success(session: Session) -> datetime | None:
    """When an ingest (of any listing or backfill) last succeeded."""
    return session.execute(select(func.max(IngestState.last_success_at))).scalar()


def tagged_papers(
    session: Session,
    topic_ids: Sequence[int],
    *,
    tagged_from: datetime,
    tagged_to: datetime,
    published_from: date,
) -> list[tuple[Paper, dict[int, float]]]:
    """Papers first tagged into any of `topic_ids` in [tagged_from, tagged_to], with their
    best score per topic (over all sources), skipping papers first published before
    `published_from` (old papers swept in by a backfill or a catalog change are not news)."""
    statement = (
        select(PaperTopic.paper_id, PaperTopic.topic_id, func.max(PaperTopic.score))
        .where(PaperTopic.topic_id.in_(topic_ids))
        .where(PaperTopic.published_on >= published_from)
        .group_by(PaperTopic.paper_id, PaperTopic.topic_id)
        .having(func.min(PaperTopic.tagged_at) >= tagged_from)
        .having(func.min(PaperTopic.tagged_at) <= tagged_to)
    )
    scores: dict[int, dict[int, float]] = defaultdict(dict)
    for paper_id, topic_id, score in session.execute(statement):
        scores[paper_id][topic_id] = score
    papers: list[tuple[Paper, dict[int, float]]] = []
    for ids in chunks(scores, _CHUNK):
        for paper in session.exec(select(Paper).where(Paper.id.in_(ids))).scalars():
            papers.append((paper, scores[paper.id]))
    return papers


def load_state(session: Session, key: str) -> dict:
    row = session.get(IngestState, key)
    return dict(row.cursor) if row else {}


def save_state(
    session: Session, key: str, cursor: dict, *, now: datetime, success: bool = False
) -> None:
    row = session.get(IngestState, key)
    if row is None:
        row = IngestState(key=key, updated_at=now)
        session.add(row)
    row.cursor, row.updated_at = dict(cursor), now
    if success:
        row.last_success_at = now
    session.flush()


def paper_count(session: Session) -> int:
    return session.execute(select(func.count()).select_from(Paper)).scalar_one()
