"""Spike alerts over simulated years of arXiv: false alerts and detected rises, per setting.

    .venv/bin/python bench/spike_simulation.py [--runs 200] [--seed 1] [--cadence weekly]

Base rates come from the real corpus (`real_corpus.py`: ../shared/data/arxiv-real, tagged by
the current tagger), so rerun this after the tagger changes:
- all new papers per day: the corpus's daily totals, weekday pattern and conference-deadline
  surges included, repeated to fill the year;
- each catalog topic's share of them over 2025-04-01 – 2025-12-28;
- over-dispersion: real weekly topic counts vary more than Poisson around a smooth 9-week
  share; that extra variance (var = mu + a mu^2, a the median over topics with 20+ papers per
  four weeks) becomes a gamma-distributed weekly rate for every topic.

Each run is 8 weeks of history and a year of daily counts for every catalog topic. Eight topics
per run, two from each size band, get a sustained rise (x1.5, x2, x2.41 or x4 from a random day
on); the others stay null all year. The real decision code (`digests.signals.spikes.evaluate`
and `next_memory`, so hysteresis and cooldown too) scans every `--cadence` day and its alerts
are counted: on null topics as false alerts per topic per year, on risen topics by how many days
of the rise they took. Every setting sees the same simulated counts.

It also replays the real corpus (the same cadence, May–December 2025: real alerts, not known
to be true or false) and checks the seed page's headline among the whole catalog.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_corpus import corpus_store
from sqlmodel import Session

from digests.signals.momentum import WINDOW_DAYS
from digests.signals.spikes import (
    SpikeMemory,
    SpikeSettings,
    TopicCounts,
    evaluate,
    next_memory,
)
from digests.store import repo
from digests.topics.catalog import Catalog

CORPUS_FIRST, CORPUS_LAST = date(2025, 3, 24), date(2025, 12, 28)  # whole weeks, Monday first
SHARE_FIRST = date(2025, 4, 1)
HISTORY = 2 * WINDOW_DAYS  # days before the first scan
YEAR_SCANS_DAYS = 364
RUN_DAYS = HISTORY + YEAR_SCANS_DAYS
RISES = (0.5, 1.0, 1.41, 3.0)  # +50%, +100%, +141% (the seed page), +300%
BANDS = ((10, 30), (30, 60), (60, 150), (150, 10**9))  # papers per four weeks
DETECT_DAYS = 14  # two weekly scans
START = datetime(2026, 1, 5, 6, 0, tzinfo=UTC)  # day 0 of a run, a Monday (only for cooldowns)

SHIPPED = SpikeSettings()
# fdr_q, min_count, min_share_ratio; the shipped defaults first.
CONFIGS = (
    (SHIPPED.fdr_q, SHIPPED.min_count, SHIPPED.min_share_ratio),
    (0.01, 10, 1.5),
    (0.02, 10, 1.5),
    (0.03, 10, 1.5),
    (0.10, 10, 1.5),
    (0.05, 10, 1.3),
    (0.05, 20, 1.5),
)


@dataclass
class Rates:
    slugs: list[str]
    names: list[str]
    share: np.ndarray  # per topic
    totals: np.ndarray  # all new papers per day, whole weeks from a Monday
    dispersion: float  # a in var = mu + a mu^2, weekly
    real_counts: np.ndarray  # topics x corpus days
    real_days: list[date]


def read_rates(catalog: Catalog) -> Rates:
    engine = corpus_store()
    days = [CORPUS_FIRST + timedelta(n) for n in range((CORPUS_LAST - CORPUS_FIRST).days + 1)]
    with Session(engine) as session:
        totals = repo.daily_totals(session, CORPUS_FIRST, CORPUS_LAST)
        per_topic = repo.daily_topic_counts(session, CORPUS_FIRST, CORPUS_LAST)
        rows = repo.topic_rows(session)
    engine.dispose()
    topics = list(catalog.topics)
    counts = np.array(
        [[per_topic.get(rows[t.slug].id, {}).get(day, 0) for day in days] for t in topics], float
    )
    total = np.array([totals.get(day, 0) for day in days], float)
    in_share = np.array([day >= SHARE_FIRST for day in days])
    share = counts[:, in_share].sum(1) / total[in_share].sum()
    return Rates(
        slugs=[t.slug for t in topics],
        names=[t.name for t in topics],
        share=share,
        totals=total,
        dispersion=weekly_dispersion(counts, total, share),
        real_counts=counts,
        real_days=days,
    )


def weekly_dispersion(counts: np.ndarray, totals: np.ndarray, share: np.ndarray) -> float:
    """Median over topics of the extra-Poisson variance of weekly counts around a 9-week share."""
    weeks = len(totals) // 7
    weekly_totals = totals[: weeks * 7].reshape(weeks, 7).sum(1)
    estimates = []
    for row, s in zip(counts, share, strict=True):
        if s * weekly_totals.mean() * 4 < 20:
            continue
        weekly = row[: weeks * 7].reshape(weeks, 7).sum(1)
        expected = np.array(
            [
                weekly_totals[w] * weekly[max(0, w - 4) : w + 5].sum()
                / weekly_totals[max(0, w - 4) : w + 5].sum()
                for w in range(weeks)
            ]
        )
        excess = ((weekly - expected) ** 2 - expected) / expected**2
        estimates.append(max(0.0, float(excess.mean())))
    return statistics.median(estimates)


# --- one simulated year ---------------------------------------------------------------------------


@dataclass
class Rise:
    topic: int
    size: float
    onset: int  # first day of the higher rate
    band: int


def plan_rises(rng: np.random.Generator, rates: Rates, run: int) -> list[Rise]:
    base = rates.share * rates.totals.mean() * WINDOW_DAYS
    rises, onset = [], HISTORY + 14
    for band, (low, high) in enumerate(BANDS):
        members = np.flatnonzero((base >= low) & (base < high))
        for k, topic in enumerate(rng.choice(members, size=2, replace=False)):
            size = RISES[(run + 2 * band + k) % len(RISES)]
            rises.append(Rise(int(topic), size, 0, band))
    order = rng.permutation(len(rises))
    for slot, index in enumerate(order):  # an onset every 40 days, at a random weekday
        rises[index].onset = onset + 40 * slot + int(rng.integers(0, 7))
    return rises


def simulate(rng: np.random.Generator, rates: Rates, rises: list[Rise]) -> tuple:
    """Daily counts (topics x days) and all new papers per day, for one run."""
    repeats = -(-RUN_DAYS // len(rates.totals))
    totals = np.tile(rates.totals, repeats)[:RUN_DAYS]
    shape = 1 / rates.dispersion
    weekly = rng.gamma(shape, 1 / shape, size=(len(rates.share), -(-RUN_DAYS // 7)))
    mean = rates.share[:, None] * totals[None, :] * weekly.repeat(7, axis=1)[:, :RUN_DAYS]
    counts = rng.poisson(mean)
    for rise in rises:  # the rise's extra papers are new papers too
        extra = rng.poisson(mean[rise.topic, rise.onset :] * rise.size)
        counts[rise.topic, rise.onset :] += extra
        totals[rise.onset :] += extra
    return counts, totals


def scan_days(cadence: str, first: int, last: int, weekdays: int = 5) -> list[int]:
    """Weekly: every seventh day; daily: every announcement day (the first five of a week)."""
    if cadence == "weekly":
        return list(range(first, last + 1, 7))
    return [day for day in range(first, last + 1) if day % 7 < weekdays]


def alert_days(
    counts: np.ndarray, totals: np.ndarray, days: list[int], settings: SpikeSettings, rates: Rates
) -> dict[int, list[int]]:
    """Scan on `days` with the real decision code and memory; alert days by topic index."""
    topic_sums = np.concatenate([np.zeros((len(counts), 1)), counts.cumsum(1)], axis=1)
    total_sums = np.concatenate([[0.0], np.cumsum(totals)])
    memory: dict[str, SpikeMemory] = {}
    alerts: dict[int, list[int]] = defaultdict(list)
    for day in days:
        now_end, split, then = day + 1, day + 1 - WINDOW_DAYS, day + 1 - 2 * WINDOW_DAYS
        current = topic_sums[:, now_end] - topic_sums[:, split]
        previous = topic_sums[:, split] - topic_sums[:, then]
        total = int(total_sums[now_end] - total_sums[split])
        previous_total = int(total_sums[split] - total_sums[then])
        scanned = [
            TopicCounts(slug, name, int(k1), int(k0), total, previous_total)
            for slug, name, k1, k0 in zip(rates.slugs, rates.names, current, previous, strict=True)
        ]
        now = START + timedelta(days=day)
        for index, decision in enumerate(evaluate(scanned, memory, settings, now=now)):
            if decision.alert:
                alerts[index].append(day)
            slug = rates.slugs[index]
            memory[slug] = next_memory(memory.get(slug, SpikeMemory()), decision, now)
    return alerts


# --- tallies --------------------------------------------------------------------------------------


@dataclass
class Tally:
    false_alerts: int = 0
    null_topic_years: float = 0.0
    # (rise size, band) -> days of the rise in the window at its first alert, None if never
    delays: dict[tuple[float, int], list[int | None]] = field(
        default_factory=lambda: defaultdict(list)
    )

    def add(self, alerts: dict[int, list[int]], rises: list[Rise], topics: int, days: list[int]):
        """One run: a topic is null until its rise (all year without one); scans span a year."""
        risen = {rise.topic: rise for rise in rises}
        for topic in range(topics):
            rise = risen.get(topic)
            calm_until = rise.onset if rise else RUN_DAYS
            self.false_alerts += sum(day < calm_until for day in alerts.get(topic, []))
            self.null_topic_years += sum(day < calm_until for day in days) / len(days)
        for rise in rises:
            after = [day for day in alerts.get(rise.topic, []) if day >= rise.onset]
            delay = after[0] - rise.onset + 1 if after else None
            self.delays[(rise.size, rise.band)].append(delay)

    @property
    def false_per_topic_year(self) -> float:
        return self.false_alerts / self.null_topic_years

    def detected(self, size: float, bands: range, within: int) -> tuple[float, int]:
        delays = [d for band in bands for d in self.delays[(size, band)]]
        hits = sum(d is not None and d <= within for d in delays)
        return (hits / len(delays) if delays else float("nan")), len(delays)


# --- checks on real data --------------------------------------------------------------------------


def seed_headline_alerts(settings: SpikeSettings, rates: Rates, count: int, previous: int) -> bool:
    """The headline topic among every catalog topic, each populated (at least 2 x min_count
    papers) and quiet (the same share of 10,000 and of 9,029 new papers)."""
    total, previous_total = 10_000, 9_029
    quiet = [
        TopicCounts(slug, name, k, round(k * previous_total / total), total, previous_total)
        for slug, name, k in zip(
            rates.slugs[1:],
            rates.names[1:],
            np.maximum(np.rint(rates.share[1:] * total), 2 * settings.min_count).astype(int),
            strict=True,
        )
    ]
    headline = TopicCounts(rates.slugs[0], rates.names[0], count, previous, total, previous_total)
    return evaluate([headline, *quiet], {}, settings, now=START)[0].alert


def real_replay(settings: SpikeSettings, rates: Rates, cadence: str) -> tuple[int, int, float]:
    """Scans of the real corpus: alerts, topics alerted, alerts per topic per year."""
    days = scan_days(cadence, 2 * WINDOW_DAYS - 1, len(rates.real_days) - 1)
    alerts = alert_days(rates.real_counts, rates.totals, days, settings, rates)
    fired = sum(len(found) for found in alerts.values())
    years = (days[-1] - days[0] + 7) / 365
    return fired, len(alerts), fired / (len(rates.slugs) * years)


# --- report ---------------------------------------------------------------------------------------


def describe(config: tuple) -> str:
    fdr_q, min_count, ratio = config
    return f"q {fdr_q:g}, min {min_count}, ×{ratio:g}"


def settings_of(config: tuple) -> SpikeSettings:
    fdr_q, min_count, ratio = config
    return SpikeSettings(fdr_q=fdr_q, min_count=min_count, min_share_ratio=ratio)


def print_comparison(tallies: dict, rates: Rates, cadence: str) -> None:
    print("| setting | false alerts per topic per year | +141%, 30+ papers: by day 14 / by "
          "day 41 | +100% / +50%, 30+: by day 41 | seed 70 vs 29 / 6 vs 2 | real corpus: "
          "alerts (topics), per topic-year |")
    print("|---|---:|---:|---:|---|---:|")
    big = range(1, len(BANDS))
    for config, tally in tallies.items():
        settings = settings_of(config)
        onset, _ = tally.detected(1.41, big, DETECT_DAYS)
        full, n = tally.detected(1.41, big, WINDOW_DAYS + DETECT_DAYS - 1)
        double, _ = tally.detected(1.0, big, WINDOW_DAYS + DETECT_DAYS - 1)
        half, _ = tally.detected(0.5, big, WINDOW_DAYS + DETECT_DAYS - 1)
        seed = "alerts" if seed_headline_alerts(settings, rates, 70, 29) else "quiet"
        small = "alerts" if seed_headline_alerts(settings, rates, 6, 2) else "quiet"
        fired, topics, per_year = real_replay(settings, rates, cadence)
        print(
            f"| {describe(config)} | {tally.false_per_topic_year:.3f} | {onset:.0%} / {full:.0%} "
            f"(n={n}) | {double:.0%} / {half:.0%} | {seed} / {small} | {fired} ({topics}), "
            f"{per_year:.2f} |"
        )


def print_detail(tally: Tally) -> None:
    print("| rise | papers per four weeks | rises | by day 14 | by day 41 | by day 56 "
          "| median days to the alert |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for size in RISES:
        for band, (low, high) in enumerate(BANDS):
            delays = tally.delays[(size, band)]
            found = sorted(d for d in delays if d is not None)
            onset, n = tally.detected(size, range(band, band + 1), DETECT_DAYS)
            full, _ = tally.detected(size, range(band, band + 1), WINDOW_DAYS + DETECT_DAYS - 1)
            late, _ = tally.detected(size, range(band, band + 1), 8 * 7)
            median = f"{statistics.median(found):.0f}" if found else "–"
            span = f"{low}–{high - 1}" if high < 10**9 else f"{low}+"
            print(f"| +{size:.0%} | {span} | {n} | {onset:.0%} | {full:.0%} | {late:.0%} "
                  f"| {median} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="simulated years per setting")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cadence", choices=("weekly", "daily"), default="weekly")
    parser.add_argument(
        "--dispersion", type=float, help="weekly over-dispersion a instead of the corpus's"
    )
    args = parser.parse_args(argv)

    started = time.perf_counter()
    catalog = Catalog.load()
    rates = read_rates(catalog)
    if args.dispersion is not None:
        rates.dispersion = args.dispersion
    base = rates.share * rates.totals.mean() * WINDOW_DAYS
    print(
        f"base rates: {len(rates.slugs)} topics, {rates.totals.sum():,.0f} papers over "
        f"{len(rates.totals)} days; topics with 10+ / 30+ papers per four weeks: "
        f"{(base >= 10).sum()} / {(base >= 30).sum()}; weekly over-dispersion a = "
        f"{rates.dispersion:.4f}"
    )
    rng = np.random.default_rng(args.seed)
    days = scan_days(args.cadence, HISTORY - 1, HISTORY - 2 + YEAR_SCANS_DAYS)
    tallies = {config: Tally() for config in CONFIGS}
    for run in range(args.runs):
        rises = plan_rises(rng, rates, run)
        counts, totals = simulate(rng, rates, rises)
        for config, tally in tallies.items():
            alerts = alert_days(counts, totals, days, settings_of(config), rates)
            tally.add(alerts, rises, len(rates.slugs), days)
    print(f"{args.runs} simulated years, {args.cadence} scans ({len(days)} a year), seed "
          f"{args.seed}, {time.perf_counter() - started:.0f} s. Day n: the nth day of the rise; "
          "days 1–14 hold the first two weekly scans after its onset, days 28–41 the first two "
          "whose four weeks hold the whole rise.\n")
    print_comparison(tallies, rates, args.cadence)
    print(f"\nThe default ({describe(CONFIGS[0])}), {args.cadence} scans:\n")
    print_detail(tallies[CONFIGS[0]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
