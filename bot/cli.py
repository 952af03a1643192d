"""The `digestbot` command line."""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from bot.app import App, build_app
from bot.logs import Redactor
from bot.settings import Settings, SettingsError, load_settings, unknown_env_keys
from digests.catalog import CatalogError, UnknownTopic
from digests.chart_spec import digest_chart
from digests.feeds import FeedError, parse_document
from digests.ingest import IngestReport
from digests.render_text import clean_text, render_momentum, render_text
from digests.reports import topic_momenta
from digests.store.engine import DatabaseUnavailable
from digests.store.instance import InstanceInUse
from digests.topic_model import ModelError

EXIT_USAGE = 2


class CommandError(Exception):
    """A user-facing failure: printed as one line, exit code `code`."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def _iso_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text[:40]!r}") from None


def _positive_days(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 3650:
        raise argparse.ArgumentTypeError(
            f"days must be a whole number from 1 to 3650: {text[:40]!r}"
        )
    return int(text)


_FILE_HELP = "arXiv API Atom, RSS/Atom listing or JSON Lines (may be gzipped)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="digestbot",
        description="Follow research topics on arXiv: ingest, tag, momentum and weekly digests.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    commands.add_parser("demo", help="load the bundled demo corpus and print a digest (offline)")
    run = commands.add_parser("run", help="run the scheduler: ingest arXiv and print digests")
    run.add_argument("--once", action="store_true", help="one ingest and one digest, then exit")

    ingest = commands.add_parser("ingest", help="ingest today's arXiv listings, or a file")
    ingest.add_argument("--file", type=Path, help=_FILE_HELP)

    backfill = commands.add_parser("backfill", help="fetch the last N days from the arXiv API")
    backfill.add_argument("--days", type=_positive_days, required=True)

    topics = commands.add_parser("topics", help="list or search the topic catalog")
    topics.add_argument("--search", metavar="Q", help="words to look for")
    topics.add_argument("--json", action="store_true", help="machine-readable output")

    momentum = commands.add_parser("momentum", help="a topic's momentum and 12-week histogram")
    momentum.add_argument("topic", help="display name or slug")
    momentum.add_argument("--as-of", type=_iso_date, help="last day counted (default: today)")
    momentum.add_argument("--json", action="store_true", help="machine-readable output")

    preview = commands.add_parser("preview", help="print the digest a channel would receive")
    preview.add_argument("--follow", action="append", required=True, metavar="TOPIC")
    preview.add_argument("--as-of", type=_iso_date, help="last day of the period (default: today)")
    preview.add_argument("--since", type=_iso_date, help="first day (default: 6 days before)")
    preview.add_argument(
        "--chart", type=Path, metavar="FILE", help="also write the chart a chat would show (PNG)"
    )

    spikes = commands.add_parser("spikes", help="which topics would alert now, and why")
    spikes.add_argument("--as-of", type=_iso_date, help="last day counted (default: today)")
    spikes.add_argument("--json", action="store_true", help="machine-readable output")
    spikes.add_argument("--all", action="store_true", help="list quiet topics too")

    status = commands.add_parser("status", help="last ingest, queue, paused channels, next digests")
    status.add_argument("--json", action="store_true", help="machine-readable output")

    tag = commands.add_parser("tag", help="tag the papers of a file without storing them")
    tag.add_argument("--file", type=Path, required=True, metavar="PATH", help=_FILE_HELP)
    tag.add_argument("--json", action="store_true", help="one JSON object per paper")

    evaluation = commands.add_parser("eval", help="precision and recall on a judged gold set")
    evaluation.add_argument("gold", type=Path, metavar="GOLD", help="gold file (JSON Lines)")
    evaluation.add_argument(
        "--split", choices=("all", "dev", "test"), default="all", help="papers to score"
    )
    evaluation.add_argument("--worst", type=int, default=20, metavar="N", help="errors shown")
    evaluation.add_argument("--json", action="store_true", help="machine-readable output")

    retag = commands.add_parser("retag", help="re-tag every stored paper now, per-topic changes")
    retag.add_argument("--quiet", action="store_true", help="no progress lines")

    sending = commands.add_parser("deliveries", help="digests and alerts that failed to go out")
    sending_commands = sending.add_subparsers(dest="deliveries_command", metavar="ACTION")
    sending_commands.required = True
    retry = sending_commands.add_parser("retry", help="send the failed deliveries again")
    retry.add_argument(
        "--since", type=_iso_date, help="only those that failed on or after this day (UTC)"
    )

    db = commands.add_parser("db", help="database maintenance")
    db_commands = db.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    db_commands.add_parser("upgrade", help="apply schema migrations")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    for warning in unknown_env_keys():
        _fail(f"warning: {warning}")
    redact = Redactor([])  # token shapes only, until the settings name the secrets
    try:
        settings = load_settings()
        redact = Redactor(settings.secrets())
        return HANDLERS[args.command](settings, args)
    except (SettingsError, CatalogError, ModelError) as exc:
        _fail(redact(f"configuration: {exc}"))
        return EXIT_USAGE
    except (DatabaseUnavailable, InstanceInUse) as exc:
        _fail(redact(str(exc)))
        return EXIT_USAGE
    except CommandError as exc:
        _fail(redact(str(exc)))
        return exc.code
    except KeyboardInterrupt:
        return 130


def _fail(message: str) -> None:
    print(f"digestbot: {message}", file=sys.stderr)


def _now() -> datetime:
    return datetime.now(UTC)


def _with_app(settings: Settings) -> App:
    app = build_app(settings)
    if app.usecases.sync_catalog().pending:
        _fail(
            "note: the tagger changed and stored papers are being re-tagged; "
            "`digestbot retag` finishes it now"
        )
    return app


def _resolve(app: App, query: str):
    try:
        return app.catalog.resolve(query)
    except UnknownTopic as exc:
        raise CommandError(str(exc), EXIT_USAGE) from None


def cmd_ingest(settings: Settings, args: argparse.Namespace) -> int:
    app = _with_app(settings)
    if args.file is None:
        listing = app.usecases.ingest_listing
        report = asyncio.run(
            _with_client(app, lambda client: listing(client, settings.arxiv_categories))
        )
        print(report.summary())
        return 1 if report.missing else 0
    report = ingest_file(app, args.file)
    print(report.summary())
    # An empty listing is a normal day; a document whose every entry was skipped is not.
    return 0 if report.read == 0 or report.read > len(report.skipped) else 1


def read_document(path: Path) -> bytes:
    """The file's bytes, gunzipped when it is gzip (arXiv dumps and corpora often are)."""
    try:
        data = path.read_bytes()
        return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    except (OSError, EOFError) as exc:
        raise CommandError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None


