"""Digest due-ness as tables of datetimes: each channel's clock, DST, grace and restarts."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from digests.due import ChannelClock, decide, last_occurrence


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize(
    ("weekday", "at", "zone", "now", "due_at", "key"),
    [
        # Monday 09:00 UTC, asked on Monday 09:00 exactly and a minute before.
        (0, "09:00", "UTC", utc(2026, 9, 28, 9, 0), utc(2026, 9, 28, 9, 0), "2026-09-28"),
        (0, "09:00", "UTC", utc(2026, 9, 28, 8, 59), utc(2026, 9, 21, 9, 0), "2026-09-21"),
        # Berlin in summer (UTC+2) and in winter (UTC+1): same wall time, different instants.
        (0, "09:00", "Europe/Berlin", utc(2026, 9, 28, 12), utc(2026, 9, 28, 7), "2026-09-28"),
        (0, "09:00", "Europe/Berlin", utc(2026, 11, 30, 12), utc(2026, 11, 30, 8), "2026-11-30"),
        # The Sunday DST ends in Europe (Oct 25 2026): 09:00 local is 08:00 UTC.
        (6, "09:00", "Europe/Berlin", utc(2026, 10, 25, 8, 30), utc(2026, 10, 25, 8), "2026-10-25"),
        # New York's spring-forward gap (Mar 8 2026, 02:00–03:00 does not exist): an hour later.
        (6, "02:30", "America/New_York", utc(2026, 3, 8, 12), utc(2026, 3, 8, 7, 30), "2026-03-08"),
        # Local date differs from the UTC date: Tokyo Monday 08:00 is Sunday 23:00 UTC.
        (0, "08:00", "Asia/Tokyo", utc(2026, 9, 27, 23, 30), utc(2026, 9, 27, 23), "2026-09-28"),
    ],
)
def test_the_last_weekly_occurrence_follows_the_local_clock(weekday, at, zone, now, due_at, key):
    occurrence = last_occurrence("weekly", weekday, at, zone, now)
    assert (occurrence.due_at, occurrence.key) == (due_at, key)


def test_a_weekly_digest_covers_the_seven_days_before_it():
    occurrence = last_occurrence("weekly", 0, "09:00", "UTC", utc(2026, 9, 28, 10))
    assert (occurrence.period_start, occurrence.period_end) == (
        date(2026, 9, 21),
        date(2026, 9, 27),
    )


def test_a_daily_digest_covers_the_day_before():
    occurrence = last_occurrence("daily", 0, "07:00", "UTC", utc(2026, 9, 30, 6))
    assert occurrence.key == "2026-09-29"
    assert occurrence.period_start == occurrence.period_end == date(2026, 9, 28)


CLOCKS = [ChannelClock(1, 0, "09:00", "UTC"), ChannelClock(2, 0, "09:00", "Europe/Berlin")]


@pytest.mark.parametrize(
    ("now", "last_keys", "send", "skip"),
    [
        # On time: both due.
        (utc(2026, 9, 28, 9, 1), {}, [1, 2], []),
        # Already sent this period: nothing (a restart sends nothing twice).
        (utc(2026, 9, 28, 9, 1), {1: "2026-09-28", 2: "2026-09-28"}, [], []),
        # Down for 20 hours: sent late, within the 24 h grace.
        (utc(2026, 9, 29, 5), {1: "2026-09-21", 2: "2026-09-21"}, [1, 2], []),
        # Down for two days: skipped and recorded, not sent.
        (utc(2026, 9, 30, 12), {1: "2026-09-21"}, [], [1, 2]),
        # Before Monday's time: last week's period was sent, nothing due.
        (utc(2026, 9, 28, 6), {1: "2026-09-21", 2: "2026-09-21"}, [], []),
    ],
)
def test_due_decisions_come_from_the_last_period_sent(now, last_keys, send, skip):
    decisions = decide(CLOCKS, last_keys, kind="weekly", now=now)
    assert [channel for channel, _ in decisions.send] == send
    assert [channel for channel, _ in decisions.skip] == skip


def test_the_grace_window_is_a_setting():
    now = utc(2026, 9, 28, 12)
    decisions = decide(CLOCKS[:1], {}, kind="weekly", now=now, grace=timedelta(hours=1))
    assert decisions.send == [] and len(decisions.skip) == 1
