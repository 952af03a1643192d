"""Operations: `digestbot status` and the /healthz and /metrics endpoint."""

from __future__ import annotations

from datetime import UTC, datetime

import aiohttp
from sqlmodel import Session

from bot.health import health_app
from bot.http_server import start_web_server
from bot.metrics import Metrics
from digests.store import channels, deliveries, repo
from digests.store.models import Topic
from digests.usecases.status import read_status

NOW = datetime(2026, 9, 25, 12, tzinfo=UTC)  # a Friday


def seed(engine) -> None:
    with Session(engine) as session:
        repo.save_state(session, "rss:cs.LG", {}, now=NOW, success=True)
        berlin = channels.get_or_create_channel(session, platform="telegram", chat_id="1", now=NOW)
        berlin.timezone = "Europe/Berlin"
        blocked = channels.get_or_create_channel(session, platform="telegram", chat_id="2", now=NOW)
        topic = Topic(slug="rl", name="RL")
        session.add(topic)
        session.flush()
        for channel in (berlin, blocked):
            channels.follow(session, channel, topic.id, now=NOW)
        channels.pause(session, blocked.id, "bot was blocked by the user", now=NOW)
        deliveries.enqueue(
            session,
            channel_id=berlin.id,
            kind="weekly",
            period_key="2026-09-21",
            parts=[{"text": "x"}],
            now=NOW,
        )
        session.commit()


def test_status_reports_ingest_queue_paused_channels_and_next_digest(engine):
    seed(engine)
    with Session(engine) as session:
        status = read_status(session, now=NOW)
    assert status.last_ingest == NOW and status.queue_depth == 1
    assert status.paused == [("telegram", "2", "bot was blocked by the user")]
    # Monday 09:00 in Berlin (summer time) is 07:00 UTC; the paused channel is not counted.
    assert status.next_due == [(datetime(2026, 9, 28, 7, tzinfo=UTC), 1)]
    assert "deliveries waiting: 1" in "\n".join(status.lines())


async def test_health_and_metrics_are_served(engine, make_app, unused_tcp_port):
    seed(engine)
    metrics = Metrics(papers_ingested=42)
    status = make_app(engine, clock=lambda: NOW).usecases.status
    app = health_app(metrics, status, lambda: True)
    runner = await start_web_server(app, "127.0.0.1", unused_tcp_port)
    base = f"http://127.0.0.1:{unused_tcp_port}"
    try:
        async with aiohttp.ClientSession() as client:
            async with client.get(f"{base}/healthz") as response:
                health = await response.json()
                assert response.status == 200
            async with client.get(f"{base}/metrics") as response:
                text = await response.text()
    finally:
        await runner.cleanup()
    assert health["status"] == "ok" and health["queue_depth"] == 1 and health["leader"]
    assert "digestbot_papers_ingested_total 42.0" in text
    assert "digestbot_queue_depth 1.0" in text
