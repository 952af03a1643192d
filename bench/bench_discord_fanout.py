"""Fan-out of one weekly digest to 1,000 Discord channels, against the fake's 50 requests/s limit.

    .venv/bin/python bench/bench_discord_fanout.py [--channels 1000] [--runs 3] [--no-pace]

Each run starts a fresh fake Discord (tests/fakes) enforcing Discord's real limits (50 requests
per second per bot, 5 messages per 5 s per channel) in a process of its own, as Discord is
remote and takes no CPU from the bot; then a fresh SQLite store with one digest
stored for every channel (a few topics, five papers each), and the real adapter: discord.py
logs in, then the `Dispatcher` (32 workers) drains every delivery through `DiscordSender`.

Printed per run and as the median of the runs: accepted messages per second (messages over the
drain's wall time) against the allowed 50, the 429s the fake answered, and messages lost or
duplicated. The target is at least 90% of the allowed rate with nothing lost.
`--no-pace` turns off the dispatcher's request pacing, leaving discord.py to find the global
limit by running into it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import multiprocessing
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from multiprocessing.connection import Connection
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pydantic import SecretStr  # noqa: E402
from sqlmodel import Session  # noqa: E402

from bot.app import build_app  # noqa: E402
from bot.platforms.discord import DiscordAdapter  # noqa: E402
from bot.settings import Settings  # noqa: E402
from digests.papers.records import PaperRecord  # noqa: E402
from digests.store import channels, deliveries, repo  # noqa: E402
from digests.store.engine import open_engine, upgrade_schema  # noqa: E402
from digests.topics.catalog import Catalog  # noqa: E402
from digests.topics.tagger import Tagger  # noqa: E402
from digests.usecases.commands import CommandService  # noqa: E402
from digests.usecases.ingest import ingest_records, sync_catalog  # noqa: E402
from tests.fakes.discord_gateway import channel_payload  # noqa: E402
from tests.fakes.discord_server import (  # noqa: E402
    CATEGORY_ID,
    GUILD_ID,
    FakeDiscord,
    RateLimits,
)

NOW = datetime(2026, 9, 28, 9, 0, tzinfo=UTC)
FIRST_CHANNEL_ID = 1_300_000_000_000_000_000
TOPICS = ("RL for LLM Agents", "Diffusion Models", "LLM Reasoning")
TARGET_SHARE = 0.90


@dataclass
class RunResult:
    messages: int
    seconds: float
    rate_limited: int
    lost: int
    duplicated: int
    parts: int

    @property
    def rate(self) -> float:
        return self.messages / self.seconds


def fake_with_channels(count: int) -> FakeDiscord:
    fake = FakeDiscord(rate_limits=RateLimits())
    [guild] = fake.world.guilds
    guild["channels"] += [
        channel_payload(FIRST_CHANNEL_ID + n, GUILD_ID, f"digest-{n}", parent_id=CATEGORY_ID)
        for n in range(count)
    ]
    return fake


def seed_store(engine, catalog: Catalog) -> None:
    """Five recent papers on each benchmark topic."""
    records = [
        PaperRecord(
            arxiv_id=f"2609.{t * 100 + n:05d}",
            version=1,
            title=f"{name}: a study of what changes when agents learn, part {n}",
            abstract=f"We study {name.lower()} at scale and report what we found. " * 4,
            authors=("Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"),
            categories=("cs.LG", "cs.AI"),
            published=NOW - timedelta(days=1 + n % 5),
            upstream_topics=(name,),
        )
        for t, name in enumerate(TOPICS)
        for n in range(5)
    ]
    tagger = Tagger(catalog)
    with Session(engine) as session:
        sync_catalog(session, catalog=catalog, tagger=tagger, now=NOW)
        ingest_records(session, records, tagger=tagger, catalog=catalog, now=NOW)
        session.commit()


def enqueue_everywhere(engine, catalog: Catalog, adapter: DiscordAdapter, count: int) -> int:
    """One weekly delivery per channel, rendered once as the scheduler would; returns parts."""
    slugs = [catalog.resolve(name).slug for name in TOPICS]
    with Session(engine, expire_on_commit=False) as session:
        topic_ids = {slug: row.id for slug, row in repo.topic_rows(session).items()}
        first = _channel(session, FIRST_CHANNEL_ID)
        for slug in slugs:
            channels.follow(session, first, topic_ids[slug], now=NOW)
        commands = CommandService(lambda: session, catalog, clock=lambda: NOW)
        digest = commands.digest_for(session, first.id, now=NOW)
        parts = adapter.render_digest(digest, title="Weekly digest")
        for n in range(count):
            channel = first if n == 0 else _channel(session, FIRST_CHANNEL_ID + n)
            deliveries.enqueue(
                session,
                channel_id=channel.id,
                kind="weekly",
                period_key="2026-W40",
                parts=parts,
                paper_count=digest.paper_count,
                now=NOW,
            )
        session.commit()
    return len(parts)


def _channel(session: Session, chat_id: int):
    return channels.get_or_create_channel(
        session,
        platform="discord",
        chat_id=str(chat_id),
        kind="group",
        guild_id=str(GUILD_ID),
        now=NOW,
    )


# --- the fake Discord, in a process of its own (Discord is remote; it gets no share of ours) ---


def serve_fake(count: int, conn: Connection) -> None:
    """Child process: run the fake; answer "mark" with its 429 count, "report" with results."""
    logging.basicConfig(level=logging.ERROR)
    asyncio.run(_serve_fake(count, conn))


async def _serve_fake(count: int, conn: Connection) -> None:
    async with fake_with_channels(count) as fake:
        conn.send({"api_url": fake.api_url, "gateway_url": fake.gateway_url, "token": fake.token})
        while await asyncio.to_thread(conn.recv) == "mark":
            conn.send(fake.stats.rate_limited)
        sent = [len(fake.messages(FIRST_CHANNEL_ID + n)) for n in range(count)]
        conn.send({"rate_limited": fake.stats.rate_limited, "sent": sent})


async def one_run(count: int, catalog: Catalog, pace: bool, folder: Path, fake) -> RunResult:
    """One fan-out through the real adapter; `fake` is a pipe to the fake's process."""
    engine = open_engine(f"sqlite:///{folder / f'fanout-{time.monotonic_ns()}.db'}")
    upgrade_schema(engine)
    seed_store(engine, catalog)

    where = fake.recv()
    settings = Settings(
        _env_file=None,
        database_url=engine.url.render_as_string(hide_password=False),
        discord_token=SecretStr(where["token"]),
        discord_api_url=where["api_url"],
        discord_gateway_url=where["gateway_url"],
    )
    app = build_app(settings, migrate=False, clock=lambda: NOW)
    dispatcher = app.usecases.dispatcher
    adapter = DiscordAdapter(settings, app.usecases, guild_ready_timeout=0.1)
    if not pace:
        dispatcher.paces["discord"] = None
    app.usecases.add_platform(adapter)
    parts = enqueue_everywhere(engine, catalog, adapter, count)
    await adapter.start()
    try:
        # Let the login and sync requests' window pass, so the run starts on a fresh one.
        await asyncio.sleep(1.1)
        fake.send("mark")
        limited_before = fake.recv()
        started = time.perf_counter()
        await dispatcher.drain()
        seconds = time.perf_counter() - started
    finally:
        await adapter.stop()
        app.close()
    fake.send("report")
    report = fake.recv()
    engine.dispose()
    got = report["sent"]
    return RunResult(
        messages=sum(got),
        seconds=seconds,
        rate_limited=report["rate_limited"] - limited_before,
        lost=sum(max(0, parts - n) for n in got),
        duplicated=sum(max(0, n - parts) for n in got),
        parts=parts,
    )


