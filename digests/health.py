"""Whether the bot is healthy, from what the running process saw: a store it cannot write, a
leader whose jobs fail again and again, a chat platform unreachable longer than its retries
are meant to bridge. `HealthFacts` is written as things happen; `problems` decides."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

JOB_FAILURES = 3  # a job failing this many times in a row is a problem, not a hiccup
PLATFORM_RETRY_WINDOW = timedelta(minutes=10)
STORE_TROUBLE = "the bot is having trouble storing your change, try again later"


@dataclass
class HealthFacts:
    """What happened lately; each fact is replaced by the next one of its kind."""

    store_failure: str | None = None  # the last write that failed, until one succeeds
    job_failures: dict[str, tuple[int, str]] = field(default_factory=dict)
    platforms_down: dict[str, tuple[datetime, str]] = field(default_factory=dict)

    def store_failed(self, reason: str) -> None:
        self.store_failure = reason

    def store_written(self) -> None:
        self.store_failure = None

    def job_failed(self, job: str, reason: str) -> None:
        count = self.job_failures.get(job, (0, ""))[0]
        self.job_failures[job] = (count + 1, reason)

    def job_done(self, job: str) -> None:
        self.job_failures.pop(job, None)

    def platform_down(self, platform: str, reason: str, *, now: datetime) -> None:
        since = self.platforms_down.get(platform, (now, ""))[0]
        self.platforms_down[platform] = (since, reason)

    def platform_up(self, platform: str) -> None:
        self.platforms_down.pop(platform, None)


def problems(
    facts: HealthFacts, *, now: datetime, retry_window: timedelta = PLATFORM_RETRY_WINDOW
) -> list[str]:
    """Each reason the bot is degraded, in words; empty when it is healthy."""
    found = []
    if facts.store_failure is not None:
        found.append(f"the store cannot be written: {facts.store_failure}")
    for job, (count, reason) in sorted(facts.job_failures.items()):
        if count >= JOB_FAILURES:
            found.append(f"the {job} job failed {count} times in a row: {reason}")
    for platform, (since, reason) in sorted(facts.platforms_down.items()):
        if now - since >= retry_window:
            minutes = int((now - since).total_seconds() // 60)
            found.append(f"{platform} unreachable for {minutes} min: {reason}")
    return found


def first_line(error: BaseException) -> str:
    """An error's own message, one line, without SQL or parameters."""
    text = str(getattr(error, "orig", None) or error).strip()
    return (text.splitlines() or [type(error).__name__])[0][:200]
