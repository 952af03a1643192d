"""A topic's papers ranked by relevance to some words, through the full-text index: FTS5's
`bm25` on SQLite, `ts_rank_cd` over the `simple` tsvector on PostgreSQL (both index the same
words, `digests.store.search_words`). Best first; ties go to the newer paper.

On SQLite the index is searched once, alone, and its hits then kept to the topic's papers: a
condition on `rowid` beside MATCH makes FTS5 search again for every paper of the topic (42 s
instead of 0.06 s for a broad question in a topic of 15,000 papers, bench/bench_ask.py).

PostgreSQL keeps no tsvector (migration 0007), so ranking computes one for every matching paper
of the topic. It is made from the title and abstract as they are (`_RANKED`): the index's words
(`POSTGRES_VECTOR`) add a `regexp_replace` that doubles the cost and changes no ranking that
matters (the same five papers in bench/bench_ask.py); which papers match is still the index's.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlmodel import Session

from digests.follows.query import Node, to_fts5, to_tsquery
from digests.store.models import Paper
from digests.store.pages import papers_in_order
from digests.store.search_words import POSTGRES_VECTOR

_IN_TOPIC = "IN (SELECT paper_id FROM paper_topic WHERE topic_id = :topic)"
_SQLITE_HITS = (
    "WITH hits AS MATERIALIZED (SELECT rowid AS id, bm25(paper_fts) AS rank "
    "FROM paper_fts WHERE paper_fts MATCH :match) "
    f"SELECT id, count(*) OVER () FROM hits WHERE id {_IN_TOPIC} ORDER BY rank, id DESC"
)
_RANKED = "to_tsvector('simple'::regconfig, title || ' ' || abstract)"
_POSTGRES_HITS = (
    f"SELECT paper.id, count(*) OVER () FROM paper, CAST(:match AS tsquery) AS asked "
    f"WHERE {POSTGRES_VECTOR} @@ asked AND paper.id {_IN_TOPIC} "
    f"ORDER BY ts_rank_cd({_RANKED}, asked) DESC, paper.id DESC"
)


def ranked_topic_papers(
    session: Session, topic_id: int, query: Node, *, offset: int, limit: int
) -> tuple[list[Paper], int]:
    """A page of the topic's papers that match `query`, most relevant first, and how many
    match in all."""
    if session.get_bind().dialect.name == "sqlite":
        hits, match = _SQLITE_HITS, to_fts5(query)
    else:
        hits, match = _POSTGRES_HITS, to_tsquery(query)
    values = {"match": match, "topic": topic_id, "limit": limit, "offset": offset}
    rows = session.execute(text(f"{hits} LIMIT :limit OFFSET :offset"), values).all()
    if rows:
        total = rows[0][1]
    else:  # past the last page, or nothing: count without a page
        total = session.execute(text(f"SELECT count(*) FROM ({hits}) AS found"), values).scalar()
    return papers_in_order(session, [paper_id for paper_id, _ in rows]), total