def ingest_file(app: App, path: Path) -> IngestReport:
    data = read_document(path)
    try:
        parsed = parse_document(data, name=str(path))
    except FeedError as exc:
        raise CommandError(f"{path}: {exc}") from None
    return app.usecases.ingest_document(parsed)


async def _with_client(app: App, job: Callable):
    from bot.arxiv import ArxivUnavailable

    async with app.arxiv_client() as client:
        try:
            return await job(client)
        except ArxivUnavailable as exc:
            raise CommandError(f"arXiv: {exc}") from None


def cmd_backfill(settings: Settings, args: argparse.Namespace) -> int:
    from bot.ingest_jobs import backfill

    app = _with_app(settings)
    report = asyncio.run(
        _with_client(
            app,
            lambda client: backfill(
                client,
                app.session,
                categories=settings.arxiv_categories,
                days=args.days,
                page_size=settings.arxiv_page_size,
                tagger=app.tagger,
                catalog=app.catalog,
                now=_now(),
                progress=lambda line: print(line, file=sys.stderr),
            ),
        )
    )
    print(report.summary())
    return 1 if report.missing else 0


def cmd_topics(settings: Settings, args: argparse.Namespace) -> int:
    from digests.catalog import Catalog

    catalog = Catalog.load(settings.topics_file)
    topics = catalog.search(args.search) if args.search else list(catalog.topics)
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "slug": t.slug,
                        "name": t.name,
                        "description": t.description,
                        "parents": list(t.parents),
                    }
                    for t in topics
                ],
                indent=2,
                ensure_ascii=False,
            )
        )
        return 0
    if not topics:
        print(f"no topic matches {clean_text(args.search, 80)!r}")
        return 1
    width = max(len(t.name) for t in topics)
    for topic in topics:
        print(f"{topic.name:<{width}}  {topic.slug}  — {topic.description}")
    return 0


def cmd_momentum(settings: Settings, args: argparse.Namespace) -> int:
    app = _with_app(settings)
    topic = _resolve(app, args.topic)
    as_of = args.as_of or _now().date()
    with app.session() as session:
        momentum = topic_momenta(session, [topic], as_of=as_of)[topic.slug]
    if args.json:
        print(json.dumps({"slug": topic.slug, **momentum.to_json()}, indent=2, ensure_ascii=False))
    else:
        print(render_momentum(momentum))
    return 0


