"""`digestbot tag`, `eval`, `train` and `retag`: what the tagger decides, how right it is,
learning it anew, applying it.

Imported when one of these commands runs (see `bot.cli.COMMANDS`).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime

from bot.app import build_app
from bot.documents import read_document
from bot.settings import Settings
from digests.errors import DigestbotError, UsageError
from digests.messages.plain_text import clean_text
from digests.papers.feeds import FeedError, parse_document
from digests.papers.records import PaperRecord
from digests.store import repo
from digests.store.unit_of_work import unit_of_work
from digests.topics.catalog import Catalog
from digests.topics.evaluation import (
    Evaluation,
    GoldError,
    evaluate,
    evaluate_by_month,
    load_gold,
)
from digests.topics.tagger import Tagger, TagScore
from digests.usecases.ingest import record_tags
from digests.usecases.retag import RetagStatus, retag_all

CHUNK = 2_000  # papers tagged together; the learned tier is much faster in batches


def cmd_tag(settings: Settings, args: argparse.Namespace) -> int:
    """Tag every paper of a file without storing anything."""
    with _no_cycle_collection():
        try:
            parsed = parse_document(read_document(args.file), name=str(args.file))
        except FeedError as exc:
            raise DigestbotError(f"{args.file}: {exc}") from None
        catalog = Catalog.load(settings.topics_file)
        tagger = Tagger(catalog)
        for skip in parsed.skipped:
            print(f"skipped {skip.where}: {skip.reason}", file=sys.stderr)
        _write_tags(tagger, catalog, parsed.records, args.json)
    return 0 if parsed.records else 1


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Reading and tagging make no reference cycles, yet they allocate enough for the cycle
    collector to look through every paper read and the tagger's tables, over and over: a
    tenth of the command's time. Reference counting frees what they leave behind."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _write_tags(
    tagger: Tagger, catalog: Catalog, records: Sequence[PaperRecord], as_json: bool
) -> None:
    out = sys.stdout
    json_line = _JsonLines(catalog)
    for chunk, tagged in _tagged_chunks(tagger, catalog, records):
        for record, tags in zip(chunk, tagged, strict=True):
            topics = _best_per_topic(tags)
            if as_json:
                out.write(json_line(record.arxiv_id, topics))
            else:
                out.write(_table_row(catalog, record, topics))


class _JsonLines:
    """A paper's line of `tag --json`, as `json.dumps` writes it, from fragments kept per
    (topic, score): the same few hundred recur in every file, and encoding them each time
    was a tenth of the command's time."""

    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog
        self._fragments: dict[tuple[str, float], str] = {}

    def __call__(self, arxiv_id: str, topics: list[tuple[str, float]]) -> str:
        fragments = self._fragments
        parts = []
        for topic in topics:
            fragment = fragments.get(topic)
            if fragment is None:
                if len(fragments) > 100_000:  # scores repeat; this only bounds odd inputs
                    fragments.clear()
                [entry] = _topics_json(self._catalog, [topic])
                fragment = fragments[topic] = json.dumps(entry, ensure_ascii=False)
            parts.append(fragment)
        encoded_id = json.dumps(arxiv_id, ensure_ascii=False)
        return f'{{"id": {encoded_id}, "topics": [{", ".join(parts)}]}}\n'


def _tagged_chunks(
    tagger: Tagger, catalog: Catalog, records: Sequence[PaperRecord]
) -> Iterator[tuple[Sequence[PaperRecord], list[list[TagScore]]]]:
    for start in range(0, len(records), CHUNK):
        chunk = records[start : start + CHUNK]
        tagged, warnings = record_tags(tagger, catalog, chunk)
        for warning in warnings:
            print(f"warning: {warning.where}: {warning.reason}", file=sys.stderr)
        yield chunk, tagged


def _best_per_topic(tags: list[TagScore]) -> list[tuple[str, float]]:
    """One entry per topic (a topic can come from the tagger and upstream), best first."""
    best: dict[str, float] = {}
    for tag in tags:
        best[tag.slug] = max(tag.score, best.get(tag.slug, 0.0))
    return sorted(best.items(), key=lambda item: (-item[1], item[0]))


def _topics_json(catalog: Catalog, topics: list[tuple[str, float]]) -> list[dict]:
    return [
        {"slug": slug, "name": catalog.get(slug).name, "score": round(score, 4)}
        for slug, score in topics
    ]


def _table_row(catalog: Catalog, record: PaperRecord, topics: list[tuple[str, float]]) -> str:
    names = " · ".join(f"{catalog.get(slug).name} {score:.2f}" for slug, score in topics)
    return f"{record.arxiv_id}  {clean_text(record.title, 90)}\n    {names or '(no topic)'}\n"


