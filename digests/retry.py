"""How long to wait before trying again: capped exponential backoff with jitter.

One rule for everything digestbot retries (sends, arXiv requests, connecting to a chat
platform at start), so that many callers failing together spread their retries out.
"""

from __future__ import annotations

import random


def backoff_delay(failures: int, *, base: float, cap: float) -> float:
    """Seconds before the next try after `failures` failures in a row (1, 2, ...): half of
    `base` × 2^(failures − 1), capped at `cap`, plus a random share of the other half."""
    ceiling = min(base * 2 ** min(max(failures - 1, 0), 30), cap)
    return ceiling / 2 + random.uniform(0, ceiling / 2)
