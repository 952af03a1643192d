"""A topic's papers ranked by relevance to some words, through the full-text index: FTS5's
`bm25` on SQLite, `ts_rank_cd` over the `simple` tsvector on PostgreSQL (both index the same
words, `digests.store.search_words`). Best first; ties go to the newer paper."""

from __future__ import annotations

from sqlalchemy import text
from sqlmodel import Session

from digests.follows.query import Node, to_fts5, to_tsquery
from digests.store.models import Paper
from digests.store.pages import papers_in_order
from digests.store.search_words import POSTGRES_VECTOR

_IN_TOPIC = "IN (SELECT paper_id FROM paper_topic WHERE topic_id = :topic)"
_SQLITE_MATCHES = f"FROM paper_fts WHERE paper_fts MATCH :match AND rowid {_IN_TOPIC}"
_POSTGRES_MATCHES = (
    f"FROM paper, CAST(:match AS tsquery) AS asked "
    f"WHERE {POSTGRES_VECTOR} @@ asked AND paper.id {_IN_TOPIC}"
)


def ranked_topic_papers(
    session: Session, topic_id: int, query: Node, *, offset: int, limit: int
) -> tuple[list[Paper], int]:
    """A page of the topic's papers that match `query`, most relevant first, and how many
    match in all."""
    if session.get_bind().dialect.name == "sqlite":
        match, matches = to_fts5(query), _SQLITE_MATCHES
        ranked = f"SELECT rowid {matches} ORDER BY bm25(paper_fts), rowid DESC"
    else:
        match, matches = to_tsquery(query), _POSTGRES_MATCHES
        rank = f"ts_rank_cd({POSTGRES_VECTOR}, asked)"
        ranked = f"SELECT paper.id {matches} ORDER BY {rank} DESC, paper.id DESC"
    values = {"match": match, "topic": topic_id}
    total = session.execute(text(f"SELECT count(*) {matches}"), values).scalar_one()
    page = text(f"{ranked} LIMIT :limit OFFSET :offset")
    ids = list(session.execute(page, values | {"limit": limit, "offset": offset}).scalars())
    return papers_in_order(session, ids), total