def cmd_eval(settings: Settings, args: argparse.Namespace) -> int:
    """Precision, recall and F1 per topic on a judged gold file."""
    try:
        papers = load_gold(args.gold)
    except GoldError as exc:
        raise DigestbotError(str(exc)) from None
    split = None if args.split == "all" else args.split
    if split and not any(p.split == split for p in papers):
        raise UsageError(f"{args.gold}: no paper of the {split!r} split")
    tagger = Tagger(Catalog.load(settings.topics_file))
    if args.by_month:
        return _print_by_month(tagger, evaluate_by_month(tagger, papers, split=split), args.json)
    evaluation = evaluate(tagger, papers, split=split, worst=args.worst)
    if args.json:
        print(json.dumps(evaluation.to_json(), indent=2, ensure_ascii=False))
    else:
        print(_evaluation_text(tagger.catalog, evaluation))
    return 0


def _print_by_month(tagger: Tagger, months: dict[str, Evaluation], as_json: bool) -> int:
    if as_json:
        report = {month: evaluation.to_json() for month, evaluation in months.items()}
        for figures in report.values():
            del figures["errors"]
        print(json.dumps({"months": report}, indent=2, ensure_ascii=False))
        return 0
    blocks = []
    for month, evaluation in months.items():
        judged = sum(t.judged for t in evaluation.topics)
        table = _evaluation_text(tagger.catalog, evaluation)
        blocks.append(f"{month} ({judged} judged pairs)\n{table}")
    print("\n\n".join(blocks))
    return 0


def _evaluation_text(catalog: Catalog, evaluation: Evaluation) -> str:
    width = max((len(_name(catalog, t.slug)) for t in evaluation.topics), default=5)
    lines = [f"{'topic':<{width}}  precision  recall     F1  positives  judged  borderline"]
    for t in evaluation.topics:
        name = _name(catalog, t.slug)
        lines.append(
            f"{name:<{width}}  {_figure(t.precision):>9}  {_figure(t.recall):>6}  "
            f"{_figure(t.f1):>5}  {t.true_positives + t.false_negatives:>9}  {t.judged:>6}  "
            f"{t.borderline:>10}"
        )
    lines.append(
        f"{'macro':<{width}}  {_figure(evaluation.macro('precision')):>9}  "
        f"{_figure(evaluation.macro('recall')):>6}  {_figure(evaluation.macro('f1')):>5}"
    )
    if evaluation.errors:
        lines += ["", "Worst errors:"]
    for error in evaluation.errors:
        seen = error.evidence
        lines.append(
            f"  {error.kind}, {catalog.get(seen.slug).name}: {error.arxiv_id} "
            f"{clean_text(error.title, 70)}"
        )
        because = [f"score {error.score:.2f}"]
        if seen.probability is not None:
            because.append(f"model {seen.probability:.2f} (threshold {seen.threshold:.2f})")
        elif seen.rules_score is None:
            because.append("no evidence for the topic")
        if seen.evidence:
            because.append("evidence " + ", ".join(seen.evidence[:4]))
        if seen.terms:
            because.append("terms " + ", ".join(f"{t} {w:+.2f}" for t, w in seen.terms[:4]))
        lines.append("      " + "; ".join(because))
    return "\n".join(lines)


def _name(catalog: Catalog, slug: str) -> str:
    """The topic's display name; its slug when the catalog no longer has it."""
    try:
        return catalog.get(slug).name
    except KeyError:
        return slug


def _figure(value: float | None) -> str:
    # Three places: 0.847 must not read as a floor of 0.85 met.
    return "—" if value is None else f"{value:.3f}"


def cmd_train(settings: Settings, args: argparse.Namespace) -> int:
    try:
        from digests.topics import training
    except ImportError as exc:
        raise DigestbotError(
            f"digestbot train needs the train extra ({exc.name} is missing): "
            "pip install 'digestbot[train]'"
        ) from None
    from digests.topics.evaluation import GoldError

    try:
        return training.run(args)
    except (training.TrainingError, GoldError) as exc:
        raise DigestbotError(str(exc)) from None


def cmd_retag(settings: Settings, args: argparse.Namespace) -> int:
    """Re-tag every stored paper now and say what changed per topic."""
    app = build_app(settings)
    try:
        with unit_of_work(app.session) as session:
            repo.sync_topics(session, app.catalog.topics)
        status = retag_all(
            app.session, app.tagger, now=datetime.now(UTC), progress=_progress(args.quiet)
        )
    finally:
        app.close()
    print(_changes_text(app.catalog, status))
    return 0


def _progress(quiet: bool):
    def report(status: RetagStatus) -> None:
        if not quiet:
            done = min(status.after_id, status.last_id) if status.pending else status.last_id
            print(f"re-tagged papers up to id {done} of {status.last_id}", file=sys.stderr)

    return report


def _changes_text(catalog: Catalog, status: RetagStatus) -> str:
    changed = {slug: pair for slug, pair in status.changes.items() if any(pair)}
    if not changed:
        return "re-tagged: no topic changed"
    width = max(len(_name(catalog, slug)) for slug in changed)
    lines = [f"re-tagged: {len(changed)} topics changed", f"{'topic':<{width}}  gained   lost"]
    for slug, (gained, lost) in sorted(changed.items(), key=lambda item: -sum(item[1])):
        name = _name(catalog, slug)
        lines.append(f"{name:<{width}}  {gained:>6}  {lost:>5}")
    return "\n".join(lines)
