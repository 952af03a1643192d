"""The ingest pipeline: records in, papers stored and tagged, a report out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from sqlmodel import Session

from digests.errors import EXIT_FAILURE, Unavailable
from digests.papers.feeds import ParsedFeed, Skip
from digests.papers.first_versions import date_listed, ids_to_look_up, undated
from digests.papers.records import PaperRecord
from digests.store import repo
from digests.topics.catalog import Catalog, UnknownTopic
from digests.topics.tagger import Tagger, TagScore
from digests.usecases.follows import tag_new_papers
from digests.usecases.retag import RetagStatus, note_tagger, tag_rows

# Papers per call of the tagger: its arrays then stay in the CPU's caches (a quarter faster per
# paper than 4,000 at once).
TAG_CHUNK = 250
NOTHING_ANNOUNCED = "no new announcements (arXiv announces none on weekends and holidays)"


class SourceUnavailable(Unavailable, RuntimeError):
    """A source of papers gave no usable answer; the message says why, in one line."""

    exit_code = EXIT_FAILURE


class PaperSource(Protocol):
    """Where new papers come from (the arXiv client); each call may raise SourceUnavailable."""

    async def fetch_listing(self, categories: Sequence[str]) -> ParsedFeed: ...

    async def first_versions(self, arxiv_ids: Sequence[str]) -> dict[str, datetime]: ...


@dataclass
class IngestReport:
    read: int = 0
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    tags_added: int = 0
    # Older versions of papers whose newer version is in the same document: read, not stored.
    superseded: int = 0
    skipped: list[Skip] = field(default_factory=list)
    # Papers known to exist that were not read (a listing or result pages cut short).
    missing: list[Skip] = field(default_factory=list)
    # Stored papers whose upstream topics could not all be matched to the catalog.
    warnings: list[Skip] = field(default_factory=list)
    # Papers stored for the first time but first announced before this listing (cross-lists of
    # older papers, replacements of papers not held), by where their first-version date came
    # from: the arXiv API or the id.
    dated_by: Counter[str] = field(default_factory=Counter)

    @property
    def earlier(self) -> int:
        return sum(self.dated_by.values())

    def merge(self, other: IngestReport) -> None:
        self.read += other.read
        self.new += other.new
        self.updated += other.updated
        self.unchanged += other.unchanged
        self.superseded += other.superseded
        self.tags_added += other.tags_added
        self.skipped.extend(other.skipped)
        self.missing.extend(other.missing)
        self.warnings.extend(other.warnings)
        self.dated_by.update(other.dated_by)

    def summary(self, *, max_skips: int = 20) -> str:
        if self.read == 0 and not self.missing:
            return NOTHING_ANNOUNCED
        lines = [f"read: {self.read}", f"new: {self.new}"]
        if self.earlier:
            sources = ", ".join(f"{n} by {source}" for source, n in sorted(self.dated_by.items()))
            lines.append(f"earlier: {self.earlier} (first announced before; dated {sources})")
        lines += [
            f"updated: {self.updated}",
            f"unchanged: {self.unchanged}",
        ]
        if self.superseded:
            lines.append(f"superseded: {self.superseded} (older versions read beside a newer one)")
        lines.append(f"skipped: {len(self.skipped)}")
        lines += [f"  {skip.where}: {skip.reason}" for skip in self.skipped[:max_skips]]
        if len(self.skipped) > max_skips:
            lines.append(f"  … and {len(self.skipped) - max_skips} more")
        if self.missing:
            lines.append("missing (known to exist, not read):")
            lines += [f"  {gap.where}: {gap.reason}" for gap in self.missing[:max_skips]]
        lines.append(f"tags added: {self.tags_added}")
        lines += [f"warning: {note.where}: {note.reason}" for note in self.warnings[:max_skips]]
        return "\n".join(lines)


def sync_catalog(
    session: Session, *, catalog: Catalog, tagger: Tagger, now: datetime
) -> RetagStatus:
    """Store the catalog's topics; when the tagger changed, start re-tagging stored papers
    in the background (`digests.usecases.retag`)."""
    repo.sync_topics(session, catalog.topics)
    return note_tagger(session, tagger, now=now)


def record_tags(
    tagger: Tagger, catalog: Catalog, records: Sequence[PaperRecord]
) -> tuple[list[list[TagScore]], list[Skip]]:
    """Every tag each record is stored with, best first: the tagger's, and the record's
    upstream topics (score 1.0) that the catalog knows; plus a warning per unknown one."""
    papers = [(r.title, r.abstract, r.categories) for r in records]
    tagged = [
        tags
        for start in range(0, len(papers), TAG_CHUNK)
        for tags in tagger.tag_many(papers[start : start + TAG_CHUNK])
    ]
    warnings: list[Skip] = []
    for tags, record in zip(tagged, records, strict=True):
        for name in record.upstream_topics:
            try:
                tags.append(TagScore(catalog.resolve(name).slug, 1.0, "upstream"))
            except UnknownTopic as exc:
                warnings.append(Skip(record.arxiv_id, f"upstream topic ignored: {exc}"))
    return tagged, warnings


def listing_ids_to_look_up(session: Session, records: Iterable[PaperRecord]) -> list[str]:
    """Cross-lists and replacements whose first-version date is worth asking the arXiv API."""
    records = list(records)
    return ids_to_look_up(records, held=_held(session, records))


def _held(session: Session, records: list[PaperRecord]) -> set[str]:
    return repo.held_ids(session, [record.arxiv_id for record in undated(records)])


def ingest_records(
    session: Session,
    records: Iterable[PaperRecord],
    *,
    tagger: Tagger,
    catalog: Catalog,
    now: datetime,
    looked_up: Mapping[str, datetime] | None = None,
) -> IngestReport:
    """Upsert `records`, tag new and updated papers, and store upstream tags next to ours.

    A listing's cross-lists and replacements are first dated by their first version (see
    `digests.papers.first_versions`); `looked_up` holds the arXiv API's dates for some of them.
    """
    records = list(records)
    report = IngestReport(read=len(records))
    dated = date_listed(records, held=_held(session, records), looked_up=looked_up or {})
    result = repo.upsert_papers(session, dated.records, now=now)
    sources = [dated.earlier.get(record.arxiv_id) for record in result.new.values()]
    report.dated_by.update(source for source in sources if source)
    report.new = len(result.new) - report.earlier
    report.updated, report.unchanged = len(result.updated), result.unchanged
    report.superseded = result.superseded
    changed = result.new | result.updated
    tagged, report.warnings = record_tags(tagger, catalog, list(changed.values()))
    tags = tag_rows(session, list(changed), tagged)
    published_on = {paper_id: record.first_version_date for paper_id, record in changed.items()}
    report.tags_added = repo.write_tags(session, tags, published_on, now=now)
    report.tags_added += tag_new_papers(session, changed, now=now)
    return report


def ingest_parsed(
    session: Session,
    parsed: ParsedFeed,
    *,
    tagger: Tagger,
    catalog: Catalog,
    now: datetime,
    looked_up: Mapping[str, datetime] | None = None,
) -> IngestReport:
    """Ingest a parsed document, carrying its skipped entries into the report."""
    parsed.set_aside_implausible(now=now)
    report = ingest_records(
        session, parsed.records, tagger=tagger, catalog=catalog, now=now, looked_up=looked_up
    )
    report.read = parsed.read
    report.skipped[:0] = parsed.skipped
    return report
