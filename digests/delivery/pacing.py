"""Sends paced under a platform's per-bot limit, and shared among the replicas sending.

Discord allows a bot 50 requests a second and Telegram about 30 messages, counted per bot, not
per process: with several replicas draining the same queue, each takes its share of the limit.
discord.py meets the global limit only by running into 429s, and Cloudflare bans a bot that
makes 10,000 invalid requests (401, 403, 429) in 10 minutes, so staying under it matters.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Callable


class RequestPace:
    """At most `per_second` × `share` starts in any `window` (a sliding window also satisfies
    the platform's, however it is aligned), and starts at least `gap` apart, so a backlog never
    leaves in one burst that network jitter could push into a single window. Both count real
    start times: after the event loop was busy, waiting sends go out spaced, not all at once.
    """

    def __init__(
        self,
        per_second: float,
        *,
        window: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_second = per_second
        self.window = window
        self.clock = clock
        self.share = 1.0
        self.limit, self.gap = self._bounds()
        self._starts: collections.deque[float] = collections.deque()
        self._turn = asyncio.Lock()  # waiters are served in the order they came

    def set_share(self, share: float) -> None:
        """Take `share` (0 < share ≤ 1) of the limit, e.g. ½ while two replicas send."""
        self.share = min(1.0, max(share, 0.01))
        self.limit, self.gap = self._bounds()

    async def wait_turn(self) -> None:
        async with self._turn:
            while (delay := self._delay(self.clock())) > 0:
                await asyncio.sleep(delay)
            self._starts.append(self.clock())

    def _bounds(self) -> tuple[int, float]:
        rate = self.per_second * self.share
        return max(1, int(rate * self.window)), 0.75 / rate

    def _delay(self, now: float) -> float:
        while self._starts and self._starts[0] <= now - self.window:
            self._starts.popleft()
        if not self._starts:
            return 0.0
        delay = self._starts[-1] + self.gap - now
        if len(self._starts) >= self.limit:
            delay = max(delay, self._starts[0] + self.window - now)
        return delay
