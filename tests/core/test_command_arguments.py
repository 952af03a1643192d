"""What the chat commands make of what a user types, before anything is stored."""

from __future__ import annotations

import pytest

from digests.delivery.schedule import ScheduleError, parse_schedule
from digests.links.chat import follow_payload, parse_start_payload


def test_schedule_reads_a_short_weekday_a_loose_time_and_any_case_of_a_zone():
    assert parse_schedule("mon 9:00 europe/berlin") == (0, "09:00", "Europe/Berlin")
    assert parse_schedule("Friday 17:30") == (4, "17:30", "UTC")  # no zone: UTC


def test_schedule_refuses_an_unknown_zone_and_names_the_closest():
    with pytest.raises(ScheduleError) as refused:
        parse_schedule("monday 09:00 Europe/Berln")
    assert "Europe/Berlin" in str(refused.value)


def test_a_follow_link_payload_names_its_topic_and_anything_else_names_none():
    assert parse_start_payload(follow_payload("agents")).matches("agents")
    assert not parse_start_payload(follow_payload("agents")).matches("evals")
    assert parse_start_payload("<script>") is None
    assert parse_start_payload("hello") is None
