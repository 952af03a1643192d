"""Benchmark: what drawing a part's chart costs the sender.

    .venv/bin/python bench/bench_chart.py [--charts 200] [--runs 5]

Draws `--charts` different chart descriptions (random weekly counts, so no two are alike and
the cache never helps) of one panel (an alert, a one-topic digest) and of four panels (a digest
following four topics or more), then draws the same descriptions again (the cache a broadcast
hits when channels follow the same topics). Prints the median milliseconds per chart of each
kind and the PNG size. Senders draw off the event loop (`asyncio.to_thread`).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from digests.messages.chart import _chart_png, chart_png
from digests.messages.chart_spec import chart_spec
from digests.signals.momentum import WeekCount

FIRST_WEEK = date(2026, 7, 6)


def random_weeks(rng: random.Random) -> list[WeekCount]:
    starts = [FIRST_WEEK + timedelta(days=7 * n) for n in range(12)]
    return [WeekCount(s, s + timedelta(days=6), rng.randrange(0, 400)) for s in starts]


def specs(count: int, panels: int, rng: random.Random) -> list[dict]:
    return [
        chart_spec([(f"Topic {n}.{p} · papers per week", random_weeks(rng)) for p in range(panels)])
        for n in range(count)
    ]


def per_chart_ms(descriptions: list[dict]) -> float:
    started = time.perf_counter()
    for description in descriptions:
        chart_png(description)
    return (time.perf_counter() - started) * 1000 / len(descriptions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--charts", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(7)
    for panels in (1, 4):
        drawn, cached, sizes = [], [], []
        for _ in range(args.runs):
            _chart_png.cache_clear()
            descriptions = specs(min(args.charts, 256), panels, rng)  # all fit the cache
            drawn.append(per_chart_ms(descriptions))
            cached.append(per_chart_ms(descriptions))
            sizes += [len(chart_png(d)) for d in descriptions[:20]]
        print(
            f"{panels} panel(s): drawn {statistics.median(drawn):.1f} ms per chart, "
            f"from the cache {statistics.median(cached) * 1000:.0f} µs; "
            f"PNG {statistics.median(sizes) / 1024:.0f} KiB (median of {args.runs} runs)"
        )


if __name__ == "__main__":
    main()
