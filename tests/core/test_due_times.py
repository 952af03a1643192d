"""When a channel's digest is due: its own weekday and wall-clock time, in its own zone."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from digests.delivery.due import last_occurrence, split_due

# Wednesday 30 September 2026, noon UTC.
NOW = datetime(2026, 9, 30, 12, tzinfo=UTC)
MONDAY, TUESDAY, WEDNESDAY = 0, 1, 2


def test_monday_nine_in_berlin_follows_daylight_saving_time():
    summer = last_occurrence("weekly", MONDAY, "09:00", "Europe/Berlin", NOW)
    winter = last_occurrence("weekly", MONDAY, "09:00", "Europe/Berlin", NOW + timedelta(weeks=8))
    assert summer.due_at == datetime(2026, 9, 28, 7, tzinfo=UTC)  # CEST, UTC+2
    assert winter.due_at == datetime(2026, 11, 23, 8, tzinfo=UTC)  # CET, UTC+1


def test_a_weekly_digest_covers_the_seven_days_before_the_day_it_is_due():
    occurrence = last_occurrence("weekly", MONDAY, "09:00", "UTC", NOW)
    assert occurrence.key == "2026-09-28"
    assert (occurrence.period_start, occurrence.period_end) == (
        date(2026, 9, 21),
        date(2026, 9, 27),
    )


def test_before_its_time_on_the_day_the_digest_due_is_last_weeks():
    just_before = datetime(2026, 9, 30, 11, 59, tzinfo=UTC)
    assert last_occurrence("weekly", WEDNESDAY, "12:00", "UTC", just_before).key == "2026-09-23"
    assert last_occurrence("weekly", WEDNESDAY, "12:00", "UTC", NOW).key == "2026-09-30"


def test_a_digest_due_hours_ago_is_sent_and_one_missed_by_over_a_day_is_skipped():
    schedules = [(WEDNESDAY, "10:00", "UTC"), (TUESDAY, "06:00", "UTC")]  # 2 h and 30 h ago
    decisions = split_due([(1, 0), (2, 1)], schedules, kind="weekly", now=NOW)
    assert [channel for channel, _ in decisions.send] == [1]
    assert [channel for channel, _ in decisions.skip] == [2]
