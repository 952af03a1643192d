"""The spike statistics agree with SciPy's, and the bot runs without SciPy installed."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap

import pytest
from scipy.stats import binom, false_discovery_control

from digests.signals.significance import bh_adjust, binomial_upper_tail

TRIALS = [1, 2, 3, 10, 99, 1_000, 12_345, 100_000, 1_000_000]
RATES = [1e-12, 1e-6, 0.001, 0.0101, 0.3, 0.5, 0.7, 0.99, 1 - 1e-6, 1 - 1e-12]


def successes_to_try(n: int, p: float) -> set[int]:
    """Both ends, the middle, and around the mean out to far in its upper tail."""
    mean = n * p
    spread = (mean * (1 - p)) ** 0.5
    near_mean = {int(mean) + d for d in (-1, 0, 1)}
    far = {int(mean + 3 * spread), int(mean + 10 * spread) + 1}
    return {k for k in {0, 1, 2, n // 3, n // 2, n - 1, n, n + 1} | near_mean | far if k >= 0}


@pytest.mark.parametrize("n", TRIALS)
def test_the_binomial_upper_tail_agrees_with_scipy(n):
    # Its error grows with n through `math.lgamma`; a spike's n is at most a few thousand.
    tolerance = max(1e-12, n * 1e-14)
    for p in RATES:
        for k in sorted(successes_to_try(n, p)):
            expected = float(binom.sf(k - 1, n, p))
            assert binomial_upper_tail(k, n, p) == pytest.approx(
                expected, rel=tolerance, abs=1e-300
            ), (k, n, p)


def test_the_binomial_upper_tail_at_its_edges():
    assert binomial_upper_tail(0, 50, 0.3) == 1.0  # always at least zero successes
    assert binomial_upper_tail(51, 50, 0.3) == 0.0
    assert binomial_upper_tail(50, 50, 0.5) == pytest.approx(0.5**50, rel=1e-14)
    assert binomial_upper_tail(1, 50, 0.0) == 0.0
    assert binomial_upper_tail(50, 50, 1.0) == 1.0
    assert binomial_upper_tail(1, 1_000_000, 1e-12) == pytest.approx(1e-6, rel=1e-6)


def random_p_values(rng: random.Random, m: int) -> list[float]:
    """Mostly uniform, with ties, zeros, ones and tiny values mixed in."""
    pool = [0.0, 1.0, 1e-300, 0.05, 0.05, 0.5]
    return [rng.choice(pool) if rng.random() < 0.2 else rng.random() ** 3 for _ in range(m)]


@pytest.mark.parametrize("m", [1, 2, 3, 10, 136, 1_000])
def test_benjamini_hochberg_agrees_with_scipy(m):
    rng = random.Random(m)
    for _ in range(20):
        p_values = random_p_values(rng, m)
        expected = false_discovery_control(p_values, method="bh").tolist()
        assert bh_adjust(p_values) == pytest.approx(expected, rel=1e-12, abs=1e-300)


def test_benjamini_hochberg_of_nothing_is_nothing():
    assert bh_adjust([]) == []


def test_the_bot_and_its_core_never_load_scipy():
    # In a fresh interpreter: importing every module of both packages, both chat adapters
    # included, must leave SciPy unloaded (it is only a test dependency).
    script = textwrap.dedent(
        """
        import importlib, pkgutil, sys
        import bot, digests
        for package in (bot, digests):
            for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
                # `digestbot train` alone imports the training module, with the train extra.
                if not module.name.endswith(("__main__", "topics.training")):
                    importlib.import_module(module.name)
        assert "bot.platforms.telegram" in sys.modules and "bot.platforms.discord" in sys.modules
        print(sorted(name for name in sys.modules if name.split(".")[0] == "scipy"))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
