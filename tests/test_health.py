"""Health that tells the truth: a store that cannot be written gets users a reply instead of
silence and makes /healthz answer 503 with the reason; leader jobs failing again and again, a
platform unreachable beyond its retry window, likewise; /healthz answers from memory while the
pages' threads are all busy."""

from __future__ import annotations

import asyncio
import io
import threading
import time
from datetime import UTC, datetime, timedelta

import aiohttp
import pytest
from sqlalchemy.exc import InternalError, OperationalError

from bot.health import health_app
from bot.http_server import start_web_server
from bot.metrics import Metrics
from bot.platforms.terminal import TerminalAdapter
from bot.runner import Runtime
from bot.web import PageReaders, web_app
from digests.health import STORE_TROUBLE, HealthFacts, problems
from digests.usecases.commands import Caller
from tests.fakes.store_faults import read_only
from tests.waiting import wait_until

NOW = datetime(2026, 9, 25, 12, tzinfo=UTC)
PRIVATE = Caller(platform="telegram", chat_id="42", chat_kind="private")




async def get_health(base: str) -> tuple[int, dict]:
    async with aiohttp.ClientSession() as client, client.get(f"{base}/healthz") as answer:
        return answer.status, await answer.json()


async def test_a_store_that_cannot_be_written_gets_a_reply_and_health_says_why(
    engine, make_app, unused_tcp_port
):
    app = make_app(engine, clock=lambda: NOW)
    usecases = app.usecases
    app_problems = lambda: problems(usecases.health, now=NOW)  # noqa: E731
    health = health_app(Metrics(), usecases.status, lambda: True, problems=app_problems)
    runner = await start_web_server(health, "127.0.0.1", unused_tcp_port)
    base = f"http://127.0.0.1:{unused_tcp_port}"
    try:
        with read_only(app.engine):
            reply = await asyncio.to_thread(
                usecases.commands.handle, PRIVATE, "follow", "RL for LLM Agents"
            )
            degraded = await get_health(base)
        again = await asyncio.to_thread(
            usecases.commands.handle, PRIVATE, "follow", "RL for LLM Agents"
        )
        healthy = await get_health(base)
    finally:
        await runner.cleanup()
    assert not reply.ok and reply.text == f"Sorry: {STORE_TROUBLE}."
    status, body = degraded
    assert status == 503 and body["status"] == "degraded"
    (problem,) = body["problems"]
    assert problem.startswith("the store cannot be written: ")
    assert "[SQL" not in problem and "\n" not in problem
    assert again.ok and again.text.startswith("Following RL for LLM Agents.")
    assert healthy[0] == 200 and healthy[1]["status"] == "ok"


def test_leader_jobs_failing_again_and_again_and_a_platform_down_too_long_are_problems():
    facts = HealthFacts()
    for _ in range(2):
        facts.job_failed("lead", "database is locked")
    facts.platform_down("telegram", "Bad Gateway", now=NOW)
    assert problems(facts, now=NOW + timedelta(minutes=9)) == []  # hiccups, retried

    facts.job_failed("lead", "database is locked")
    facts.platform_down("telegram", "Bad Gateway", now=NOW + timedelta(minutes=5))
    assert problems(facts, now=NOW + timedelta(minutes=10)) == [
        "the lead job failed 3 times in a row: database is locked",
        "telegram unreachable for 10 min: Bad Gateway",
    ]
    facts.job_done("lead")
    facts.platform_up("telegram")
    assert problems(facts, now=NOW + timedelta(minutes=11)) == []


class BlockedPages:
    """Pages whose every read waits until the test lets it go, holding a page thread."""

    def __init__(self) -> None:
        self.go = threading.Event()

    def index(self, **_):
        self.go.wait(10)
        return []


async def test_a_burst_of_page_requests_gets_503_and_health_still_answers_at_once(
    engine, make_app, unused_tcp_port
):
    """Tried: three page requests against one page thread and room for two; /healthz
    asked while the pages' thread is held."""
    pages = BlockedPages()
    readers = PageReaders(threads=1, backlog=2)
    app = web_app(pages, clock=lambda: NOW, readers=readers)
    usecases = make_app(engine, clock=lambda: NOW).usecases
    health_app(Metrics(), usecases.status, lambda: True, app)  # one port, as in production
    runner = await start_web_server(app, "127.0.0.1", unused_tcp_port)
    base = f"http://127.0.0.1:{unused_tcp_port}"
    try:
        async with aiohttp.ClientSession() as client:

            async def index() -> tuple[int, str | None]:
                async with client.get(f"{base}/") as answer:
                    return answer.status, answer.headers.get("Retry-After")

            held = [asyncio.create_task(index()) for _ in range(2)]
            assert await wait_until(lambda: readers.in_hand == 2, 5)
            refused = await index()
            asked = time.monotonic()
            status, _ = await get_health(base)
            health_took = time.monotonic() - asked
            pages.go.set()
            answered = await asyncio.gather(*held)
    finally:
        await runner.cleanup()
    assert refused == (503, "5")
    assert answered == [(200, None), (200, None)]
    assert status == 200 and health_took < 1.0


def test_status_says_when_the_store_cannot_be_written(engine, make_app):
    app = make_app(engine, clock=lambda: NOW)
    with read_only(app.engine):
        refused = app.usecases.status(try_writing=True)
    written = app.usecases.status(try_writing=True)
    assert refused.lines()[0].startswith("store: cannot be written: ")
    assert refused.to_json()["store_problem"] and written.store_problem is None
    assert not written.lines()[0].startswith("store:")


async def test_the_lead_job_failing_three_times_on_a_read_only_store_degrades_health(
    engine, make_app
):
    app = make_app(engine, clock=lambda: NOW)
    runtime = Runtime(app, adapters=[TerminalAdapter(io.StringIO())])
    with read_only(app.engine):
        for _ in range(3):
            with pytest.raises((OperationalError, InternalError)):
                await runtime.lead()
    (problem,) = problems(app.usecases.health, now=NOW)
    assert problem.startswith("the lead job failed 3 times in a row: ")
    await runtime.lead()  # the store is back: the next tick mends it
    assert problems(app.usecases.health, now=NOW) == []

