"""The topic pages over a store of 1,000,000 papers: server time, concurrency, valid feeds.

    .venv/bin/python bench/bench_web_pages.py [--size 1000000] [--requests 300] [--rebuild]

The store is `bench_momentum.py`'s synthetic one (papers over two years, about three tags each),
built once and cached as $TMPDIR/digestbot-bench/web-SIZE-LAYOUT.db, with the newest papers of
the measured topics given realistic titles, authors and abstracts (the rows a page shows), and
one follow filter stored (`category: cs.LG`, which every synthetic paper is in). The
pages' aiohttp application (`bot.web.web_app`) serves it on 127.0.0.1; a middleware records
each request's server time (routing, queries, templates, ETag).

Prints: the query plans of a topic's newest papers and its paper count (they must use an index);
the topic page's server time, median and p95, over `--requests` requests spread over the ten
busiest topics and their first three pages (floors: 50 ms median, 150 ms p95), after one cold
request that computes every topic's momentum; the same for the pages of the last digest week
(`?from=…&to=…`, as digests link them) and for the follow filter's page; 200 concurrent
requests (pages, period pages, feeds, the index) and how many failed (floor: none); and the
topic's and the filter's Atom feeds checked against RFC 4287 by `tests/atom_rfc4287.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import aiohttp  # noqa: E402
from aiohttp import web  # noqa: E402
from bench_momentum import AS_OF, CACHE_DIR, LAYOUT, build, is_built  # noqa: E402
from sqlalchemy import Engine, func, select, text, update  # noqa: E402
from sqlmodel import Session  # noqa: E402

from bot.http_server import start_web_server  # noqa: E402
from bot.web import Site, web_app  # noqa: E402
from digests.follows.filters import parse_filter  # noqa: E402
from digests.links.pages import Period, page_path  # noqa: E402
from digests.store import pages  # noqa: E402
from digests.store.engine import open_engine  # noqa: E402
from digests.store.models import Paper, PaperTopic, Topic  # noqa: E402
from digests.topics.catalog import Catalog  # noqa: E402
from digests.usecases.follows import store_filter  # noqa: E402
from digests.usecases.topic_pages import TopicPages  # noqa: E402
from tests.atom_rfc4287 import atom_problems  # noqa: E402

NOW = datetime.combine(AS_OF, datetime.min.time(), tzinfo=UTC) + timedelta(hours=12)
MEDIAN_FLOOR, P95_FLOOR = 0.050, 0.150
CONCURRENT = 200
TOPICS = 10
PAGES = 3
ABSTRACT = (
    "We study how language-model agents learn from interaction with tools and environments. "
    "Our method assigns credit across long horizons, compares policy-gradient variants and "
    "reports results on web, code and embodied benchmarks, with ablations over reward shaping, "
    "curricula and memory. "
) * 4
AUTHORS = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov"]
FOLLOW = "category: cs.LG"
LAST_WEEK = Period(AS_OF - timedelta(days=6), AS_OF)


def store(size: int, catalog: Catalog, rebuild: bool) -> Engine:
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    path = CACHE_DIR / f"web-{size}-{LAYOUT}.db"
    engine = open_engine(f"sqlite:///{path}")
    if rebuild or not is_built(engine):
        engine.dispose()
        for stale in CACHE_DIR.glob(f"{path.name}*"):
            stale.unlink()
        engine = open_engine(f"sqlite:///{path}")
        started = time.perf_counter()
        print(f"building {size:,} papers (cached in {path})...", end=" ", flush=True)
        build(engine, size, catalog)
        print(f"{time.perf_counter() - started:.0f} s", flush=True)
    return engine


def busiest_topics(engine: Engine, catalog: Catalog) -> list[tuple[str, int]]:
    """(slug, id) of the catalog topics with the most tags, busiest first."""
    known = {topic.slug for topic in catalog.topics}
    with Session(engine) as session:
        rows = session.execute(
            select(Topic.slug, Topic.id, func.count())
            .join(PaperTopic, PaperTopic.topic_id == Topic.id)
            .group_by(Topic.slug, Topic.id)
            .order_by(func.count().desc())
        ).all()
    return [(slug, topic_id) for slug, topic_id, _ in rows if slug in known][:TOPICS]


def realistic_first_pages(engine: Engine, topics: list[tuple[str, int]]) -> None:
    """Give the papers the measured pages show a real page's weight of text."""
    with Session(engine) as session:
        for _, topic_id in topics:
            for paper in pages.latest_topic_papers(session, topic_id, offset=0, limit=20 * PAGES):
                session.execute(
                    update(Paper)
                    .where(Paper.id == paper.id)
                    .values(
                        title=f"Credit assignment for tool-using agents, study {paper.id}",
                        authors=AUTHORS,
                        abstract=ABSTRACT,
                    )
                )
        session.commit()


def query_plans(engine: Engine, topic_id: int) -> list[str]:
    """SQLite's plan for a topic's newest papers and its paper count."""
    lines = []
    with Session(engine) as session:
        connection = session.connection()
        for name, statement in (
            ("newest papers", _newest_statement(topic_id)),
            (
                "paper count",
                select(func.count(func.distinct(PaperTopic.paper_id))).where(
                    PaperTopic.topic_id == topic_id
                ),
            ),
        ):
            sql = str(statement.compile(connection, compile_kwargs={"literal_binds": True}))
            plan = connection.execute(text(f"EXPLAIN QUERY PLAN {sql}")).all()
            lines.append(f"{name}: " + " | ".join(row[-1] for row in plan))
    return lines


def _newest_statement(topic_id: int):
    return (
        select(PaperTopic.paper_id)
        .where(PaperTopic.topic_id == topic_id)
        .group_by(PaperTopic.published_on, PaperTopic.paper_id)
        .order_by(PaperTopic.published_on.desc(), PaperTopic.paper_id.desc())
        .limit(20)
    )


