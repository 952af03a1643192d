"""First-version dates of listing items: a paper counts on the day its first version came out.

A daily listing dates every item by its announcement. That is the paper's first-version date
for a `new` item only. A `cross` item is either a new submission cross-listed here (announced
the same day as `new` in its own category) or an older paper newly cross-listed; `replace` and
`replace-cross` items are later versions of papers announced before. Such an item is dated by

1. the store, when the paper is held already: the upsert keeps the stored date;
2. the arXiv API's `published` date of version 1, which the caller looks up for the ids
   `ids_to_look_up` names: papers not held whose id says their first version may fall inside
   the 12-week histogram of the announcement, where the day matters;
3. otherwise its id: `2205.06398` was first submitted in May 2022, so it counts on 2022-05-01,
   long before any window a reader sees.

A cross-listed first version from the week before the announcement is a new submission: it is
dated by the announcement, like its `new` siblings, and counts as new.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta

from digests.papers.records import PaperRecord, id_month
from digests.signals.momentum import histogram_start

UNDATED_TYPES = frozenset({"cross", "replace", "replace-cross"})
# A cross-listed first version this many days before the announcement is a new submission
# (weekends and holidays lie between a submission and its announcement).
FRESH_DAYS = 7
FROM_API = "the arXiv API"
FROM_ID = "the id"


@dataclass
class Dated:
    """Records with first-version dates, and how the papers announced before were dated."""

    records: list[PaperRecord]
    # Papers first announced before this listing (not held), by where their date came from.
    earlier: dict[str, str] = field(default_factory=dict)


def undated(records: Iterable[PaperRecord]) -> list[PaperRecord]:
    """The cross-lists and replacements: records whose `published` is only the announcement."""
    return [record for record in records if record.announce_type in UNDATED_TYPES]


def ids_to_look_up(records: Iterable[PaperRecord], *, held: Collection[str]) -> list[str]:
    """Ids of undated papers not held whose first version may lie in the announcement's
    12-week histogram: for them the exact day is worth a request to the API."""
    return sorted(
        {
            record.arxiv_id
            for record in undated(records)
            if record.arxiv_id not in held and _id_month_end(record) >= _histogram_start(record)
        }
    )


def date_listed(
    records: Iterable[PaperRecord],
    *,
    held: Collection[str],
    looked_up: Mapping[str, datetime],
) -> Dated:
    """Give every undated record that is not held its first-version date as `published`.

    `looked_up` holds version 1's date from the arXiv API by id; ids missing there are dated
    by the month in the id.
    """
    dated = Dated(records=[])
    for record in records:
        if record.announce_type not in UNDATED_TYPES or record.arxiv_id in held:
            dated.records.append(record)
            continue
        from_api = looked_up.get(record.arxiv_id)
        if _is_new_submission(record, from_api):
            dated.records.append(replace(record, published=_announced(record)))
            continue
        first = from_api or datetime.combine(id_month(record.arxiv_id), time.min, tzinfo=UTC)
        dated.records.append(replace(record, published=min(first, _announced(record))))
        dated.earlier[record.arxiv_id] = FROM_API if from_api else FROM_ID
    return dated


def _is_new_submission(record: PaperRecord, from_api: datetime | None) -> bool:
    if record.announce_type != "cross" or record.version != 1:
        return False
    latest = from_api.date() if from_api else _id_month_end(record)
    return latest >= _announced(record).date() - timedelta(days=FRESH_DAYS)


def _announced(record: PaperRecord) -> datetime:
    return record.announced or record.published


def _histogram_start(record: PaperRecord) -> date:
    return histogram_start(_announced(record).date())


def _id_month_end(record: PaperRecord) -> date:
    first = id_month(record.arxiv_id)
    next_month = (first.replace(day=28) + timedelta(days=4)).replace(day=1)
    return next_month - timedelta(days=1)
