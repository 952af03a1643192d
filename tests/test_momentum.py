import json
import time
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from itertools import pairwise

import pytest

from digests.signals.momentum import (
    HISTOGRAM_WEEKS,
    WINDOW_DAYS,
    compute_momentum,
    histogram_lines,
    momentum_line,
    sparkline,
    window_bounds,
)

AS_OF = date(2026, 9, 27)


def days_ago(n: int) -> date:
    return AS_OF - timedelta(days=n)


def spread(count: int, first_day_ago: int, days: int = WINDOW_DAYS) -> dict[date, int]:
    """`count` papers spread over `days` days, the newest `first_day_ago` days before AS_OF."""
    daily: dict[date, int] = {}
    for i in range(count):
        day = days_ago(first_day_ago + i % days)
        daily[day] = daily.get(day, 0) + 1
    return daily


def combined(*parts: Mapping[date, int]) -> dict[date, int]:
    out: dict[date, int] = {}
    for part in parts:
        for day, n in part.items():
            out[day] = out.get(day, 0) + n
    return out


def momentum(current: int, previous: int, total: int | None = None):
    counts = combined(spread(current, 0), spread(previous, WINDOW_DAYS))
    totals = spread(total, 0) if total is not None else spread(current, 0)
    return compute_momentum("Agentic RL", counts, totals, AS_OF)


def test_seed_sentence_for_70_against_29_with_a_share_of_0_7_percent():
    m = momentum(70, 29, total=10_000)
    assert m.line == (
        "70 papers in the last four weeks, up 141% on the four weeks before. "
        "0.7% of all new papers."
    )
    assert (m.count, m.previous, m.change_pct, m.share_pct) == (70, 29, 141, 0.7)


def test_window_boundaries_count_as_of_and_split_at_28_days():
    counts = {
        AS_OF: 1,  # newest day of the current window
        days_ago(27): 10,  # oldest day of the current window
        days_ago(28): 100,  # newest day of the previous window
        days_ago(55): 1_000,  # oldest day of the previous window
        days_ago(56): 10_000,  # in neither window
        AS_OF + timedelta(days=1): 100_000,  # after as_of: ignored
    }
    m = compute_momentum("T", counts, counts, AS_OF)
    assert (m.count, m.previous) == (11, 1_100)


def test_window_bounds_are_two_adjacent_28_day_ranges():
    current_start, current_end, previous_start, previous_end = window_bounds(AS_OF)
    assert current_end == AS_OF
    assert (current_end - current_start).days + 1 == WINDOW_DAYS
    assert previous_end == current_start - timedelta(days=1)
    assert (previous_end - previous_start).days + 1 == WINDOW_DAYS


def test_change_rounds_halves_up_not_to_even():
    # 9 vs 8 is +12.5%: banker's rounding would give 12.
    assert momentum(9, 8).line.startswith("9 papers in the last four weeks, up 13% on")
    # The same half on the way down shows the same magnitude.
    assert "down 13% on the four weeks before" in momentum(7, 8).line
    assert momentum(7, 8).change_pct == -13


def test_share_rounds_halves_up():
    # 1 of 400 is 0.25%; round-half-even would show 0.2%.
    assert momentum(1, 1, total=400).line.endswith(" 0.3% of all new papers.")


def test_down():
    m = momentum(12, 20, total=12)
    assert m.line.startswith("12 papers in the last four weeks, down 40% on the four weeks before.")
    assert m.change_pct == -40


def test_unchanged():
    m = momentum(15, 15, total=1_500)
    assert m.line == (
        "15 papers in the last four weeks, unchanged on the four weeks before. "
        "1.0% of all new papers."
    )
    assert m.change_pct == 0


def test_tiny_change_is_not_reported_as_zero_percent():
    assert "up <1% on the four weeks before" in momentum(1_001, 1_000).line


def test_none_in_the_four_weeks_before():
    m = momentum(5, 0, total=500)
    assert m.line == (
        "5 papers in the last four weeks, none in the four weeks before. 1.0% of all new papers."
    )
    assert m.change_pct is None


def test_share_below_rounding_shows_less_than_a_tenth():
    assert momentum(1, 1, total=2_500).line.endswith(" <0.1% of all new papers.")
    # 1 of 2000 is exactly 0.05%, which rounds up to 0.1%.
    assert momentum(1, 1, total=2_000).line.endswith(" 0.1% of all new papers.")


def test_no_papers_at_all():
    m = compute_momentum("Quiet", {}, {}, AS_OF)
    assert (m.count, m.previous, m.change_pct, m.share_pct) == (0, 0, None, None)
    assert m.line == "No papers in the last four weeks or the four weeks before."


def test_topic_that_went_quiet_has_no_share_sentence():
    m = momentum(0, 8, total=5_000)
    assert m.line == "No papers in the last four weeks, down 100% on the four weeks before."


def test_singular_paper():
    assert momentum(1, 2).line.startswith("1 paper in the last four weeks, down 50% on")


