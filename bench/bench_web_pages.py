"""The topic pages over a store of 1,000,000 papers: server time, concurrency, a valid feed.

    .venv/bin/python bench/bench_web_pages.py [--size 1000000] [--requests 300] [--rebuild]

The store is `bench_momentum.py`'s synthetic one (papers over two years, about three tags each),
built once and cached as $TMPDIR/digestbot-bench/web-SIZE-LAYOUT.db, with the newest papers of
the measured topics given realistic titles, authors and abstracts (the rows a page shows). The
pages' aiohttp application (`bot.web.web_app`) serves it on 127.0.0.1; a middleware records
each request's server time (routing, queries, templates, ETag).

Prints: the query plans of a topic's newest papers and its paper count (they must use an index);
the topic page's server time, median and p95, over `--requests` requests spread over the ten
busiest topics and their first three pages (floors: 50 ms median, 150 ms p95), after one cold
request that computes every topic's momentum; 200 concurrent requests (pages, feeds, the index)
and how many failed (floor: none); and the Atom feed checked against RFC 4287's required elements.
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
from lxml import etree  # noqa: E402
from sqlalchemy import Engine, func, select, text, update  # noqa: E402
from sqlmodel import Session  # noqa: E402

from bot.health import start_health_server  # noqa: E402
from bot.web import Site, web_app  # noqa: E402
from digests.pages.topic_pages import TopicPages  # noqa: E402
from digests.store import pages  # noqa: E402
from digests.store.engine import open_engine  # noqa: E402
from digests.store.models import Paper, PaperTopic, Topic  # noqa: E402
from digests.topics.catalog import Catalog  # noqa: E402

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
ATOM = "{http://www.w3.org/2005/Atom}"


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


async def measure(engine: Engine, catalog: Catalog, topics: list[str], requests: int) -> int:
    timings: list[float] = []
    runner = await start_health_server(timed_app(engine, catalog, timings), "127.0.0.1", 0)
    port = runner.addresses[0][1]
    base = f"http://127.0.0.1:{port}"
    connector = aiohttp.TCPConnector(limit=0)
    failures = 0
    try:
        async with aiohttp.ClientSession(connector=connector) as client:
            await _get(client, f"{base}/topics/{topics[0]}")
            print(f"cold topic page (every topic's momentum computed): {timings[-1] * 1000:.0f} ms")
            timings.clear()
            urls = [
                f"{base}/topics/{topics[n % len(topics)]}?page={1 + n // len(topics) % PAGES}"
                for n in range(requests)
            ]
            for url in urls:
                await _get(client, url)
            report("topic page", timings)
            timings.clear()
            await _get(client, f"{base}/topics/{topics[0]}.atom")
            report("atom feed (1 request)", timings)
            timings.clear()
            mixed = [
                f"{base}/topics/{topics[n % len(topics)]}" + (".atom" if n % 5 == 4 else "")
                for n in range(CONCURRENT - 10)
            ] + [f"{base}/?sort=trending"] * 10
            started = time.perf_counter()
            statuses = await asyncio.gather(
                *(_get(client, url) for url in mixed), return_exceptions=True
            )
            wall = time.perf_counter() - started
            failures = sum(1 for status in statuses if status != 200)
            print(
                f"{CONCURRENT} concurrent requests: {CONCURRENT - failures} answered 200, "
                f"{failures} failed, in {wall:.2f} s (server p95 {percentile(timings, 95):.0f} ms)"
            )
            feed = await (await client.get(f"{base}/topics/{topics[0]}.atom")).read()
            problems = atom_problems(feed)
            print(
                "atom feed: "
                + ("valid (required elements of RFC 4287)" if not problems else "; ".join(problems))
            )
    finally:
        await runner.cleanup()
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


def atom_problems(feed: bytes) -> list[str]:
    """What RFC 4287 requires and the feed lacks. No RELAX NG schema of Atom could be obtained
    offline, so this checks the required elements (4.1.1, 4.1.2) by hand with lxml."""
    root = etree.fromstring(feed)
    problems = [] if root.tag == f"{ATOM}feed" else [f"root is {root.tag}, not atom:feed"]
    for name in ("id", "title", "updated"):
        if len(root.findall(f"{ATOM}{name}")) != 1:
            problems.append(f"feed needs exactly one atom:{name}")
    feed_author = root.find(f"{ATOM}author") is not None
    if not root.findall(f"{ATOM}link[@rel='self']"):
        problems.append("feed should have a rel=self link")
    for number, entry in enumerate(root.findall(f"{ATOM}entry"), start=1):
        for name in ("id", "title", "updated"):
            if len(entry.findall(f"{ATOM}{name}")) != 1:
                problems.append(f"entry {number} needs exactly one atom:{name}")
        if not feed_author and entry.find(f"{ATOM}author/{ATOM}name") is None:
            problems.append(f"entry {number} needs an author")
        if (
            entry.find(f"{ATOM}content") is None
            and entry.find(f"{ATOM}link[@rel='alternate']") is None
        ):
            problems.append(f"entry {number} needs content or an alternate link")
        for stamp in entry.findall(f"{ATOM}updated") + entry.findall(f"{ATOM}published"):
            try:
                datetime.fromisoformat(stamp.text.replace("Z", "+00:00"))
            except ValueError:
                problems.append(f"entry {number}: {stamp.text!r} is no RFC 3339 date")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached store")
    args = parser.parse_args(argv)
    catalog = Catalog.load()
    engine = store(args.size, catalog, args.rebuild)
    topics = busiest_topics(engine, catalog)
    realistic_first_pages(engine, topics)
    with Session(engine) as session:
        total = session.execute(select(func.count()).select_from(Paper)).scalar_one()
    print(f"{total:,} papers; pages as of {AS_OF}; ten busiest topics, pages 1-{PAGES}")
    for line in query_plans(engine, topics[0][1]):
        print(f"  plan of {line}")
    asyncio.run(measure(engine, catalog, [slug for slug, _ in topics], args.requests))
    engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
