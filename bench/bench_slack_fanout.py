"""Fan-out of one weekly digest to many Slack channels, against Slack's per-channel limit.

    .venv/bin/python bench/bench_slack_fanout.py [--channels 100] [--runs 3] [--speed 1]

The real adapter (slack-sdk's AsyncWebClient, the adapter's pacing) and the real Dispatcher
send stored deliveries to the fake Slack on 127.0.0.1, which allows one message a second in
each channel (chat.postMessage and shared files alike) and 100 uploads a minute in the
workspace (Tier 4), answering 429 with Retry-After over either. Each channel gets a digest of
2-4 parts: its chart (files_upload_v2), then one to three Block Kit messages; the uploads'
tier, not the channels, sets how long a broadcast with charts takes. Prints, per run and as
the median of the runs, the posts a second each channel received against the allowed one (the
median over channels of parts after the first over the time from its first to its last), the
posts a second overall, the 429s the fake answered and the parts lost (missing, duplicated or
out of order). `--speed N` runs the limits N times faster (a quick check only). The budget: at
least 95% of the per-channel limit, no 429, nothing lost.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_telegram_fanout import NOW, SIZES, digests_by_size
from pydantic import SecretStr
from sqlmodel import Session

from bot.app import build_app
from bot.platforms.slack import CHANNEL_GAP, UPLOADS_PER_MINUTE, SlackAdapter
from bot.platforms.slack_render import file_comment, render_digest
from bot.settings import Settings
from digests.delivery.pacing import RequestPace
from digests.messages.chart_spec import CHART_KEY
from digests.store import channels, deliveries
from digests.store.engine import open_engine, upgrade_schema
from tests.fakes.slack_server import TIER_4, FakeSlack, Rate

ALLOWED_PER_SECOND = 1.0  # Slack's chat.postMessage limit in one channel


@dataclass
class RunResult:
    parts: int
    seconds: float
    per_channel: float  # median posts/s a channel received
    allowed: float
    floods: int
    lost: int

    @property
    def share(self) -> float:
        return self.per_channel / self.allowed


def channel_plan(count: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    return {f"C{n:07d}": rng.choice(SIZES) for n in range(count)}


async def run_once(args: argparse.Namespace, seed: int) -> RunResult:
    sizes = digests_by_size(render_digest)
    plan = channel_plan(args.channels, seed)
    with tempfile.TemporaryDirectory() as folder:
        engine = open_engine(f"sqlite:///{folder}/bench.db")
        upgrade_schema(engine)
        try:
            return await fan_out(args, engine, plan, sizes)
        finally:
            engine.dispose()


def store(engine, plan: dict[str, int], sizes: dict[int, list[dict]]) -> None:
    with Session(engine) as session:
        for chat_id, size in plan.items():
            channel = channels.get_or_create_channel(
                session, platform="slack", chat_id=chat_id, now=NOW
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


async def fan_out(args, engine, plan: dict[str, int], sizes: dict[int, list[dict]]) -> RunResult:
    store(engine, plan, sizes)
    rate, uploads = Rate().scaled(args.speed), TIER_4.scaled(args.speed)
    async with FakeSlack(rate=rate, uploads=uploads, retry_unit=1 / args.speed) as slack:
        for chat_id in plan:
            slack.add_channel(chat_id, chat_id.lower())
        settings = Settings(
            _env_file=None,
            database_url=engine.url.render_as_string(hide_password=False),
            slack_bot_token=SecretStr(slack.bot_token),
            slack_api_url=slack.api_url,
        )
        app = build_app(settings, migrate=False, clock=lambda: NOW)
        app.usecases.dispatcher.concurrency = args.concurrency
        upload_pace = RequestPace(UPLOADS_PER_MINUTE / 60 * args.speed, window=60 / args.speed)
        adapter = SlackAdapter(
            settings, app.usecases, channel_gap=CHANNEL_GAP / args.speed, uploads=upload_pace
        )
        app.usecases.add_platform(adapter)
        await adapter.start()  # sends only: neither an app token nor a signing secret
        try:
            started = time.monotonic()
            await app.usecases.dispatcher.drain()
            seconds = time.monotonic() - started
        finally:
            await adapter.stop()
            app.close()
        rates, lost = [], 0
        for chat_id, size in plan.items():
            got = slack.sent[chat_id]
            lost += count_lost(got, sizes[size])
            if len(got) > 1:
                rates.append((len(got) - 1) / (got[-1]["at"] - got[0]["at"]))
        allowed = ALLOWED_PER_SECOND * args.speed
        parts = sum(plan.values())
        return RunResult(parts, seconds, statistics.median(rates), allowed, slack.flood_count, lost)


def count_lost(got: list[dict], wanted: list[dict]) -> int:
    """Parts missing, doubled or out of place: each record compared with the part at its place."""
    seen = [r["initial_comment"] if r["method"] == "file" else r["blocks"] for r in got]
    expected = [file_comment(p) if CHART_KEY in p else p["blocks"] for p in wanted]
    mismatched = sum(a != b for a, b in zip(seen, expected, strict=False))
    return abs(len(seen) - len(expected)) + mismatched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--speed", type=float, default=1.0, help="the limit N times faster")
    parser.add_argument("--concurrency", type=int, default=32, help="Dispatcher workers")
    args = parser.parse_args()

    results = []
    for run in range(1, args.runs + 1):
        result = asyncio.run(run_once(args, seed=run))
        results.append(result)
        print(
            f"run {run}: {result.parts} parts to {args.channels} channels in "
            f"{result.seconds:.1f} s ({result.parts / result.seconds:.1f} posts/s overall): "
            f"{result.per_channel:.3f} posts/s per channel of {result.allowed:g} allowed "
            f"({100 * result.share:.1f}%), 429s: {result.floods}, lost: {result.lost}",
            flush=True,
        )
    share = statistics.median(r.share for r in results)
    print(
        f"median: {statistics.median(r.per_channel for r in results):.3f} posts/s per channel "
        f"of {results[0].allowed:g} allowed ({100 * share:.1f}% of the limit), "
        f"429s: {statistics.median(r.floods for r in results):.0f}, "
        f"lost: {max(r.lost for r in results)} (budget: >= 95%, 0 lost)"
    )


if __name__ == "__main__":
    main()
