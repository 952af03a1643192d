"""Momentum of every catalog topic over a large store, on SQLite and optionally PostgreSQL.

    .venv/bin/python bench/bench_momentum.py [--sizes 250000 500000 1000000] [--repeat 5]
    DIGESTBOT_BENCH_POSTGRES_URL=postgresql+psycopg://USER@HOST:PORT/DB  (adds PostgreSQL)

Synthetic papers, spread evenly over two years of first-version days with about three tags each
(popular topics get more), are bulk-loaded straight into `paper` and `paper_topic` with
SQLAlchemy Core executemany in one transaction. Then `digests.usecases.reports.topic_momenta`
runs for all catalog topics as of the last day: one cold call, then `--repeat` timed calls whose
median is printed. The target is under 2 s at 1,000,000 papers.

Built stores are cached between runs: SQLite files under $TMPDIR/digestbot-bench/, and on
PostgreSQL one schema per size in a separate database, `digestbot_bench`, created on the
server of the given URL (the database the URL names is never written). `--clean` drops both.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from datetime import time as day_time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sqlalchemy import Engine, create_engine, insert, select, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402
from sqlalchemy.exc import OperationalError, ProgrammingError  # noqa: E402
from sqlmodel import Session  # noqa: E402

from digests.store import repo  # noqa: E402
from digests.store.engine import open_engine, upgrade_schema  # noqa: E402
from digests.store.models import IngestState, Paper, PaperTopic, Topic  # noqa: E402
from digests.topics.catalog import Catalog  # noqa: E402
from digests.usecases.reports import topic_momenta  # noqa: E402

AS_OF = date(2026, 9, 28)
SPAN_DAYS = 730
TAGS_PER_PAPER = 3
CHUNK = 20_000  # rows generated and sent per executemany
TARGET_SECONDS = 2.0
LAYOUT = "v2"  # bump when the synthetic rows change, so that cached stores are rebuilt
BENCH_DATABASE = "digestbot_bench"
MARKER = "bench:momentum"  # ingest_state key written last: a store without it is incomplete
CACHE_DIR = Path(tempfile.gettempdir()) / "digestbot-bench"


def synthetic_rows(
    rng: random.Random, first_id: int, count: int, size: int, topic_ids: list[int]
) -> tuple[list[dict], list[dict]]:
    """Rows for papers first_id..first_id+count-1 of `size`, ids rising with the date."""
    start = AS_OF - timedelta(days=SPAN_DAYS - 1)
    weights = [rank**-0.5 for rank in range(1, len(topic_ids) + 1)]  # popular topics lead
    papers, tags = [], []
    for paper_id in range(first_id, first_id + count):
        day = start + timedelta(days=(paper_id - 1) * SPAN_DAYS // size)
        published = datetime.combine(day, day_time(12), tzinfo=UTC)
        arxiv_id = f"{day:%y%m}.{paper_id % 100_000:05d}"  # unique while a month < 100k
        papers.append(_paper_row(paper_id, arxiv_id, published))
        chosen = set(rng.choices(topic_ids, weights=weights, k=TAGS_PER_PAPER + 1))
        for topic_id in list(chosen)[:TAGS_PER_PAPER]:
            tags.append(
                {
                    "paper_id": paper_id,
                    "topic_id": topic_id,
                    "source": "rules",
                    "score": 0.6,
                    "published_on": day,
                    "tagged_at": published + timedelta(hours=9),
                }
            )
    return papers, tags


def _paper_row(paper_id: int, arxiv_id: str, published: datetime) -> dict:
    return {
        "id": paper_id,
        "arxiv_id": arxiv_id,
        "version": 1,
        "title": f"Synthetic paper {paper_id}",
        "abstract": "",
        "authors": [],
        "affiliations": [],
        "categories": ["cs.LG"],
        "primary_category": "cs.LG",
        "published": published,
        "published_on": published.date(),
        "abs_url": f"https://arxiv.org/abs/{arxiv_id}",
        "pdf_url": f"https://arxiv.org/pdf/{arxiv_id}",
        "ingested_at": published,
    }


def build(engine: Engine, size: int, catalog: Catalog) -> None:
    """Load the store in one transaction, ending with the marker `is_built` looks for."""
    upgrade_schema(engine)
    with Session(engine) as session:
        repo.sync_topics(session, catalog.topics)
        session.commit()
        topic_ids = list(session.execute(select(Topic.id).order_by(Topic.id)).scalars())
    rng = random.Random(size)
    with engine.begin() as connection:
        for first_id in range(1, size + 1, CHUNK):
            count = min(CHUNK, size + 1 - first_id)
            papers, tags = synthetic_rows(rng, first_id, count, size, topic_ids)
            connection.execute(insert(Paper.__table__), papers)
            connection.execute(insert(PaperTopic.__table__), tags)
        marker = {"size": size, "layout": LAYOUT}
        now = datetime.now(UTC)
        connection.execute(
            insert(IngestState.__table__), {"key": MARKER, "cursor": marker, "updated_at": now}
        )
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(text("ANALYZE"))  # autovacuum would do it on a live server
        else:  # fold the WAL into the file now rather than on some later connection
            busy = connection.execute(text("PRAGMA wal_checkpoint(TRUNCATE)")).first()[0]
            if busy:
                raise RuntimeError("SQLite could not checkpoint the benchmark store")


def is_built(engine: Engine) -> bool:
    try:
        with engine.connect() as connection:
            found = connection.execute(select(IngestState.key).where(IngestState.key == MARKER))
            return found.first() is not None
    except (OperationalError, ProgrammingError):  # no tables yet
        return False


def sqlite_store(size: int, catalog: Catalog, rebuild: bool) -> Engine:
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    path = CACHE_DIR / f"momentum-{size}-{LAYOUT}.db"
    engine = open_engine(f"sqlite:///{path}")
    if rebuild or not is_built(engine):
        engine.dispose()
        for stale in CACHE_DIR.glob(f"{path.name}*"):
            stale.unlink()
        engine = open_engine(f"sqlite:///{path}")
        _timed_build(engine, size, catalog)
    return engine


def postgres_store(server_url: str, size: int, catalog: Catalog, rebuild: bool) -> Engine:
    bench_url = _bench_database(server_url)
    schema = f"momentum_{size}_{LAYOUT}"
    engine = _schema_engine(bench_url, schema)
    if rebuild or not is_built(engine):
        with engine.begin() as connection:
            connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        _timed_build(engine, size, catalog)
    return engine


def _bench_database(server_url: str) -> str:
    """The URL of `digestbot_bench` on the same server, created if missing."""
    url = make_url(server_url)
    server = create_engine(url, isolation_level="AUTOCOMMIT")
    with server.connect() as connection:
        found = connection.execute(
            text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": BENCH_DATABASE}
        ).first()
        if not found:
            connection.execute(text(f'CREATE DATABASE "{BENCH_DATABASE}"'))
    server.dispose()
    return url.set(database=BENCH_DATABASE).render_as_string(hide_password=False)


def _schema_engine(url: str, schema: str) -> Engine:
    return create_engine(url, connect_args={"options": f"-csearch_path={schema}"})


def _timed_build(engine: Engine, size: int, catalog: Catalog) -> None:
    started = time.perf_counter()
    print(f"  building {size:,} papers on {engine.dialect.name}...", end=" ", flush=True)
    build(engine, size, catalog)
    print(f"{time.perf_counter() - started:.0f}s", flush=True)


def time_momenta(engine: Engine, catalog: Catalog, repeat: int) -> tuple[float, list[float], str]:
    """(cold seconds, warm seconds per repeat, the busiest topic's momentum line)."""
    timings = []
    for _ in range(repeat + 1):
        with Session(engine) as session:
            started = time.perf_counter()
            momenta = topic_momenta(session, catalog.topics, as_of=AS_OF)
            timings.append(time.perf_counter() - started)
    busiest = max(momenta.values(), key=lambda momentum: momentum.count)
    return timings[0], timings[1:], f"{busiest.topic}: {busiest.line}"


def backends(args: argparse.Namespace, catalog: Catalog) -> Iterator[tuple[str, int, Engine]]:
    postgres_url = os.environ.get("DIGESTBOT_BENCH_POSTGRES_URL", "")
    for size in sorted(args.sizes):
        yield "sqlite", size, sqlite_store(size, catalog, args.rebuild)
    if postgres_url:
        for size in sorted(args.sizes):
            yield "postgresql", size, postgres_store(postgres_url, size, catalog, args.rebuild)


def clean() -> None:
    for path in CACHE_DIR.glob("momentum-*"):
        path.unlink()
    postgres_url = os.environ.get("DIGESTBOT_BENCH_POSTGRES_URL", "")
    if postgres_url:
        server = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
        with server.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{BENCH_DATABASE}"'))
        server.dispose()
    print("removed cached benchmark stores")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[250_000, 500_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rebuild", action="store_true", help="rebuild cached stores")
    parser.add_argument("--clean", action="store_true", help="drop cached stores and exit")
    args = parser.parse_args(argv)
    if args.clean:
        clean()
        return 0
    catalog = Catalog.load()
    print(
        f"momentum of all {len(catalog.topics)} topics as of {AS_OF}, papers over {SPAN_DAYS} days"
    )
    for backend, size, engine in backends(args, catalog):
        cold, warm, line = time_momenta(engine, catalog, args.repeat)
        engine.dispose()
        median = statistics.median(warm)
        verdict = "ok" if median < TARGET_SECONDS else f"over the {TARGET_SECONDS:.0f} s target"
        print(
            f"{backend:<10} {size:>9,} papers  {median:.3f} s median of {len(warm)} "
            f"(cold {cold:.3f} s; runs {', '.join(f'{t:.3f}' for t in warm)})  {verdict}"
        )
        print(f"{'':<10} {'':>9}  busiest: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
