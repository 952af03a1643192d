"""Digest due-ness as tables of datetimes: each channel's clock, DST, grace and restarts."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import available_timezones

import pytest

from digests.delivery.due import (
    last_occurrence,
    period_keys,
    weekdays_due_between,
)


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


# Kiritimati (UTC+14) is on Tuesday already; Europe moved its clocks forward the day before.
LATE_MONDAY_MORNING = utc(2026, 3, 30, 10, 30)
SCHEDULES = [
    (1, "00:15", "Pacific/Kiritimati"),  # 15 minutes ago
    (4, "23:45", "Pacific/Pago_Pago"),  # 47 h 45 min ago
    (4, "23:00", "Pacific/Pago_Pago"),  # 48 h 30 min ago
    (0, "12:00", "Europe/Berlin"),  # 30 minutes ago, in summer time
    (6, "02:30", "Europe/Berlin"),  # did not exist: 03:30, 33 h ago
    (0, "08:30", "America/New_York"),  # in 2 hours: last week's is older
    (3, "09:00", "UTC"),
]


@pytest.mark.parametrize("kind", ["weekly", "daily"])
def test_period_keys_are_the_last_occurrences_keys(kind):
    keys = period_keys(kind, SCHEDULES, LATE_MONDAY_MORNING)
    assert keys == {s: last_occurrence(kind, *s, LATE_MONDAY_MORNING).key for s in SCHEDULES}


def test_period_keys_leave_out_schedules_last_due_before_since():
    since = LATE_MONDAY_MORNING - timedelta(hours=48)
    assert period_keys("weekly", SCHEDULES, LATE_MONDAY_MORNING, since=since) == {
        (1, "00:15", "Pacific/Kiritimati"): "2026-03-31",
        (4, "23:45", "Pacific/Pago_Pago"): "2026-03-27",
        (0, "12:00", "Europe/Berlin"): "2026-03-30",
        (6, "02:30", "Europe/Berlin"): "2026-03-29",
    }


@pytest.mark.parametrize(
    ("since", "now", "weekdays"),
    [
        # Saturday to Monday in UTC: Friday still in Pago Pago, Tuesday already in Kiritimati.
        (utc(2026, 3, 28, 10, 30), LATE_MONDAY_MORNING, {4, 5, 6, 0, 1}),
        # Sunday 13:00 to Monday 09:00 UTC: Sunday 01:00 to Monday 23:00 somewhere.
        (utc(2026, 3, 29, 13), utc(2026, 3, 30, 9), {6, 0}),
        (utc(2026, 3, 23), LATE_MONDAY_MORNING, set(range(7))),
    ],
)
def test_weekdays_due_between_span_every_zone(since, now, weekdays):
    assert weekdays_due_between(since, now) == weekdays


# At 10:30 UTC, 00:00 tomorrow in UTC+14 has passed; at 11:30, 23:59 yesterday in UTC-12 is
# within 48 hours.
@pytest.mark.parametrize("now", [utc(2026, 3, 30, 10, 30), utc(2026, 3, 30, 11, 30)])
def test_no_zone_has_a_schedule_due_in_the_window_on_another_weekday(now):
    since = now - timedelta(hours=48)
    schedules = [
        (weekday, at, zone)
        for zone in available_timezones()
        for weekday in range(7)
        for at in ("00:00", "12:00", "23:59")
    ]
    due = period_keys("weekly", schedules, now, since=since)
    assert {weekday for weekday, _, _ in due} <= weekdays_due_between(since, now)
