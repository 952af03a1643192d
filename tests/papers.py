"""Papers the chat platform tests put in the store before asking for a digest."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import Engine
from sqlmodel import Session

from digests.catalog import Catalog
from digests.ingest import ingest_records, sync_catalog
from digests.papers import PaperRecord
from digests.tagger import Tagger


def seed_agent_papers(
    engine: Engine, catalog: Catalog, *, hostile: str, now: datetime, count: int = 60
) -> None:
    """`count` papers on RL for LLM Agents, first among them a hostile and a 10 kB title."""
    titles = [hostile, "Long " * 2_000] + [f"Agent study number {n}" for n in range(count - 2)]
    records = [
        PaperRecord(
            arxiv_id=f"2609.{n:05d}",
            version=1,
            title=title,
            abstract=f"We train agents with reinforcement learning, study {n}. " * 4,
            authors=("Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"),
            categories=("cs.LG", "cs.AI"),
            published=now - timedelta(days=1 + n % 5),
            upstream_topics=("RL for LLM Agents",),
        )
        for n, title in enumerate(titles)
    ]
    tagger = Tagger(catalog)
    with Session(engine) as session:
        sync_catalog(session, catalog=catalog, tagger=tagger, now=now)
        ingest_records(session, records, tagger=tagger, catalog=catalog, now=now)
        session.commit()


def clock_from(start: datetime) -> Callable[[], datetime]:
    """`start`, moving on in real time (manual digests are keyed by the time they are asked)."""
    started = time.monotonic()
    return lambda: start + timedelta(seconds=time.monotonic() - started)