def timed_app(engine: Engine, catalog: Catalog, timings: list[float]) -> web.Application:
    def sessions() -> Session:
        return Session(engine, expire_on_commit=False)

    app = web_app(TopicPages(sessions, catalog), clock=lambda: NOW, site=Site())

    @web.middleware
    async def timer(request: web.Request, handler):
        started = time.perf_counter()
        try:
            return await handler(request)
        finally:
            timings.append(time.perf_counter() - started)

    app.middlewares.insert(0, timer)
    return app


def bench_follow(engine: Engine) -> tuple[str, int]:
    """(slug, topic id) of the follow filter, stored and tagged as /follow stores it."""
    with Session(engine) as session:
        topic_id = store_filter(session, parse_filter(FOLLOW), now=NOW)
        session.commit()
    return parse_filter(FOLLOW).slug, topic_id


async def measure(
    engine: Engine, catalog: Catalog, topics: list[str], follow: str, requests: int
) -> int:
    timings: list[float] = []
    runner = await start_web_server(timed_app(engine, catalog, timings), "127.0.0.1", 0)
    base = f"http://127.0.0.1:{runner.addresses[0][1]}"
    topic_pages = [f"{base}{page_path(slug)}" for slug in topics]
    follow_page = f"{base}{page_path(follow)}"
    connector = aiohttp.TCPConnector(limit=0)
    try:
        async with aiohttp.ClientSession(connector=connector) as client:
            await _get(client, topic_pages[0])
            print(f"cold topic page (every topic's momentum computed): {timings[-1] * 1000:.0f} ms")
            pages_of = [f"?page={1 + n // len(topics) % PAGES}" for n in range(requests)]
            await timed(
                client,
                "topic page",
                timings,
                [topic_pages[n % len(topics)] + pages_of[n] for n in range(requests)],
            )
            await timed(
                client,
                "topic page of the last digest week",
                timings,
                [
                    f"{topic_pages[n % len(topics)]}?{LAST_WEEK.query}"  # what "+N more" opens
                    for n in range(requests)
                ],
            )
            await timed(
                client,
                "follow filter's page",
                timings,
                [follow_page + pages_of[n] for n in range(requests // 3)],
            )
            await timed(client, "atom feed (1 request)", timings, [f"{topic_pages[0]}.atom"])
            failures = await concurrent(client, timings, topic_pages, follow_page, base)
            for name, feed_url in (("topic", topic_pages[0]), ("follow filter", follow_page)):
                feed = await (await client.get(f"{feed_url}.atom")).read()
                problems = atom_problems(feed)
                verdict = (
                    "valid (RFC 4287, tests/atom_rfc4287.py)"
                    if not problems
                    else "; ".join(problems)
                )
                print(f"{name}'s atom feed: {verdict}")
    finally:
        await runner.cleanup()
    return failures


async def timed(
    client: aiohttp.ClientSession, name: str, timings: list[float], urls: list[str]
) -> None:
    """Request `urls` one after another; report their server times."""
    timings.clear()
    for url in urls:
        if await _get(client, url) != 200:
            raise RuntimeError(f"{url} did not answer 200")
    report(name, timings)
    timings.clear()


async def concurrent(
    client: aiohttp.ClientSession,
    timings: list[float],
    topic_pages: list[str],
    follow_page: str,
    base: str,
) -> int:
    """CONCURRENT requests at once (pages, period pages, feeds, the filter, the index);
    returns how many failed."""
    kinds = ["", "", f"?{LAST_WEEK.query}", ".atom", ""]
    mixed = (
        [topic_pages[n % len(topic_pages)] + kinds[n % len(kinds)] for n in range(CONCURRENT - 20)]
        + [follow_page] * 10
        + [f"{base}/?sort=trending"] * 10
    )
    started = time.perf_counter()
    statuses = await asyncio.gather(*(_get(client, url) for url in mixed), return_exceptions=True)
    wall = time.perf_counter() - started
    failures = sum(1 for status in statuses if status != 200)
    print(
        f"{CONCURRENT} concurrent requests: {CONCURRENT - failures} answered 200, "
        f"{failures} failed, in {wall:.2f} s (server p95 {percentile(timings, 95):.0f} ms)"
    )
    timings.clear()
    return failures


async def _get(client: aiohttp.ClientSession, url: str) -> int:
    async with client.get(url) as response:
        await response.read()
        return response.status


def percentile(timings: list[float], pct: int) -> float:
    ordered = sorted(timings)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))] * 1000


def report(name: str, timings: list[float]) -> None:
    median, p95 = statistics.median(timings) * 1000, percentile(timings, 95)
    ok = median < MEDIAN_FLOOR * 1000 and p95 < P95_FLOOR * 1000
    verdict = "ok" if ok else "OVER the floors (50 ms median, 150 ms p95)"
    print(
        f"{name}: server time median {median:.1f} ms, p95 {p95:.1f} ms "
        f"over {len(timings)} requests  {verdict}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached store")
    args = parser.parse_args(argv)
    catalog = Catalog.load()
    engine = store(args.size, catalog, args.rebuild)
    topics = busiest_topics(engine, catalog)
    follow, follow_id = bench_follow(engine)
    realistic_first_pages(engine, [*topics, (follow, follow_id)])
    with Session(engine) as session:
        total = session.execute(select(func.count()).select_from(Paper)).scalar_one()
    print(f"{total:,} papers; pages as of {AS_OF}; ten busiest topics, pages 1-{PAGES}")
    for line in query_plans(engine, topics[0][1]):
        print(f"  plan of {line}")
    asyncio.run(measure(engine, catalog, [slug for slug, _ in topics], follow, args.requests))
    engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
