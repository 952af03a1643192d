"""Benchmark: deciding which of 100,000 channels are due for their weekly digest right now.

    .venv/bin/python bench/bench_dispatch.py [--channels 100000] [--repeats 5]
    DIGESTBOT_BENCH_POSTGRES_URL=postgresql+psycopg://... .venv/bin/python bench/bench_dispatch.py
    .venv/bin/python bench/bench_dispatch.py --keep /tmp/dispatch-stores   # build once, reuse

Builds a store of channels with random schedules (weekday, time, one of 40 timezones), each
following one to three topics, most with last week's period already stored, then times
`digests.usecases.digest_planning.due_channels` (the distinct schedules, their current
periods worked out in Python, and one query for the channels whose period is not stored yet)
and prints the median.
Then the same for a store where every one of the 100,000 channels is due now (its schedule
fell in the last hour, in its zone, and nothing is stored yet), the moment of a broadcast; on
PostgreSQL it lives in a sibling database, `<name>_all_due`. Target: under 1 s for 100,000
channels.

By default every store is built from scratch (a minute or so at 100,000 channels). With
`--keep DIR`, the SQLite stores are kept in DIR and the PostgreSQL one is left in place, and
later runs reuse whichever already holds the right number of channels.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import insert, make_url, text
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from digests.delivery.due import last_occurrence
from digests.store.engine import open_engine, upgrade_schema
from digests.store.models import Channel, Delivery, Follow, Topic
from digests.usecases.digest_planning import due_channels

ZONES = [
    "UTC",
    "Europe/London",
    "Europe/Berlin",
    "Europe/Paris",
    "Europe/Madrid",
    "Europe/Rome",
    "Europe/Warsaw",
    "Europe/Helsinki",
    "Europe/Moscow",
    "Europe/Istanbul",
    "Asia/Dubai",
    "Asia/Kolkata",
    "Asia/Shanghai",
    "Asia/Tokyo",
    "Asia/Seoul",
    "Asia/Singapore",
    "Asia/Jakarta",
    "Asia/Tehran",
    "Asia/Jerusalem",
    "Australia/Sydney",
    "Australia/Perth",
    "Pacific/Auckland",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "America/Toronto",
    "America/Vancouver",
    "America/Mexico_City",
    "America/Sao_Paulo",
    "America/Bogota",
    "America/Lima",
    "America/Santiago",
    "America/Argentina/Buenos_Aires",
    "Africa/Cairo",
    "Africa/Lagos",
    "Africa/Nairobi",
    "Africa/Johannesburg",
    "Asia/Bangkok",
    "Asia/Manila",
]
NOW = datetime(2026, 9, 28, 9, 30, tzinfo=UTC)


def prepare(url: str, channels: int, *, reuse: bool, all_due: bool = False) -> None:
    """An empty store filled by `build`, unless `reuse` and it holds these channels already."""
    if reuse and _channel_count(url) == channels:
        return
    database = make_url(url).database
    if url.startswith("sqlite"):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{database}{suffix}").unlink(missing_ok=True)
    else:
        engine = open_engine(url)
        with engine.begin() as connection:
            connection.execute(text("DROP SCHEMA public CASCADE"))
            connection.execute(text("CREATE SCHEMA public"))
        engine.dispose()
    build(url, channels, all_due=all_due)


def _channel_count(url: str) -> int:
    engine = open_engine(url)
    try:
        with engine.connect() as connection:
            return connection.execute(text("SELECT count(*) FROM channel")).scalar_one()
    except DBAPIError:
        return 0
    finally:
        engine.dispose()


def any_schedule(rng: random.Random) -> dict:
    return {
        "timezone": rng.choice(ZONES),
        "digest_weekday": rng.randrange(7),
        "digest_time": f"{rng.randrange(24):02d}:{rng.choice(['00', '15', '30', '45'])}",
    }


def due_within_the_hour(rng: random.Random) -> dict:
    """A schedule whose latest time, in its zone, fell in the hour before NOW."""
    zone = rng.choice(ZONES)
    local = (NOW - timedelta(minutes=rng.randrange(60))).astimezone(ZoneInfo(zone))
    minute = local.minute - local.minute % 15
    return {
        "timezone": zone,
        "digest_weekday": local.weekday(),
        "digest_time": f"{local.hour:02d}:{minute:02d}",
    }


def build(url: str, channels: int, *, all_due: bool = False, seed: int = 7) -> None:
    rng = random.Random(seed)
    engine = open_engine(url)
    upgrade_schema(engine)
    with engine.begin() as connection:
        connection.execute(
            insert(Topic),
            [
                {
                    "slug": f"topic-{n}",
                    "name": f"Topic {n}",
                    "description": "",
                    "parents": [],
                    "rules_hash": "",
                }
                for n in range(1, 41)
            ],
        )
        pick = due_within_the_hour if all_due else any_schedule
        rows = [
            {
                "id": n,
                "platform": rng.choice(["telegram", "discord"]),
                "chat_id": str(n),
                "thread_id": "",
                "kind": "group",
                "guild_id": "",
                "title": "",
                **pick(rng),
                "alerts_enabled": True,
                "alert_role_id": "",
                "created_at": NOW - timedelta(days=30),
            }
            for n in range(1, channels + 1)
        ]
        connection.execute(insert(Channel), rows)
        follows = [
            {
                "channel_id": n,
                "topic_id": topic,
                "mode": "weekly",
                "created_at": NOW - timedelta(days=30),
            }
            for n in range(1, channels + 1)
            for topic in rng.sample(range(1, 41), rng.randint(1, 3))
        ]
        connection.execute(insert(Follow), follows)
        # Steady state: the dispatcher ran an hour ago and stored every period due by then;
        # a few channels are new and have never received anything. All due: nothing stored.
        an_hour_ago = NOW - timedelta(hours=1)
        sent = [
            {
                "channel_id": row["id"],
                "kind": "weekly",
                "status": "sent",
                "paper_count": 5,
                "period_key": last_occurrence(
                    "weekly",
                    row["digest_weekday"],
                    row["digest_time"],
                    row["timezone"],
                    an_hour_ago,
                ).key,
                "attempts": 0,
                "created_at": an_hour_ago,
                "next_attempt_at": an_hour_ago,
            }
            for row in rows
            if not all_due and rng.random() < 0.98
        ]
        if sent:
            connection.execute(insert(Delivery), sent)
    if engine.dialect.name == "postgresql":  # as autovacuum leaves a running deployment
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("VACUUM ANALYZE"))
    engine.dispose()


def measure(url: str, repeats: int, horizon: timedelta | None) -> tuple[list[float], int, int]:
    engine = open_engine(url)
    timings, due, skipped = [], 0, 0
    for _ in range(repeats):
        with Session(engine) as session:
            started = time.perf_counter()
            decisions = due_channels(
                session,
                kind="weekly",
                platforms=["telegram", "discord"],
                now=NOW,
                horizon=horizon,
            )
            timings.append(time.perf_counter() - started)
        due, skipped = len(decisions.send), len(decisions.skip)
    engine.dispose()
    return timings, due, skipped


def report(label: str, url: str, channels: int, repeats: int, *, all_due: bool = False) -> None:
    # Every tick of a running leader looks at the last grace + 24 h; its first tick at all.
    ticks = [("every tick", timedelta(hours=48)), ("first tick", None)]
    for tick, horizon in ticks[:1] if all_due else ticks:
        timings, due, skipped = measure(url, repeats, horizon)
        tick = f"all due now, {tick}" if all_due else tick
        print(
            f"{label}, {tick}: {channels:,} channels -> {due:,} due, {skipped:,} missed; "
            f"median {statistics.median(timings):.3f} s (min {min(timings):.3f}, "
            f"max {max(timings):.3f}, {repeats} runs)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--keep", type=Path, metavar="DIR", help="keep the stores for later runs")
    args = parser.parse_args()
    reuse = args.keep is not None
    sizes = sorted({args.channels // 10, args.channels})
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        for size, all_due in [(size, False) for size in sizes] + [(args.channels, True)]:
            url = f"sqlite:///{folder}/dispatch-{size}{'-all-due' if all_due else ''}.db"
            prepare(url, size, reuse=reuse, all_due=all_due)
            report("sqlite", url, size, args.repeats, all_due=all_due)
    postgres = os.environ.get("DIGESTBOT_BENCH_POSTGRES_URL")
    if postgres:
        prepare(postgres, args.channels, reuse=reuse)
        report("postgresql", postgres, args.channels, args.repeats)
        all_due_url = sibling_database(postgres, "all_due")
        prepare(all_due_url, args.channels, reuse=reuse, all_due=True)
        report("postgresql", all_due_url, args.channels, args.repeats, all_due=True)


def sibling_database(url: str, suffix: str) -> str:
    """A database next to the one `url` names, on the same server (created if missing)."""
    parsed = make_url(url)
    sibling = parsed.set(database=f"{parsed.database}_{suffix}")
    engine = open_engine(url)
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        exists = connection.execute(
            text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": sibling.database}
        ).first()
        if not exists:
            connection.execute(text(f'CREATE DATABASE "{sibling.database}"'))
    engine.dispose()
    return sibling.render_as_string(hide_password=False)


if __name__ == "__main__":
    main()
