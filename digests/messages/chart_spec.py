"""Charts as data: what a delivery part asks to have drawn, stored as JSON with the part.

A part carries its chart's description under `CHART_KEY`, not the image: a few hundred bytes per
channel instead of tens of kilobytes, and the image is drawn
(`digests.messages.chart.chart_png`, cached) when the part goes out. Where a chat takes no
images, the part is sent again without its chart (`without_chart`), so the words always arrive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, timedelta

from digests.messages.digest import Digest
from digests.signals.momentum import WEEK_DAYS, WeekCount

CHART_KEY = "chart"
MAX_PANELS = 4  # one histogram per followed topic, in follow order; more would not be legible
MAX_WEEKS = 52

Panel = tuple[str, tuple[WeekCount, ...]]


def chart_spec(panels: Sequence[tuple[str, Sequence[WeekCount]]]) -> dict:
    """The JSON stored with a part: one titled histogram per panel (at most MAX_PANELS)."""
    return {
        "panels": [
            {"title": title, "weeks": [[week.start.isoformat(), week.count] for week in weeks]}
            for title, weeks in panels[:MAX_PANELS]
        ]
    }


def topic_chart(name: str, weekly: Sequence[WeekCount]) -> dict:
    """The chart of one topic, like the momentum chart of its topic page."""
    return chart_spec([(panel_title(name), weekly)])


def digest_chart(digest: Digest) -> dict | None:
    """The weekly histograms of a digest's topics; None for a digest without topics."""
    panels = [
        (panel_title(section.topic.name), section.momentum.weekly)
        for section in digest.sections
        if section.momentum.weekly
    ]
    return chart_spec(panels) if panels else None


def panel_title(name: str) -> str:
    return f"{name} · papers per week"


def chart_panels(spec: Mapping) -> list[Panel]:
    """The panels of a stored chart; ValueError when it is not one we wrote."""
    try:
        panels = [
            (str(panel["title"]), tuple(_week(start, count) for start, count in panel["weeks"]))
            for panel in spec["panels"]
        ]
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"not a chart description: {exc}") from None
    if not 1 <= len(panels) <= MAX_PANELS or any(len(w) > MAX_WEEKS for _, w in panels):
        raise ValueError(f"a chart has 1 to {MAX_PANELS} panels of at most {MAX_WEEKS} weeks")
    return panels


def without_chart(payload: Mapping) -> dict:
    """The same part with its chart left out."""
    return {key: value for key, value in payload.items() if key != CHART_KEY}


def _week(start: str, count: int) -> WeekCount:
    first = date.fromisoformat(start)
    if not isinstance(count, int) or count < 0:
        raise ValueError(f"bad count {count!r}")
    return WeekCount(first, first + timedelta(days=WEEK_DAYS - 1), count)
