"""Fan-out of one weekly digest to many Telegram chats, against Telegram's real flood limits.

    .venv/bin/python bench/bench_telegram_fanout.py [--chats 1000] [--runs 3] [--speed 1]

The real adapter (python-telegram-bot with its AIORateLimiter) and the real Dispatcher send
stored deliveries to the fake Bot API on 127.0.0.1, which enforces 30 messages/s overall,
20/min per group and 1/s per private chat (3 at once). Chats are a mix of private chats and
groups; each gets a digest of 2-4 parts (its chart as a photo, then 1-3 messages). Prints, per
run and as the median of the runs, the achieved rate against the allowed 30 messages/s, the
share of the limit used (the shortest time the limit allows, after its initial burst of 30,
over the time taken), the 429s the fake answered and the parts lost (missing or duplicated).
`--speed N` runs every limit N times faster (a quick check only). The budget: at least 90% of
the limit, nothing lost.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import SecretStr
from sqlmodel import Session

from bot.app import build_app
from bot.platforms.telegram import TelegramAdapter, TelegramSender, telegram_rate_limiter
from bot.platforms.telegram_render import render_digest
from bot.settings import Settings
from digests.delivery.pacing import RequestPace
from digests.messages.digest import DigestPaper, TopicRef, compose_digest
from digests.papers.records import abs_url
from digests.signals.momentum import compute_momentum
from digests.store import channels, deliveries
from digests.store.engine import open_engine, upgrade_schema
from tests.fakes.telegram_server import FakeTelegram, FloodLimits, sent_text

NOW = datetime(2026, 9, 28, 9, 0, tzinfo=UTC)
ALLOWED_PER_SECOND = 30  # Telegram's overall limit for a bot
TOPIC = TopicRef("rl-for-llm-agents", "RL for LLM Agents")
SIZES = (2, 3, 4)  # parts of a digest: the chart, then one to three messages


@dataclass
class RunResult:
    parts: int
    seconds: float
    allowed: float  # messages/s
    floods: int
    lost: int

    @property
    def rate(self) -> float:
        return self.parts / self.seconds

    @property
    def efficiency(self) -> float:
        """The shortest time the limit allows (its burst of 30 first) over the time taken."""
        return max(self.parts - ALLOWED_PER_SECOND, 0) / self.allowed / self.seconds


def digests_by_size(render=render_digest) -> dict[int, list[dict]]:
    """Digests of 2, 3 and 4 parts (the chart, then 1-3 messages) as `render` writes them,
    made of synthetic papers; the Slack bench renders them in Block Kit."""
    as_of = NOW.date()
    counts = {as_of - timedelta(days=n): 4 for n in range(0, 84, 7)}
    momenta = {TOPIC.slug: compute_momentum(TOPIC.name, counts, {as_of: 900}, as_of)}
    found: dict[int, list[dict]] = {}
    for papers in range(1, 80):
        digest = compose_digest(
            [TOPIC],
            [paper(n, as_of) for n in range(papers)],
            momenta,
            as_of - timedelta(days=6),
            as_of,
            per_topic_cap=100,
        )
        parts = render(digest, title="Weekly digest")
        found.setdefault(len(parts), parts)
        if len(found) >= 3:
            break
    return {size: found[size] for size in SIZES}


def paper(n: int, as_of: date) -> DigestPaper:
    arxiv_id = f"2609.{n:05d}"
    return DigestPaper(
        arxiv_id=arxiv_id,
        title=f"Turn-level credit assignment for long-horizon web agents, study {n}",
        url=abs_url(arxiv_id),
        authors=("Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"),
        published=as_of,
        primary_category="cs.LG",
        abstract="We train web agents with reinforcement learning and turn-level rewards. " * 3,
        scores={TOPIC.slug: 1.0 - n / 1000},
    )


def chat_plan(chats: int, seed: int) -> dict[int, int]:
    """Chat id -> number of parts: 60% private chats, 40% groups, 1-3 parts each."""
    rng = random.Random(seed)
    plan = {}
    for n in range(chats):
        chat_id = 100_000 + n if rng.random() < 0.6 else -1_000_000_000 - n
        plan[chat_id] = rng.choice(SIZES)
    return plan


async def run_once(args: argparse.Namespace, seed: int) -> RunResult:
    sizes = digests_by_size()
    plan = chat_plan(args.chats, seed)
    with tempfile.TemporaryDirectory() as folder:
        engine = open_engine(f"sqlite:///{folder}/bench.db")
        upgrade_schema(engine)
        try:
            return await fan_out(args, engine, plan, sizes)
        finally:
            engine.dispose()


async def fan_out(args, engine, plan: dict[int, int], sizes: dict[int, list[dict]]) -> RunResult:
    def session_factory() -> Session:
        return Session(engine, expire_on_commit=False)

    with session_factory() as session:
        for chat_id, size in plan.items():
            channel = channels.get_or_create_channel(
                session, platform="telegram", chat_id=str(chat_id), now=NOW
            )
            deliveries.enqueue(
                session,
                channel_id=channel.id,
                kind="weekly",
                period_key="2026-W40",
                parts=sizes[size],
                now=NOW,
            )
        session.commit()

    async with FakeTelegram(flood=FloodLimits().scaled(args.speed)) as tg:
        for chat_id in plan:
            tg.add_chat(chat_id)
        settings = Settings(
            database_url=engine.url.render_as_string(hide_password=False),
            telegram_token=SecretStr(tg.token),
            telegram_api_url=tg.base_url,
        )
        app = build_app(settings, migrate=False, clock=lambda: NOW)
        dispatcher = app.usecases.dispatcher
        dispatcher.concurrency = args.concurrency
        dispatcher.paces["telegram"] = RequestPace(TelegramSender.sends_per_second * args.speed)
        adapter = TelegramAdapter(
            settings, app.usecases, rate_limiter=telegram_rate_limiter(args.speed)
        )
        app.usecases.add_platform(adapter)
        await adapter.start()
        try:
            started = time.monotonic()
            await dispatcher.drain()
            seconds = time.monotonic() - started
        finally:
            await adapter.stop()
            app.close()
        lost = 0
        for chat_id, size in plan.items():
            got = [sent_text(record) for record in tg.sent(chat_id)]
            wanted = [part["text"] for part in sizes[size]]
            lost += abs(len(got) - len(wanted)) + sum(
                a != b for a, b in zip(got, wanted, strict=False)
            )
        parts = sum(plan.values())
        allowed = ALLOWED_PER_SECOND * args.speed
        return RunResult(parts, seconds, allowed, tg.flood_count, lost)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--speed", type=float, default=1.0, help="limits N times faster")
    parser.add_argument("--concurrency", type=int, default=32, help="Dispatcher workers")
    args = parser.parse_args()

    results = []
    for run in range(1, args.runs + 1):
        result = asyncio.run(run_once(args, seed=run))
        results.append(result)
        print(
            f"run {run}: {result.parts} parts to {args.chats} chats in {result.seconds:.1f} s: "
            f"{result.rate:.1f} msgs/s of {result.allowed:.0f} allowed "
            f"({100 * result.efficiency:.0f}% of the limit), 429s: {result.floods}, "
            f"lost: {result.lost}",
            flush=True,
        )
    rate = statistics.median(r.rate for r in results)
    efficiency = statistics.median(r.efficiency for r in results)
    allowed = results[0].allowed
    print(
        f"median: {rate:.1f} msgs/s of {allowed:.0f} allowed ({100 * efficiency:.0f}% of the "
        "limit), "
        f"429s: {statistics.median(r.floods for r in results):.0f}, "
        f"lost: {max(r.lost for r in results)} (budget: >= 90%, 0 lost)"
    )


if __name__ == "__main__":
    main()
