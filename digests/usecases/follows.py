"""Following a filter, and keeping its papers tagged as new papers arrive.

A filter's papers are found once when it is first followed (through the backend's full-text
index, over the days momentum and the 12-week chart look at), and then among each ingest's new
and updated papers in memory (`match_new_papers`). Both write tags with source "follow", so
digests, momentum and charts read a filter exactly as they read a catalog topic.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from sqlmodel import Session

from digests.follows.filters import MAX_FOLLOWS, FollowFilter, match_new_papers
from digests.papers.records import PaperRecord
from digests.signals.momentum import histogram_start
from digests.store import channels, follow_filters
from digests.store.models import Channel

# Beyond the 12-week chart: a digest shows papers up to a week older than its period.
MARGIN = timedelta(days=14)


def at_limit(session: Session, channel: Channel, slug: str) -> bool:
    """Whether following `slug` would take the channel over MAX_FOLLOWS (topics and filters
    together); following again what it follows already never does."""
    followed = channels.followed_slugs(session, channel.id)
    return len(followed) >= MAX_FOLLOWS and slug not in followed


def too_many() -> str:
    return (
        f"This chat follows {MAX_FOLLOWS} topics, searches, authors and categories already, "
        "the most one chat may; /unfollow one first. Nothing was changed."
    )


def store_filter(session: Session, follow: FollowFilter, *, now: datetime) -> int:
    """The filter's topic id; a new filter's papers of recent weeks are tagged first."""
    topic_id, new = follow_filters.save(session, follow, now=now)
    if new:
        start = histogram_start(now.date()) - MARGIN
        follow_filters.tag_matching_papers(session, topic_id, follow, start=start, end=now.date())
    return topic_id


def tag_new_papers(session: Session, changed: Mapping[int, PaperRecord], *, now: datetime) -> int:
    """Tag new and updated papers with every filter they match (and untag updated papers that
    match no more); returns tags added."""
    filters = follow_filters.all_filters(session)
    if not filters or not changed:
        return 0
    ids, records = list(changed), list(changed.values())
    matched = match_new_papers([follow for _, follow in filters], records)
    pairs = [
        (ids[index], topic_id)
        for (topic_id, _), found in zip(filters, matched, strict=True)
        for index in found
    ]
    return follow_filters.write_matches(session, pairs, ids, now=now)
