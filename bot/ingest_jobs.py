"""A resumable backfill from the arXiv API (today's listing is `UseCases.ingest_listing`).

Each fetched page is stored in its own transaction together with the cursor that says what
comes next, so an interrupted backfill resumes at the first page it had not stored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bot.arxiv import API_PAGE_LIMIT, ArxivClient, ArxivUnavailable, submitted_query
from digests.papers.feeds import ParsedFeed, Skip
from digests.store.repo import load_state, save_state
from digests.store.unit_of_work import SessionFactory, unit_of_work
from digests.topics.catalog import Catalog
from digests.topics.tagger import Tagger
from digests.usecases.ingest import IngestReport, ingest_parsed

BACKFILL_KEY = "backfill"
# A new request ending this close to a stored one is the same request, run again.
RESUME_TOLERANCE = timedelta(days=1)
_DAY = timedelta(days=1)
_MINUTE = timedelta(minutes=1)


class BackfillInterrupted(ArxivUnavailable):
    """arXiv gave up mid-backfill; the pages stored so far are kept and a rerun resumes."""

    def __init__(self, message: str, report: IngestReport) -> None:
        super().__init__(message)
        self.report = report


@dataclass
class BackfillCursor:
    """Where a backfill stands: the requested range, the day window and the next offset."""

    categories: list[str]
    days: int
    range_start: datetime
    range_end: datetime
    window: int = 0  # index into windows()
    next_start: int = 0
    total_results: int | None = None
    done: bool = False  # every window's pages were asked for
    # [window, start, count]: results asked for that came back empty or cut short.
    gaps: list[list[int]] = field(default_factory=list)
    windows: list[tuple[datetime, datetime]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.windows = day_windows(self.range_start, self.range_end, self.days)

    @classmethod
    def requested(cls, categories: Sequence[str], days: int, now: datetime) -> BackfillCursor:
        end = now.astimezone(UTC).replace(second=0, microsecond=0)
        return cls(sorted(set(categories)), days, end - days * _DAY, end)

    @classmethod
    def from_state(cls, state: dict) -> BackfillCursor | None:
        """The stored cursor, or None when there is none or it cannot be read."""
        try:
            cursor = cls(
                categories=list(state["categories"]),
                days=int(state["days"]),
                range_start=datetime.fromisoformat(state["range_start"]),
                range_end=datetime.fromisoformat(state["range_end"]),
                window=int(state["window"]),
                next_start=int(state["next_start"]),
                total_results=state.get("total_results"),
                done=bool(state.get("done", False)),
                gaps=[[int(w), int(s), int(c)] for w, s, c in state.get("gaps", [])],
            )
        except (KeyError, TypeError, ValueError):
            return None
        in_range = 0 <= cursor.window < len(cursor.windows) and cursor.next_start >= 0
        return cursor if cursor.done or in_range else None

    def to_state(self) -> dict:
        state = {
            "categories": self.categories,
            "days": self.days,
            "range_start": self.range_start.isoformat(),
            "range_end": self.range_end.isoformat(),
            "window": self.window,
            "next_start": self.next_start,
            "total_results": self.total_results,
            "done": self.done,
            "gaps": self.gaps,
        }
        if not self.done:
            start, end = self.windows[self.window]
            state |= {"window_start": start.isoformat(), "window_end": end.isoformat()}
        return state

    def same_request(self, other: BackfillCursor) -> bool:
        return (
            self.categories == other.categories
            and self.days == other.days
            and abs(self.range_end - other.range_end) <= RESUME_TOLERANCE
        )

    @property
    def complete(self) -> bool:
        return self.done and not self.gaps

    def advance(self, page: ParsedFeed, page_size: int) -> None:
        """Move past the entries of `page` read whole. An empty page still moves on, or a
        window could never end, and leaves a gap to fetch again."""
        self.total_results = page.total_results or 0
        expected = min(page_size, self.total_results - self.next_start)
        if page.read == 0 and expected > 0:
            self.gaps.append([self.window, self.next_start, expected])
        self.next_start += page.read or page_size
        if self.next_start >= self.total_results:
            self.window, self.next_start, self.total_results = self.window + 1, 0, None
            self.done = self.window >= len(self.windows)


def day_windows(start: datetime, end: datetime, days: int) -> list[tuple[datetime, datetime]]:
    """`days` consecutive submittedDate windows, inclusive to the minute, last one ending at
    `end` (arXiv's bounds are inclusive, so each window stops a minute before the next)."""
    windows = []
    for index in range(days):
        window_start = start + index * _DAY
        window_end = end if index == days - 1 else window_start + _DAY - _MINUTE
        windows.append((window_start, window_end))
    return windows


def _resume_or_start(stored: dict, requested: BackfillCursor) -> tuple[BackfillCursor, bool]:
    cursor = BackfillCursor.from_state(stored)
    if cursor is not None and cursor.same_request(requested):
        return cursor, True
    return requested, False


async def backfill(
    client: ArxivClient,
    session_factory: SessionFactory,
    *,
    categories: Sequence[str],
    days: int,
    page_size: int,
    tagger: Tagger,
    catalog: Catalog,
    now: datetime,
    progress: Callable[[str], None] | None = None,
) -> IngestReport:
    """Fetch every paper submitted in the last `days` days, one day window at a time.

    Resumes a matching unfinished backfill at its next page, fetches what a matching one
    missed, and does nothing for a complete one. A page cut short is asked for again from its
    first entry not read whole; results that stay empty or cut are fetched once more at the
    end and otherwise listed in `report.missing`, for the next run to fetch. Raises
    `BackfillInterrupted` (an `ArxivUnavailable`) when arXiv gives up.
    """
    if not 1 <= page_size <= API_PAGE_LIMIT:
        raise ValueError(f"page_size must be 1..{API_PAGE_LIMIT}, not {page_size}")
    if days < 1:
        raise ValueError(f"days must be at least 1, not {days}")
    say = progress or (lambda _line: None)
    with session_factory() as session:
        stored = load_state(session, BACKFILL_KEY)
    cursor, resumed = _resume_or_start(stored, BackfillCursor.requested(categories, days, now))
    report = IngestReport()
    if cursor.complete:
        say(f"backfill of {_describe(cursor)} is already complete")
        return report
    if resumed and not cursor.done:
        day = cursor.windows[cursor.window][0]
        say(f"resuming backfill of {_describe(cursor)}: {day:%Y-%m-%d}, from {cursor.next_start}")

    def store(page: ParsedFeed) -> None:
        with unit_of_work(session_factory) as session:
            page_report = ingest_parsed(session, page, tagger=tagger, catalog=catalog, now=now)
            save_state(session, BACKFILL_KEY, cursor.to_state(), now=now, success=cursor.complete)
        report.merge(page_report)

    while not cursor.done:
        window_start, start = cursor.windows[cursor.window][0], cursor.next_start
        page = await _fetch_page(client, cursor, cursor.window, start, page_size, report)
        cursor.advance(page, page_size)
        store(page)
        total = page.total_results or 0
        say(f"{window_start:%Y-%m-%d %H:%M}: {min(start + page.read, total)}/{total} papers")
    await _refetch_gaps(client, cursor, page_size, report, store, say)
    report.missing = [_missing(cursor, *gap) for gap in cursor.gaps]
    return report


async def _refetch_gaps(
    client: ArxivClient,
    cursor: BackfillCursor,
    page_size: int,
    report: IngestReport,
    store: Callable[[ParsedFeed], None],
    say: Callable[[str], None],
) -> None:
    """Ask once more for each gap's results, until one comes back empty or cut again."""
    for gap in list(cursor.gaps):
        while gap[2] > 0:
            window, start, count = gap
            page = await _fetch_page(client, cursor, window, start, min(count, page_size), report)
            if page.read == 0:
                break
            gap[1], gap[2] = start + page.read, count - page.read
            if gap[2] <= 0:
                cursor.gaps.remove(gap)
            store(page)
            say(f"{cursor.windows[window][0]:%Y-%m-%d %H:%M}: {page.read} papers missed before")


def _missing(cursor: BackfillCursor, window: int, start: int, count: int) -> Skip:
    day = cursor.windows[window][0]
    where = f"{day:%Y-%m-%d %H:%M} window, results {start + 1}–{start + count}"
    reason = "arXiv's answers stayed empty or cut short; run the backfill again to fetch them"
    return Skip(where, reason)


async def _fetch_page(
    client: ArxivClient,
    cursor: BackfillCursor,
    window: int,
    start: int,
    size: int,
    report: IngestReport,
) -> ParsedFeed:
    """One page of a window, without an entry its end cut in half (that one is asked for
    again, as the first of the next page)."""
    window_start, window_end = cursor.windows[window]
    query = submitted_query(cursor.categories, window_start, window_end)
    try:
        page = await client.query(query, start=start, max_results=size)
    except ArxivUnavailable as exc:
        raise BackfillInterrupted(
            f"backfill stopped at {window_start:%Y-%m-%d %H:%M}, paper {start} "
            f"({exc}); run it again to resume there",
            report,
        ) from exc
    return page.whole()


def _describe(cursor: BackfillCursor) -> str:
    return (
        f"{'+'.join(cursor.categories)} from {cursor.range_start:%Y-%m-%d %H:%M} "
        f"to {cursor.range_end:%Y-%m-%d %H:%M} UTC"
    )
