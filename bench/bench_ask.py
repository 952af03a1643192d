"""Ask about a topic on the real 2025 corpus: how long a question takes, per backend.

    .venv/bin/python bench/bench_ask.py [--database-url URL] [--runs 5]

The store is the real corpus (`real_corpus.py`: 40,717 papers tagged by the current tagger) in
SQLite, or, with `--database-url`, in that database (filled from the corpus when it holds no
papers). For the catalog's three largest topics and RL for LLM Agents, three questions are asked
as `/ask` and the ask box do (`digests.usecases.ask.ask_topic`: rank through the full-text index,
read the five best, pick each one's sentence), from a narrow one to one whose words are in most
papers. Prints per topic and question: the matching papers and the median time of `--runs` runs
(after one warm-up), and the slowest. Floor: 0.5 s for the slowest, as a chat command's answer.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from real_corpus import corpus_store, ingest_corpus  # noqa: E402
from sqlalchemy import Engine, func, select  # noqa: E402
from sqlmodel import Session  # noqa: E402

from digests.ask.questions import question_words  # noqa: E402
from digests.store.engine import open_engine, upgrade_schema  # noqa: E402
from digests.store.models import Paper, PaperTopic, Topic  # noqa: E402
from digests.topics.catalog import Catalog  # noqa: E402
from digests.usecases.ask import ask_topic  # noqa: E402

QUESTIONS = (
    "which papers use a world model as the reward?",
    "reinforcement learning for tool use",
    "large language model results",
)
FLOOR = 0.5


def store(database_url: str | None) -> Engine:
    if database_url is None:
        return corpus_store()
    engine = open_engine(database_url)
    upgrade_schema(engine)
    with Session(engine) as session:
        empty = not session.execute(select(func.count()).select_from(Paper)).scalar_one()
    if empty:
        started = time.perf_counter()
        count = ingest_corpus(engine)
        print(f"filled {database_url.split('@')[-1]}: {count:,} papers in ", end="")
        print(f"{time.perf_counter() - started:.0f} s")
    return engine


def measured_topics(engine: Engine, catalog: Catalog) -> list[tuple[str, int]]:
    """The three largest topics and RL for LLM Agents, with their paper counts."""
    papers = func.count(func.distinct(PaperTopic.paper_id))
    statement = (
        select(Topic.slug, papers).join(PaperTopic, PaperTopic.topic_id == Topic.id)
        .group_by(Topic.slug).order_by(papers.desc())
    )  # fmt: skip
    with Session(engine) as session:
        counts = dict(session.execute(statement).all())
    largest = [slug for slug in counts if slug in {t.slug for t in catalog.topics}][:3]
    return [(slug, counts[slug]) for slug in [*largest, "rl-for-llm-agents"]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    engine = store(args.database_url)
    catalog = Catalog.load()
    print(f"backend: {engine.dialect.name}; median of {args.runs} runs after a warm-up")
    print("| topic (papers) | question | matching | median | slowest |")
    print("| --- | --- | ---: | ---: | ---: |")
    worst = 0.0
    for slug, count in measured_topics(engine, catalog):
        topic = catalog.get(slug)
        for question in QUESTIONS:
            words = question_words(question)
            times = []
            for _ in range(args.runs + 1):
                with Session(engine) as session:
                    started = time.perf_counter()
                    result = ask_topic(session, topic, question, words)
                    times.append(time.perf_counter() - started)
            times = times[1:]
            worst = max(worst, max(times))
            print(
                f"| {topic.name} ({count:,}) | {question} | {result.total:,} "
                f"| {statistics.median(times) * 1000:.0f} ms | {max(times) * 1000:.0f} ms |"
            )
    met = "met" if worst <= FLOOR else "NOT met"
    print(f"slowest answer: {worst * 1000:.0f} ms (floor {FLOOR * 1000:.0f} ms: {met})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
