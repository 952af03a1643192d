"""Papers for the tests: `paper_record`, the one way a test makes a paper, `digest_paper`, the
same paper as a digest shows it, and the papers the chat platform tests put in the store before
asking for a digest."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from digests.messages.digest import DigestPaper
from digests.papers.records import PaperRecord, abs_url
from digests.store import channels, repo
from digests.topics.catalog import Catalog
from digests.topics.tagger import Tagger
from digests.usecases.ingest import ingest_records, sync_catalog

PUBLISHED = datetime(2026, 9, 20, 17, 0, tzinfo=UTC)


def paper_record(n: int = 1, published: datetime = PUBLISHED, **changes: Any) -> PaperRecord:
    """Paper `n` (arXiv 2609.00001 for n = 1, version 1): a cs.LG study of reinforcement
    learning for LLM agents, which the tagger files under RL for LLM Agents; `changes` set any
    other field."""
    fields = {
        "arxiv_id": f"2609.{n:05d}",
        "version": 1,
        "title": f"Reinforcement learning for LLM agents, study {n}",
        "abstract": "We train large language model agents with reinforcement learning.",
        "authors": ("Ada Lovelace",),
        "categories": ("cs.LG",),
        "published": published,
    }
    return PaperRecord(**(fields | changes))


def digest_paper(n: int = 1, **changes: Any) -> DigestPaper:
    """Paper `n` of `paper_record` as a digest shows it, linked to its arXiv page and scored 1.0
    on RL for LLM Agents; `changes` set any other field (the link follows a changed arxiv_id)."""
    record = paper_record(n)
    arxiv_id = changes.get("arxiv_id", record.arxiv_id)
    fields = {
        "arxiv_id": arxiv_id,
        "title": record.title,
        "url": abs_url(arxiv_id),
        "authors": record.authors,
        "published": record.published.date(),
        "primary_category": record.categories[0],
        "abstract": record.abstract,
        "scores": {"rl-for-llm-agents": 1.0},
    }
    return DigestPaper(**(fields | changes))


def seed_agent_papers(
    engine: Engine, catalog: Catalog, *, hostile: str, now: datetime, count: int = 60
) -> None:
    """`count` papers on RL for LLM Agents, first among them a hostile and a 10 kB title."""
    titles = [hostile, "Long " * 2_000] + [f"Agent study number {n}" for n in range(count - 2)]
    records = [
        paper_record(
            n,
            now - timedelta(days=1 + n % 5),
            title=title,
            abstract=f"We train agents with reinforcement learning, study {n}. " * 4,
            authors=("Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"),
            categories=("cs.LG", "cs.AI"),
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


def seed_spike(app, as_of: datetime, rising=paper_record) -> None:
    """70 agent papers (or others `rising` makes) in the last four weeks against 29 before, on
    a steady volume."""
    records = [rising(n, as_of - timedelta(days=1 + n % 27)) for n in range(100, 170)]
    records += [rising(n, as_of - timedelta(days=29 + n % 27)) for n in range(200, 229)]
    records += [other_paper(n, as_of - timedelta(days=1 + n % 55)) for n in range(1, 1001)]
    with app.session() as session:
        ingest_records(session, records, tagger=app.tagger, catalog=app.catalog, now=as_of)
        session.commit()


def seed_followed_week(app, now: datetime, chats: list[tuple[str, str]]) -> None:
    """A week of papers on RL for LLM Agents, and every chat, (platform, chat id), following
    that topic."""
    records = [paper_record(n, now - timedelta(days=1)) for n in range(1, 9)]
    with app.session() as session:
        ingest_records(session, records, tagger=app.tagger, catalog=app.catalog, now=now)
        topic_id = repo.topic_rows(session)["rl-for-llm-agents"].id
        for platform, chat in chats:
            channel = channels.get_or_create_channel(
                session, platform=platform, chat_id=chat, now=now
            )
            channels.follow(session, channel, topic_id, now=now)
        session.commit()


def other_paper(n: int, published: datetime) -> PaperRecord:
    """A paper on another subject: the volume agent papers are measured against."""
    return paper_record(
        n,
        published,
        arxiv_id=f"2608.{n:05d}",
        title=f"Galaxy cluster survey, field {n}",
        abstract="We measure the mass function of galaxy clusters.",
        authors=("Vera Rubin",),
        categories=("astro-ph.CO",),
    )


def jsonl_line(arxiv_id: str, title: str, published: str, **extra) -> str:
    paper = {
        "id": arxiv_id,
        "title": title,
        "abstract": "We train large language model agents with reinforcement learning "
        "to use tools over many turns, with step-level credit assignment.",
        "authors": ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"],
        "categories": ["cs.LG", "cs.AI"],
        "published": published,
        **extra,
    }
    return json.dumps(paper)