def test_thousands_separators():
    m = momentum(1_234, 1_000, total=100_000)
    assert m.line.startswith(
        "1,234 papers in the last four weeks, up 23% on the four weeks before."
    )
    assert momentum_line(12_345, 1_000, 1.0).startswith("12,345 papers")
    assert "up 1,135%" in momentum_line(12_345, 1_000, 1.0)


def test_momentum_line_omits_share_when_unknown():
    assert momentum_line(3, 3, None) == (
        "3 papers in the last four weeks, unchanged on the four weeks before."
    )


def test_weekly_histogram_has_12_buckets_oldest_first_ending_on_as_of():
    counts = combined(spread(300, 0, days=HISTOGRAM_WEEKS * 7), {days_ago(84): 50})
    weekly = compute_momentum("T", counts, counts, AS_OF).weekly
    assert len(weekly) == HISTOGRAM_WEEKS
    assert weekly[-1].end == AS_OF
    assert weekly[0].start == days_ago(83)
    for earlier, later in pairwise(weekly):
        assert later.start == earlier.end + timedelta(days=1)
    assert all((week.end - week.start).days == 6 for week in weekly)
    assert sum(week.count for week in weekly) == 300  # the paper 84 days back is outside


def test_weekly_buckets_put_each_day_in_its_week():
    weekly = compute_momentum("T", {AS_OF: 1, days_ago(7): 2, days_ago(83): 3}, {}, AS_OF).weekly
    assert [week.count for week in weekly] == [3] + [0] * 9 + [2, 1]


def test_to_json_is_serialisable_with_iso_dates():
    data = json.loads(json.dumps(momentum(70, 29, total=10_000).to_json()))
    assert data["as_of"] == AS_OF.isoformat()
    assert data["line"].startswith("70 papers")
    assert len(data["weekly"]) == HISTOGRAM_WEEKS
    assert data["weekly"][-1]["start"] == days_ago(6).isoformat()
    assert data["weekly"][-1]["end"] == "2026-09-27"
    assert sum(week["count"] for week in data["weekly"]) == 70 + 29


def test_sparkline_scales_to_the_largest_count():
    assert sparkline([0, 5, 10]) == "▁▅█"
    assert sparkline([3, 3]) == "██"
    line = sparkline([1, 100])
    assert line[1] == "█"
    assert line[0] != "▁"  # a non-zero week never looks like an empty one


def test_sparkline_edge_cases():
    assert sparkline([0, 0, 0]) == "▁▁▁"
    assert sparkline([]) == ""


def test_histogram_lines_align_and_scale():
    weekly = compute_momentum("T", {AS_OF: 1_200, days_ago(7): 600, days_ago(70): 5}, {}, AS_OF)
    lines = histogram_lines(weekly.weekly, width=20)
    assert len(lines) == HISTOGRAM_WEEKS
    assert len({len(line) for line in lines}) == 1  # labels, bars and counts line up
    assert lines[-1] == f"Sep 21 {'█' * 20}  1,200"
    assert lines[-2] == f"Sep 14 {'█' * 10:<20}    600"
    assert lines[1].startswith("Jul 13 █ ")  # small but visible
    assert lines[0].startswith("Jul 06  ")  # empty week, empty bar


def test_compute_momentum_is_cheap_for_a_large_catalog():
    # Three years of daily counts per topic; cost must not grow with that history.
    history = {days_ago(i): 40 + i % 7 for i in range(3 * 365)}
    totals = {day: n * 100 for day, n in history.items()}
    started = time.perf_counter()
    for index in range(2_000):
        compute_momentum(f"topic {index}", history, totals, AS_OF)
    assert time.perf_counter() - started < 2.0


@pytest.mark.parametrize("as_of", [date(2026, 1, 3), date(2028, 3, 1)])
def test_windows_cross_year_and_leap_day(as_of: date):
    counts = {as_of - timedelta(days=n): 1 for n in range(56)}
    m = compute_momentum("T", counts, counts, as_of)
    assert (m.count, m.previous) == (28, 28)


def test_a_datetime_as_of_is_refused_rather_than_counting_nothing():
    with pytest.raises(TypeError):
        compute_momentum("T", {AS_OF: 1}, {AS_OF: 1}, datetime(2026, 9, 27, 12))


def test_share_is_over_all_papers_of_the_same_four_weeks_only():
    counts = spread(70, 0)
    totals = combined(
        spread(10_000, 0), spread(90_000, WINDOW_DAYS, days=7), {AS_OF + timedelta(days=1): 5}
    )
    assert compute_momentum("T", counts, totals, AS_OF).share_pct == 0.7


def test_the_denominators_of_both_windows_are_given_beside_the_counts():
    counts = combined(spread(70, 0), spread(29, WINDOW_DAYS))
    totals = combined(spread(10_000, 0), spread(9_029, WINDOW_DAYS), {days_ago(56): 500})

    m = compute_momentum("T", counts, totals, AS_OF)

    assert (m.count, m.previous, m.total, m.previous_total) == (70, 29, 10_000, 9_029)
    assert (m.to_json()["total"], m.to_json()["previous_total"]) == (10_000, 9_029)
