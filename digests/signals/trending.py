"""The order of trending topics, shared by `/trending` in the chats and `/?sort=trending`.

Ranking by the percentage rise rewards small counts: 1 → 5 papers is "up 400%" and means little,
70 → 170 is "up 143%" and is certain. Ranking by the p-value alone would reward sheer size: a
roll-up with 5,000 papers that grew 10% is certain, and no news. So topics are ranked by the rise
they are sure to have: the lower confidence bound of their rate ratio (last four weeks against the
four before, relative to all papers), from the spike detector's own test
(`digests.signals.significance.binomial_upper_tail`, the conditional binomial of
`digests.signals.spikes`) inverted at the spike detector's level. A rise is significant at that
level exactly when its bound is above 1.

Topics with too few papers to judge come after every judged rising topic, whatever their
percentage: fewer than `JUDGED_FLOOR` papers in the last four weeks. From so few papers the
bound is loose and swings with a paper or two (1 → 11 is "surely ×2.2", 2 → 10 "×1.3"), so a
handful of papers could outrank a large, certain rise. Topics that are not rising come last. The
momentum line each topic shows is unchanged.
"""

from __future__ import annotations

from functools import lru_cache

from digests.signals.momentum import Momentum
from digests.signals.significance import binomial_upper_tail
from digests.signals.spike_settings import SpikeSettings

_SPIKES = SpikeSettings()
# Papers in the last four weeks: twice what a spike alert needs.
JUDGED_FLOOR = 2 * _SPIKES.min_count
LEVEL = _SPIKES.fdr_q
_STEPS = 40  # bisection steps: the bound to within 1e-12 of the share


def sure_rise(momentum: Momentum, level: float = LEVEL) -> float:
    """The rate ratio the topic's rise is at least, with confidence 1 - `level`: its share of
    all papers now over its share before. 0.0 without papers in either window of all papers."""
    return _sure_rise(
        momentum.count, momentum.previous, momentum.total, momentum.previous_total, level
    )


@lru_cache(maxsize=4096)
def _sure_rise(count: int, previous: int, total: int, previous_total: int, level: float) -> float:
    if total <= 0 or previous_total <= 0 or count <= 0:
        return 0.0
    # Given count + previous papers, count ~ Binomial(n, p) with p = r·N1 / (r·N1 + N0) for
    # rate ratio r; the lowest p that makes `count` unsurprising bounds r from below.
    n, low, high = count + previous, 0.0, 1.0
    for _ in range(_STEPS):
        middle = (low + high) / 2
        if binomial_upper_tail(count, n, middle) < level:
            low = middle
        else:
            high = middle
    if low >= 1.0:
        return float("inf")
    return low * previous_total / ((1.0 - low) * total)


def trending_key(momentum: Momentum, *, floor: int = JUDGED_FLOOR) -> tuple[int, float, int]:
    """Sort key, smallest first: judged rising topics by the rise they are sure of, then
    rising topics with fewer than `floor` papers, then the rest by paper count (a stable sort
    keeps ties in the order given)."""
    if not momentum.rising:
        return 2, 0.0, -momentum.count
    tier = 0 if momentum.count >= floor else 1
    return tier, -sure_rise(momentum), -momentum.count