def cmd_preview(settings: Settings, args: argparse.Namespace) -> int:
    app = _with_app(settings)
    topics = list({t.slug: t for t in (_resolve(app, query) for query in args.follow)}.values())
    until = args.as_of or _now().date()
    since = args.since or until - timedelta(days=6)
    if since > until:
        raise CommandError("--since must not be after --as-of", EXIT_USAGE)
    digest = app.usecases.digest(topics, since=since, until=until)
    print(render_text(digest, histogram=True))
    if args.chart and (spec := digest_chart(digest)):  # --follow gives it a topic at least
        _write_chart(args.chart, spec)
    return 0


def _write_chart(path: Path, spec: dict) -> None:
    from digests.chart import chart_png  # Pillow only for this option

    try:
        path.write_bytes(chart_png(spec))
    except OSError as exc:
        reason = f"cannot write the chart to {path}: {exc.strerror}"
        raise CommandError(reason, EXIT_USAGE) from None
    print(f"Chart written to {path}", file=sys.stderr)


def cmd_spikes(settings: Settings, args: argparse.Namespace) -> int:
    """What the spike scan would decide; nothing is recorded."""
    from bot.settings import spike_settings
    from digests.spikes import scan

    app = _with_app(settings)
    as_of = args.as_of or _now().date()
    with app.session() as session:
        decisions = scan(
            session, app.catalog.topics, as_of=as_of, settings=spike_settings(settings), now=_now()
        )
    decisions.sort(key=lambda d: (not d.alert, d.p_value, -d.count))
    shown = decisions if args.all else [d for d in decisions if d.alert or d.count]
    if args.json:
        print(json.dumps([d.to_json() for d in shown], indent=2, ensure_ascii=False))
        return 0
    alerts = sum(d.alert for d in decisions)
    print(f"as of {as_of}: {alerts} of {len(decisions)} topics would alert")
    for decision in shown:
        print(f"{decision.name}: {decision.count} vs {decision.previous} — {decision.reason}")
    return 0


def cmd_status(settings: Settings, args: argparse.Namespace) -> int:
    status = build_app(settings).usecases.status()
    if args.json:
        print(json.dumps(status.to_json(), indent=2, ensure_ascii=False))
    else:
        print("\n".join(status.lines()))
    return 0


def cmd_deliveries(settings: Settings, args: argparse.Namespace) -> int:
    since = datetime.combine(args.since, datetime.min.time(), UTC) if args.since else None
    window = timedelta(hours=max(settings.digest_grace_hours, 1))
    count = build_app(settings).usecases.retry_failed(since=since, window=window)
    print(f"{count} failed deliver{'y' if count == 1 else 'ies'} queued to be sent again")
    return 0


def cmd_db(settings: Settings, args: argparse.Namespace) -> int:
    from digests.store.engine import open_engine, upgrade_schema

    revision = upgrade_schema(open_engine(settings.database_url))
    print(f"database schema at revision {revision}")
    return 0


def cmd_demo(settings: Settings, args: argparse.Namespace) -> int:
    from bot.demo import run_demo

    return run_demo(settings)


def cmd_tag(settings: Settings, args: argparse.Namespace) -> int:
    from bot.cli_tagging import cmd_tag

    return cmd_tag(settings, args)


def cmd_eval(settings: Settings, args: argparse.Namespace) -> int:
    from bot.cli_tagging import cmd_eval

    return cmd_eval(settings, args)


def cmd_retag(settings: Settings, args: argparse.Namespace) -> int:
    from bot.cli_tagging import cmd_retag

    return cmd_retag(settings, args)


def cmd_run(settings: Settings, args: argparse.Namespace) -> int:
    from bot.arxiv import ArxivUnavailable
    from bot.runner import run

    try:
        return run(settings, once=args.once)
    except ArxivUnavailable as exc:  # --once: no digest is better than a stale one
        raise CommandError(f"arXiv: {exc}; no digest printed") from None


HANDLERS: dict[str, Callable[[Settings, argparse.Namespace], int]] = {
    "demo": cmd_demo,
    "run": cmd_run,
    "ingest": cmd_ingest,
    "backfill": cmd_backfill,
    "topics": cmd_topics,
    "momentum": cmd_momentum,
    "preview": cmd_preview,
    "spikes": cmd_spikes,
    "status": cmd_status,
    "tag": cmd_tag,
    "eval": cmd_eval,
    "retag": cmd_retag,
    "deliveries": cmd_deliveries,
    "db": cmd_db,
}
