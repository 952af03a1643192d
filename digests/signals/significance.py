"""The two statistics behind spike alerts: an exact binomial tail and Benjamini–Hochberg.

Written out with the standard library so that the bot does not load SciPy (tens of MiB and
most of a second at start) for two formulas; tests/test_significance.py checks both against
SciPy on a grid of inputs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def binomial_upper_tail(k: int, n: int, p: float) -> float:
    """P(X ≥ k) for X ~ Binomial(n, p), what `scipy.stats.binom.sf(k - 1, n, p)` gives.

    Relative error below n·1e-14 (from `math.lgamma` of large arguments): about 1e-11 at the
    few thousand trials of a spike, 2e-9 at a million."""
    if k <= 0 or p >= 1:
        return 1.0
    if k > n or p <= 0:
        return 0.0
    if k > n * p:
        return _tail_above_mean(k, n, p)
    # At or below the mean the upper tail is at least one half: one minus the lower tail
    # (which is an upper tail in the failures) loses no precision that matters.
    return 1.0 - _tail_above_mean(n - k + 1, n, 1.0 - p)


def _tail_above_mean(k: int, n: int, p: float) -> float:
    """P(X ≥ k) for k above the mean, where the terms only fall: sum them from P(X = k)
    until they no longer change the sum."""
    log_term = (
        math.lgamma(n + 1)
        - math.lgamma(k + 1)
        - math.lgamma(n - k + 1)
        + k * math.log(p)
        + (n - k) * math.log1p(-p)
    )
    term = math.exp(log_term)
    odds = p / (1.0 - p)
    total = 0.0
    x = k
    while term > total * 1e-17 and x <= n:
        total += term
        term *= (n - x) / (x + 1) * odds
        x += 1
    return min(total, 1.0)


def bh_adjust(p_values: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values (q-values), in the order given: the i-th smallest
    p-value times m / i, then the smallest of those at or above its rank, at most 1."""
    m = len(p_values)
    by_size = sorted(range(m), key=lambda i: p_values[i])
    q_values = [0.0] * m
    smallest_above = 1.0
    for rank in range(m, 0, -1):
        i = by_size[rank - 1]
        smallest_above = min(smallest_above, p_values[i] * m / rank)
        q_values[i] = smallest_above
    return q_values
