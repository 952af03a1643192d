"""Optional HTTP endpoint (HEALTH_PORT): `/healthz` for probes, `/metrics` for Prometheus."""

from __future__ import annotations

import json
from collections.abc import Callable

from aiohttp import web
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric

from bot.metrics import OUTCOMES, Metrics
from digests.status import Status


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
            found = status(upcoming=1).to_json()
        except Exception as exc:  # the probe reports any failure instead of crashing
            body = {"status": "error", "error": str(exc).splitlines()[0][:200]}
            return web.json_response(body, status=503)
        return web.Response(
            text=json.dumps({"status": "ok", "leader": leader(), **found}),
            content_type="application/json",
        )

    async def metrics_page(request: web.Request) -> web.Response:
        body = prometheus_text(metrics, status(upcoming=1), leader=leader())
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    app = app if app is not None else web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics_page)
    return app
