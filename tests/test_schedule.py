"""Parsing `/schedule WEEKDAY HH:MM [TIMEZONE]` as users type it."""

from __future__ import annotations

import pytest

from digests.delivery.schedule import ScheduleError, parse_schedule, suggest_timezones


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("monday 09:00", (0, "09:00", "UTC")),
        ("Fri 7:30 Europe/Berlin", (4, "07:30", "Europe/Berlin")),
        ("SUNDAY 23:59 america/new_york", (6, "23:59", "America/New_York")),
        ("wed 00:00 utc", (2, "00:00", "UTC")),
    ],
)
def test_schedules_are_read_case_insensitively(typed, expected):
    assert parse_schedule(typed) == expected


@pytest.mark.parametrize(
    ("typed", "complaint"),
    [
        ("funday 09:00", "not a weekday"),
        ("mo 09:00", "not a weekday"),
        ("monday 25:00", "not a time of day"),
        ("monday 09:60", "not a time of day"),
        ("monday nine", "not a time of day"),
        ("monday 09:00 Mars/Olympus", "not a timezone"),
        ("monday 09:00 ../../etc/passwd", "not a timezone"),
        ("monday", "Say /schedule"),
        ("", "Say /schedule"),
        ("monday 09:00 UTC extra words", "Say /schedule"),
    ],
)
def test_impossible_schedules_are_refused_with_what_to_type(typed, complaint):
    with pytest.raises(ScheduleError, match=complaint):
        parse_schedule(typed)


def test_a_misspelt_timezone_gets_the_closest_names():
    with pytest.raises(ScheduleError, match="Europe/Berlin"):
        parse_schedule("monday 09:00 Europe/Berln")


def test_timezone_suggestions_put_prefix_matches_first_and_stay_bounded():
    found = suggest_timezones("europe/")
    assert len(found) == 25 and all(zone.startswith("Europe/") for zone in found)
    assert len(suggest_timezones("x" * 10_000)) <= 25
