"""What the runtime counts, as plain numbers. `/metrics` (bot/health.py, loaded only when
HEALTH_PORT is set) turns them into Prometheus' format when it is scraped."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

OUTCOMES = ("delivered", "failed", "paused", "removed", "retried")  # of a delivery drain


@dataclass
class Metrics:
    papers_ingested: int = 0
    parts_sent: int = 0
    deliveries: Counter[str] = field(default_factory=Counter)  # outcome -> deliveries
    send_share: dict[str, float] = field(default_factory=dict)  # platform -> share of its limit
