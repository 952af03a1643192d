"""`digestbot run` as a process of its own, against a database the test prepared and the fake
chat servers: the crash, replica, instance and secrets tests share these."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import func, select
from sqlmodel import Session

from bot.app import build_app
from bot.settings import load_settings
from digests.store import channels, repo
from digests.store.models import Delivery, DeliveryPart
from digests.usecases.ingest import ingest_records
from tests.fakes.telegram_server import FakeTelegram
from tests.papers import paper_record


def add_chats(
    database_url: str,
    chats,
    *,
    now: datetime,
    seed_papers: bool = False,
    platform: str = "telegram",
) -> None:
    """Private chats following one topic, each due five minutes ago; optionally a week of
    tagged papers for their digest."""
    app = build_app(load_settings(database_url=database_url), clock=lambda: now)
    app.usecases.sync_catalog()
    due = now - timedelta(minutes=5)
    with app.session() as session:
        if seed_papers:
            # Tagged two days ago: inside the period of a digest due five minutes ago, even
            # when that was before midnight (its period then ended the day before yesterday).
            records = [
                paper_record(
                    n,
                    now - timedelta(days=3),
                    arxiv_id=f"2611.{n:05d}",
                    title=f"Reinforcement learning for LLM agents with tool use, part {n}",
                    abstract="We train language model agents with reinforcement learning on "
                    "web tasks.",
                    authors=("Ada Lovelace", "Alan Turing"),
                )
                for n in range(1, 9)
            ]
            ingest_records(
                session,
                records,
                tagger=app.tagger,
                catalog=app.catalog,
                now=now - timedelta(days=2),
            )
        topic_id = repo.topic_rows(session)["rl-for-llm-agents"].id
        for chat in chats:
            channel = channels.get_or_create_channel(
                session,
                platform=platform,
                chat_id=str(chat),
                kind="private",
                now=now - timedelta(days=8),
            )
            channel.digest_weekday, channel.digest_time = due.weekday(), due.strftime("%H:%M")
            channels.follow(session, channel, topic_id, now=now - timedelta(days=8))
        session.commit()
    app.close()


def bot_env(database_url: str, telegram: FakeTelegram, **settings: str) -> dict:
    """`digestbot run`'s environment: this database, the fake Telegram, arXiv unreachable."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "TELEGRAM_TOKEN": telegram.token,
        "TELEGRAM_API_URL": telegram.api_url.removesuffix("/bot"),
        "ARXIV_API_URL": "http://127.0.0.1:9/api",
        "ARXIV_RSS_URL": "http://127.0.0.1:9",
        "LOG_LEVEL": "WARNING",
        **settings,
    }


def start_bot(env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "bot", "run"],
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )


def stored_parts(database_url: str) -> tuple[int, int]:
    app = build_app(load_settings(database_url=database_url), migrate=False)
    with Session(app.engine) as session:
        parts = session.execute(select(func.count()).select_from(DeliveryPart)).scalar_one()
        deliveries = session.execute(select(func.count()).select_from(Delivery)).scalar_one()
    app.close()
    return deliveries, parts
