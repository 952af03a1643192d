"""Optional HTTP endpoint (HEALTH_PORT): `/healthz` for probes, `/metrics` for Prometheus."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable

from aiohttp import web
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric

from bot.metrics import OUTCOMES, Metrics
from digests.health import first_line
from digests.usecases.status import Status


class _Snapshot:
    """A Prometheus collector over the runtime's numbers and a status read at scrape time."""

    def __init__(self, metrics: Metrics, status: Status, *, leader: bool) -> None:
        self.metrics, self.status, self.leader = metrics, status, leader

    def collect(self) -> list[Metric]:
        metrics, status = self.metrics, self.status
        deliveries = CounterMetricFamily(
            "digestbot_deliveries", "Delivery outcomes", labels=["outcome"]
        )
        for outcome in OUTCOMES:
            deliveries.add_metric([outcome], metrics.deliveries[outcome])
        shares = GaugeMetricFamily(
            "digestbot_send_share",
            "This replica's share of the platform's per-bot send limit (1/n for n replicas)",
            labels=["platform"],
        )
        for platform, share in sorted(metrics.send_share.items()):
            shares.add_metric([platform], share)
        found = [
            CounterMetricFamily(
                "digestbot_papers_ingested",
                "New papers stored by ingest",
                value=metrics.papers_ingested,
            ),
            deliveries,
            CounterMetricFamily(
                "digestbot_parts_sent", "Messages sent to chats", value=metrics.parts_sent
            ),
            GaugeMetricFamily(
                "digestbot_queue_depth", "Deliveries waiting to be sent", value=status.queue_depth
            ),
            GaugeMetricFamily(
                "digestbot_scheduler_leader",
                "1 when this replica runs the scheduled jobs",
                value=1 if self.leader else 0,
            ),
            shares,
        ]
        if status.last_ingest:
            found.append(
                GaugeMetricFamily(
                    "digestbot_last_successful_ingest_timestamp_seconds",
                    "When the last ingest succeeded",
                    value=status.last_ingest.timestamp(),
                )
            )
        return found


def prometheus_text(metrics: Metrics, status: Status, *, leader: bool) -> bytes:
    registry = CollectorRegistry()
    registry.register(_Snapshot(metrics, status, leader=leader))
    return generate_latest(registry)


STATUS_REFRESH = 5.0  # seconds between two reads of the status behind /healthz


class HealthSnapshot:
    """The status read in a worker thread every `refresh` seconds, so /healthz answers from
    memory, in the event loop, however busy the database or the worker threads are."""

    def __init__(self, status: Callable[..., Status], refresh: float = STATUS_REFRESH) -> None:
        self.status, self.refresh = status, refresh
        self.facts: dict = {}
        self.error: str | None = "the status has not been read yet"

    async def read(self) -> None:
        try:
            self.facts = (await asyncio.to_thread(self.status, upcoming=1)).to_json()
            self.error = None
        except Exception as exc:  # the probe reports any failure instead of crashing
            self.error = f"the database cannot be read: {first_line(exc)}"

    async def keep_reading(self, app: web.Application) -> AsyncIterator[None]:
        """An aiohttp cleanup context: the first read before the server answers."""
        await self.read()

        async def loop() -> None:
            while True:
                await asyncio.sleep(self.refresh)
                await self.read()

        task = asyncio.create_task(loop())
        yield
        task.cancel()


def health_app(
    metrics: Metrics,
    status: Callable[..., Status],
    leader: Callable[[], bool],
    app: web.Application | None = None,
    *,
    problems: Callable[[], list[str]] = list,
    refresh: float = STATUS_REFRESH,
) -> web.Application:
    """`status` is the status use case (`UseCases.status`), `problems` what degrades the bot
    (`digests.health.problems` of the runtime's facts); the routes are added to `app` (the
    topic pages, when they share the port) or to an application of their own."""
    snapshot = HealthSnapshot(status, refresh)

    async def healthz(request: web.Request) -> web.Response:
        found = problems() + ([snapshot.error] if snapshot.error else [])
        body = {"status": "degraded" if found else "ok", "leader": leader(), **snapshot.facts}
        if found:
            body["problems"] = found
        return web.Response(
            text=json.dumps(body),
            status=503 if found else 200,
            content_type="application/json",
        )

    async def metrics_page(request: web.Request) -> web.Response:
        current = await asyncio.to_thread(status, upcoming=1)
        body = prometheus_text(metrics, current, leader=leader())
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    app = app if app is not None else web.Application()
    app.cleanup_ctx.append(snapshot.keep_reading)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics_page)
    return app
