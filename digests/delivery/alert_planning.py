"""Planning spike alerts: scan, pick the channels that want them, remember what was alerted."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from sqlmodel import Session

from digests.feedback.votes import ChannelFeedback, feedback_of_channels
from digests.messages.alert import SpikeAlert, alert_period_key, build_alerts
from digests.signals.spikes import SpikeDecision, SpikeSettings, record, scan
from digests.store import channels, follow_filters
from digests.topics.catalog import Catalog

# A spike alert is news for a day; after that the next scan's momentum says more.
ALERT_WINDOW = timedelta(days=1)


@dataclass(frozen=True)
class PlannedAlert:
    channel_id: int
    platform: str
    role_id: str  # a role to mention (Discord), "" for none
    period_key: str
    alert: SpikeAlert


def plan_alerts(
    session: Session,
    catalog: Catalog,
    *,
    platforms: Sequence[str],
    as_of: date,
    settings: SpikeSettings,
    now: datetime,
) -> tuple[list[SpikeDecision], list[PlannedAlert]]:
    """Scan every topic and every followed search, author and category, and for each alerting
    one the channels following it with alerts on.

    The decisions are recorded in the same transaction as the caller stores the deliveries, so
    an alert is remembered exactly when it is queued.
    """
    filters = [follow.topic() for _, follow in follow_filters.all_filters(session)]
    decisions = scan(
        session, catalog.topics, as_of=as_of, settings=settings, now=now, filters=filters
    )
    alerting = [decision for decision in decisions if decision.alert]
    planned: list[PlannedAlert] = []
    if alerting:
        alerts = build_alerts(session, [*catalog.topics, *filters], alerting, as_of=as_of)
        for alert in alerts:
            subscribers = channels.alert_subscribers(session, alert.topic.slug, platforms)
            votes = feedback_of_channels(session, [channel_id for channel_id, _, _ in subscribers])
            for channel_id, platform, role in subscribers:
                key = alert_period_key(alert.topic.slug, as_of)
                seen = without_off_topic(alert, votes.get(channel_id))
                planned.append(PlannedAlert(channel_id, platform, role, key, seen))
    record(session, decisions, now=now)
    return decisions, planned


def without_off_topic(alert: SpikeAlert, feedback: ChannelFeedback | None) -> SpikeAlert:
    """The alert as a channel sees it: without the papers it voted off the topic."""
    if feedback is None or not feedback.hidden:
        return alert
    slug = alert.topic.slug
    kept = tuple(e for e in alert.papers if (e.paper.arxiv_id, slug) not in feedback.hidden)
    return replace(alert, papers=kept)
