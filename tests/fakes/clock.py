"""The tests' one clock: time is an argument everywhere below `bot/`, so a test holds it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

MONDAY_9 = datetime(2026, 9, 28, 9, 0, tzinfo=UTC)  # weekly digests fall due at 9:00 on Mondays


class Clock:
    """`now` as the test sets it; `sleep` waits no real time: it moves `now` on by as long as
    asked and notes how long that was."""

    def __init__(self, now: datetime = MONDAY_9) -> None:
        self.now = now
        self.slept: list[float] = []

    def __call__(self) -> datetime:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += timedelta(seconds=seconds)
