"""Re-tagging stored papers when the tagger changes: in batches, resumable, counted per topic.

The store remembers which tagger version (`Tagger.version`: rules, model and thresholds) its
tags come from. When the running tagger is another one, a re-tag run starts: stored papers
are re-tagged in id order, one batch per transaction, and the cursor is saved with each
batch, so a restart resumes where the last one stopped, and ingest and delivery never wait
for more than one batch. Tags keep their paper's first-version date and a tag a paper
already had keeps its first `tagged_at` (see `repo.write_tags`), so momentum history stays
consistent and no old paper looks new. Upstream tags are left alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session

from digests.store import repo
from digests.store.unit_of_work import unit_of_work
from digests.topics.tagger import Tagger, TagScore

STATE_KEY = "tagger"
BATCH = 500


@dataclass
class RetagStatus:
    version: str  # the tagger version every stored tag comes from, once no run is under way
    target: str | None = None  # the version a run under way applies
    after_id: int = 0  # the run has re-tagged every paper up to this id
    last_id: int = 0  # the highest paper id when the run started
    # slug -> [papers that gained the topic, papers that lost it], in this (or the last) run
    changes: dict[str, list[int]] = field(default_factory=dict)

    @property
    def pending(self) -> bool:
        return self.target is not None

    def to_cursor(self) -> dict:
        return {
            "version": self.version,
            "target": self.target,
            "after_id": self.after_id,
            "last_id": self.last_id,
            "changes": self.changes,
        }


def retag_status(session: Session) -> RetagStatus | None:
    cursor = repo.load_state(session, STATE_KEY)
    if not cursor:
        return None
    return RetagStatus(
        version=cursor.get("version", ""),
        target=cursor.get("target"),
        after_id=cursor.get("after_id", 0),
        last_id=cursor.get("last_id", 0),
        changes={slug: list(pair) for slug, pair in cursor.get("changes", {}).items()},
    )


def note_tagger(
    session: Session, tagger: Tagger, *, now: datetime, force: bool = False
) -> RetagStatus:
    """Start a re-tag run if the stored tags come from another tagger (at start-up), or,
    with `force`, whenever none is under way."""
    status = retag_status(session)
    current = tagger.version
    if status is None and not repo.max_paper_id(session):
        status = RetagStatus(version=current)  # an empty store: nothing to re-tag
    elif status is None or (status.target or status.version) != current or force:
        if status is not None and status.target == current:
            return status  # forced, but this tagger's run is under way already
        status = RetagStatus(
            version=status.version if status else "",
            target=current,
            last_id=repo.max_paper_id(session),
        )
    else:
        return status
    repo.save_state(session, STATE_KEY, status.to_cursor(), now=now)
    return status


def tag_rows(
    session: Session, paper_ids: Sequence[int], tagged: Sequence[Sequence[TagScore]]
) -> dict[int, list[tuple[int, float, str]]]:
    """Each paper's tags as `repo.write_tags` stores them: (topic id, score, source)."""
    topic_ids = {slug: row.id for slug, row in repo.topic_rows(session).items()}
    return {
        paper_id: [(topic_ids[t.slug], t.score, t.source) for t in tags if t.slug in topic_ids]
        for paper_id, tags in zip(paper_ids, tagged, strict=True)
    }


def retag_batch(
    session: Session, tagger: Tagger, *, now: datetime, limit: int = BATCH
) -> RetagStatus | None:
    """Re-tag the next `limit` papers of the run under way; None when no run is under way.

    The caller commits; one call is one transaction's worth of work.
    """
    status = retag_status(session)
    if status is None or status.target != tagger.version:
        return None
    rows = repo.papers_for_tagging(session, after_id=status.after_id, limit=limit)
    if rows:
        _retag(session, tagger, rows, status.changes, now=now)
        status.after_id = rows[-1].id
    if len(rows) < limit:  # nothing after this batch: the run is complete
        status.version, status.target = status.target, None
    repo.save_state(session, STATE_KEY, status.to_cursor(), now=now)
    return status


def retag_all(
    session_factory: Callable[[], Session],
    tagger: Tagger,
    *,
    now: datetime,
    progress: Callable[[RetagStatus], None] | None = None,
) -> RetagStatus:
    """Re-tag every stored paper now (`digestbot retag`), a batch per transaction."""
    with unit_of_work(session_factory) as session:
        status = note_tagger(session, tagger, now=now, force=True)
    while status.pending:
        with unit_of_work(session_factory) as session:
            status = retag_batch(session, tagger, now=now) or status
        if progress is not None:
            progress(status)
    return status


def _retag(session: Session, tagger: Tagger, rows: Sequence, changes: dict, *, now) -> None:
    slugs = {topic.id: slug for slug, topic in repo.topic_rows(session).items()}
    before = repo.machine_topics(session, [row.id for row in rows])
    tagged = tagger.tag_many([(row.title, row.abstract, row.categories) for row in rows])
    tags = tag_rows(session, [row.id for row in rows], tagged)
    for paper_id, paper_tags in tags.items():
        after = {topic_id for topic_id, _, _ in paper_tags}
        for topic_id in after - before[paper_id]:
            changes.setdefault(slugs[topic_id], [0, 0])[0] += 1
        for topic_id in before[paper_id] - after:
            changes.setdefault(slugs[topic_id], [0, 0])[1] += 1
    repo.write_tags(session, tags, {row.id: row.published_on for row in rows}, now=now)
