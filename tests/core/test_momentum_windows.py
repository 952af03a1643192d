"""Momentum as a topic page and /trending show it: the last four weeks against the four before."""

from __future__ import annotations

from datetime import date, timedelta

from digests.signals.momentum import RISING_FLOOR, compute_momentum, window_bounds

AS_OF = date(2026, 9, 28)


def days_ago(n: int) -> date:
    return AS_OF - timedelta(days=n)


def test_the_last_four_weeks_end_on_the_day_and_the_four_before_end_the_day_before_them():
    current_start, current_end, previous_start, previous_end = window_bounds(AS_OF)
    assert (current_start, current_end) == (days_ago(27), AS_OF)  # 28 days, both ends counted
    assert (previous_start, previous_end) == (days_ago(55), days_ago(28))


def test_papers_count_in_the_window_of_their_day_and_older_ones_not_at_all():
    daily = {AS_OF: 2, days_ago(27): 3, days_ago(28): 5, days_ago(55): 7, days_ago(56): 100}
    momentum = compute_momentum("Agents", daily, {}, AS_OF)
    assert (momentum.count, momentum.previous) == (2 + 3, 5 + 7)


def test_a_change_of_an_eighth_rounds_away_from_zero_both_up_and_down():
    up = compute_momentum("Agents", {AS_OF: 9, days_ago(30): 8}, {}, AS_OF)
    down = compute_momentum("Agents", {AS_OF: 7, days_ago(30): 8}, {}, AS_OF)
    assert (up.change_pct, down.change_pct) == (13, -13)  # ±12.5%
    assert "up 13% on the four weeks before" in up.line
    assert "down 13% on the four weeks before" in down.line


def test_a_topic_new_this_month_has_no_percentage_to_show():
    momentum = compute_momentum("Agents", {AS_OF: 6}, {AS_OF: 600}, AS_OF)
    assert momentum.change_pct is None
    assert "none in the four weeks before" in momentum.line


def test_the_share_is_of_all_new_papers_in_the_same_weeks_and_a_tiny_one_is_not_shown_as_zero():
    common = compute_momentum("Agents", {AS_OF: 7}, {AS_OF: 1_000, days_ago(40): 9_000}, AS_OF)
    rare = compute_momentum("Agents", {AS_OF: 1}, {AS_OF: 10_000}, AS_OF)
    assert common.share_pct == 0.7  # the 9,000 papers of the weeks before do not dilute it
    assert "0.7% of all new papers" in common.line
    assert "<0.1% of all new papers" in rare.line


def test_a_topic_rises_only_with_enough_papers_and_more_than_before():
    def rising(count: int, previous: int) -> bool:
        daily = {AS_OF: count, days_ago(30): previous}
        return compute_momentum("Agents", daily, {}, AS_OF).rising

    assert rising(RISING_FLOOR, 1)
    assert not rising(RISING_FLOOR - 1, 1)  # a jump from 1 to 4 is noise
    assert not rising(RISING_FLOOR, RISING_FLOOR)  # unchanged