def run_against_fake(count: int, catalog: Catalog, pace: bool, folder: Path) -> RunResult:
    ours, theirs = multiprocessing.Pipe()
    server = multiprocessing.get_context("spawn").Process(target=serve_fake, args=(count, theirs))
    server.start()
    try:
        return asyncio.run(one_run(count, catalog, pace, folder, ours))
    finally:
        server.join(timeout=10)
        if server.is_alive():
            server.terminate()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--channels", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-pace", action="store_true", help="no RequestPace in the dispatcher")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    catalog = Catalog.load()
    allowed = RateLimits().global_limit / RateLimits().global_window
    results = []
    with tempfile.TemporaryDirectory(prefix="digestbot-fanout-") as folder:
        for run in range(1, args.runs + 1):
            result = run_against_fake(args.channels, catalog, not args.no_pace, Path(folder))
            results.append(result)
            print(
                f"run {run}: {result.messages:,} messages ({result.parts} per channel) in "
                f"{result.seconds:.2f} s = {result.rate:.1f}/s; 429s {result.rate_limited}; "
                f"lost {result.lost}; duplicated {result.duplicated}"
            )
    rate = statistics.median(r.rate for r in results)
    limited = statistics.median(r.rate_limited for r in results)
    lost = max(r.lost + r.duplicated for r in results)
    share = rate / allowed
    verdict = "OK" if share >= TARGET_SHARE and lost == 0 else "BELOW TARGET"
    print(
        f"median of {len(results)}: {rate:.1f} messages/s of {allowed:.0f} allowed "
        f"({share:.0%}); 429s {limited:.0f}; lost or duplicated {lost}; "
        f"pace {'off' if args.no_pace else 'on'} → {verdict}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
