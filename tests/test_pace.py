"""Sends paced under a per-bot limit, and a replica's share of it."""

from __future__ import annotations

import asyncio
import itertools
import time

from digests.delivery.pacing import RequestPace

WINDOW = 0.05  # seconds; real time, kept short


class RecordingClock:
    """The monotonic clock, remembering what it last said: the start the pace recorded."""

    def __init__(self) -> None:
        self.last = 0.0

    def __call__(self) -> float:
        self.last = time.monotonic()
        return self.last


def paced(per_second: float) -> tuple[RequestPace, RecordingClock]:
    clock = RecordingClock()
    return RequestPace(per_second, window=WINDOW, clock=clock), clock


async def start_times(pace: RequestPace, clock: RecordingClock, turns: int) -> list[float]:
    starts = []
    for _ in range(turns):
        await asyncio.wait_for(pace.wait_turn(), 5)
        starts.append(clock.last)
    return starts


def most_in_any_window(starts: list[float], window: float) -> int:
    return max(sum(1 for t in starts if s <= t < s + window) for s in starts)


async def test_a_backlog_leaves_spaced_never_more_than_the_limit_in_any_window():
    pace, clock = paced(200)  # 10 per window
    starts = await start_times(pace, clock, 25)
    assert most_in_any_window(starts, WINDOW) <= 10
    assert min(b - a for a, b in itertools.pairwise(starts)) >= pace.gap


async def test_half_a_share_sends_half_as_many_in_any_window():
    pace, clock = paced(200)
    pace.set_share(0.5)
    starts = await start_times(pace, clock, 15)
    assert most_in_any_window(starts, WINDOW) <= 5
    assert starts[-1] - starts[0] >= 2 * WINDOW  # 15 starts need three windows


async def test_concurrent_waiters_are_served_in_the_order_they_came():
    pace = RequestPace(400, window=WINDOW)
    served: list[int] = []

    async def waiter(number: int) -> None:
        await pace.wait_turn()
        served.append(number)

    await asyncio.wait_for(asyncio.gather(*(waiter(n) for n in range(30))), 5)
    assert served == list(range(30))
