"""Optional HTTP endpoint (HEALTH_PORT): `/healthz` for probes, `/metrics` for Prometheus."""

from __future__ import annotations

import json
from collections.abc import Callable

from aiohttp import web
from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from digests.status import Status


class Metrics:
    """The counters the runtime updates; one registry per process (or per test)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.papers_ingested = Counter(
            "digestbot_papers_ingested", "New papers stored by ingest", registry=self.registry
        )
        self.deliveries = Counter(
            "digestbot_deliveries", "Delivery outcomes", ["outcome"], registry=self.registry
        )
        self.parts_sent = Counter(
            "digestbot_parts_sent", "Messages sent to chats", registry=self.registry
        )
        self.queue_depth = Gauge(
            "digestbot_queue_depth", "Deliveries waiting to be sent", registry=self.registry
        )
        self.last_ingest = Gauge(
            "digestbot_last_successful_ingest_timestamp_seconds",
            "When the last ingest succeeded",
            registry=self.registry,
        )
        self.is_leader = Gauge(
            "digestbot_scheduler_leader",
            "1 when this replica runs the scheduled jobs",
            registry=self.registry,
        )
        self.send_share = Gauge(
            "digestbot_send_share",
            "This replica's share of the platform's per-bot send limit (1/n for n replicas)",
            ["platform"],
            registry=self.registry,
        )

    def refresh(self, status: Status, *, leader: bool) -> dict:
        self.queue_depth.set(status.queue_depth)
        if status.last_ingest:
            self.last_ingest.set(status.last_ingest.timestamp())
        self.is_leader.set(1 if leader else 0)
        return status.to_json()


def health_app(
    metrics: Metrics,
    status: Callable[..., Status],
    leader: Callable[[], bool],
    app: web.Application | None = None,
) -> web.Application:
    """`status` is the status use case (`UseCases.status`); the routes are added to `app` (the
    topic pages, when they share the port) or to an application of their own."""

    async def healthz(request: web.Request) -> web.Response:
        try:
            found = metrics.refresh(status(upcoming=1), leader=leader())
        except Exception as exc:  # the probe reports any failure instead of crashing
            body = {"status": "error", "error": str(exc).splitlines()[0][:200]}
            return web.json_response(body, status=503)
        return web.Response(
            text=json.dumps({"status": "ok", "leader": leader(), **found}),
            content_type="application/json",
        )

    async def metrics_page(request: web.Request) -> web.Response:
        metrics.refresh(status(upcoming=1), leader=leader())
        return web.Response(
            body=generate_latest(metrics.registry), headers={"Content-Type": CONTENT_TYPE_LATEST}
        )

    app = app if app is not None else web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics_page)
    return app


async def start_health_server(app: web.Application, host: str, port: int) -> web.AppRunner:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner
