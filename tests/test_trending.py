"""Trending ranks topics by how surprising their rise is (the spike detector's test), not by the
percentage, so a few papers more never outrank a large, certain rise."""

from __future__ import annotations

from datetime import date, timedelta

from digests.signals.momentum import compute_momentum
from digests.signals.trending import trending_key

AS_OF = date(2025, 12, 28)
NOW_DAY, BEFORE_DAY = AS_OF - timedelta(days=3), AS_OF - timedelta(days=40)
# The same volume of all papers in both four-week windows.
TOTALS = {NOW_DAY: 10_000, BEFORE_DAY: 10_000}


def momentum(name: str, before: int, now: int):
    return compute_momentum(name, {BEFORE_DAY: before, NOW_DAY: now}, TOTALS, AS_OF)


def ranked(*momenta) -> list[str]:
    return [m.topic for m in sorted(momenta, key=trending_key)]


def test_a_large_certain_rise_ranks_above_a_larger_percentage_on_few_papers():
    small, large = momentum("small", 5, 20), momentum("large", 70, 170)
    assert small.change_pct > large.change_pct  # up 300% against up 143%
    assert ranked(small, large) == ["large", "small"]


def test_a_rise_on_too_few_papers_never_tops_a_list_with_significant_rises():
    tiny = momentum("tiny", 2, 10)  # up 400%
    significant = [momentum("large", 70, 170), momentum("medium", 20, 60)]
    assert ranked(tiny, *significant)[-1] == "tiny"
    # Even below a rise that is only just significant, and above no judged one.
    assert ranked(tiny, momentum("barely", 100, 135), momentum("more", 1, 11)) == [
        "barely",
        "more",
        "tiny",
    ]
    assert set(ranked(momentum("few", 1, 9), tiny, *significant)[:2]) == {"large", "medium"}


def test_topics_that_are_not_rising_come_after_every_rising_one():
    falling, flat = momentum("falling", 300, 100), momentum("flat", 50, 50)
    few = momentum("few", 1, 6)
    assert ranked(falling, flat, few) == ["few", "falling", "flat"]


def test_a_small_rise_of_a_huge_topic_ranks_below_a_large_rise_of_a_middling_one():
    huge = compute_momentum("huge", {BEFORE_DAY: 5_000, NOW_DAY: 5_600}, TOTALS, AS_OF)
    assert ranked(huge, momentum("large", 70, 170)) == ["large", "huge"]


def test_a_rise_that_only_keeps_pace_with_all_papers_ranks_below_a_real_one():
    doubled = {NOW_DAY: 20_000, BEFORE_DAY: 10_000}
    with_arxiv = compute_momentum("with arXiv", {BEFORE_DAY: 100, NOW_DAY: 200}, doubled, AS_OF)
    real = compute_momentum("real", {BEFORE_DAY: 40, NOW_DAY: 120}, doubled, AS_OF)
    assert ranked(with_arxiv, real) == ["real", "with arXiv"]
