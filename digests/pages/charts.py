"""Bar geometry for the SVG charts of the web pages: a sparkline and the 12-week chart."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from digests.signals.momentum import WeekCount, papers_text, short_date


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    count: int
    label: str  # what the bar says to a screen reader or on hover


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    bars: tuple[Bar, ...]
    description: str  # the whole chart in words: its alt text


def bar_chart(
    counts: Sequence[int], labels: Sequence[str], *, width: int, height: int, gap: float = 2.0
) -> Chart:
    """One bar per count, scaled to the largest; a non-zero count is always visible."""
    top = max(counts, default=0)
    slot = width / max(len(counts), 1)
    bars = []
    for index, (count, label) in enumerate(zip(counts, labels, strict=True)):
        tall = 0.0 if top == 0 else max(1.0, height * count / top)
        bars.append(
            Bar(
                x=round(index * slot + gap / 2, 2),
                y=round(height - tall, 2),
                width=round(max(slot - gap, 1.0), 2),
                height=round(tall, 2),
                count=count,
                label=label,
            )
        )
    description = "; ".join(bar.label for bar in bars)
    return Chart(width, height, tuple(bars), description)


def weekly_chart(weekly: Sequence[WeekCount], *, width: int = 600, height: int = 160) -> Chart:
    """The 12-week chart: one bar per week, labelled "Week of Sep 28: 23 papers"."""
    labels = [f"Week of {short_date(week.start)}: {papers_text(week.count)}" for week in weekly]
    return bar_chart([week.count for week in weekly], labels, width=width, height=height)


def sparkline_chart(weekly: Sequence[WeekCount]) -> Chart:
    """The small chart of the topic index, 96 by 24."""
    return weekly_chart(weekly, width=96, height=24)
