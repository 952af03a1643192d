"""The `digestbot` command line.

Only the standard library is imported here: `--version`, `--help` and every `COMMAND --help`
answer at once, and each command imports what it uses when it runs.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from digests.errors import DigestbotError, UsageError

if TYPE_CHECKING:
    from bot.app import App
    from bot.settings import Settings
    from digests.topics.catalog import Catalog
    from digests.usecases.ingest import IngestReport

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


class Argument(NamedTuple):
    flags: tuple[str, ...]
    options: dict


def arg(*flags: str, **options) -> Argument:
    """An argument as `ArgumentParser.add_argument` takes it."""
    return Argument(flags, options)


def date_arg(flag: str, help: str) -> Argument:
    return arg(flag, type=_iso_date, metavar="DATE", help=help)


def json_arg(help: str = "machine-readable output") -> Argument:
    return arg("--json", action="store_true", help=help)


class Command(NamedTuple):  # a NamedTuple: dataclasses would load `inspect` on every --help
    """One `digestbot` command: a line in the command list, its own --help, its arguments and
    the handler that runs it, named "module:function" and imported only when it runs (so that
    --help and --version load nothing but the standard library). A handler takes the settings
    and the parsed arguments and returns the exit code; a command of ACTIONs names the one
    chosen in `args.<name>_command`."""

    name: str
    summary: str
    description: str
    handler: str = ""  # "" for an action: its command's handler runs it
    arguments: tuple[Argument, ...] = ()
    actions: tuple[Command, ...] = ()


_FILE_HELP = "arXiv API Atom, RSS/Atom listing or JSON Lines (may be gzipped)"
_FOLLOW_HELP = "display name or slug, in any case, or 'query: …', 'author: …', 'category: …'"

COMMANDS = (
    Command(
        "demo",
        "load the bundled demo corpus and print a digest (offline)",
        "Load the bundled (generated) demo corpus into a temporary SQLite database and print "
        "the digest a channel following RL for LLM Agents would receive. Needs no network "
        "and no settings.",
        "bot.demo:cmd_demo",
    ),
    Command(
        "run",
        "run the scheduler: ingest arXiv and print digests",
        "The long-running bot: the scheduler and every configured chat adapter (Telegram, "
        "Discord) in one process. Without a chat token it prints the weekly digest of "
        "TERMINAL_FOLLOWS to the terminal.",
        "bot.cli:cmd_run",
        (arg("--once", action="store_true", help="one ingest and one digest, then exit"),),
    ),
    Command(
        "ingest",
        "ingest today's arXiv listings, or a file",
        "Fetch today's arXiv listings (or read a file), tag and store the papers, and report "
        "what was read, new, updated, skipped and missing. Exit code 1 when papers are "
        "missing or every entry of a file was skipped.",
        "bot.cli:cmd_ingest",
        (arg("--file", type=Path, metavar="PATH", help=_FILE_HELP),),
    ),
    Command(
        "backfill",
        "fetch the last N days from the arXiv API",
        "Fetch the last N days of the configured categories from the arXiv API. Resumable: "
        "an interrupted run carries on where it stopped; results still missing are named "
        "(exit code 1) for the next run to fetch.",
        "bot.cli:cmd_backfill",
        (
            arg(
                "--days",
                type=_positive_days,
                required=True,
                metavar="N",
                help="days back, 1 to 3650",
            ),
        ),
    ),
    Command(
        "topics",
        "list or search the topic catalog",
        "List the topic catalog (name, slug, description), or the topics matching a search.",
        "bot.cli:cmd_topics",
        (arg("--search", metavar="Q", help="words to look for"), json_arg()),
    ),
    Command(
        "momentum",
        "a topic's momentum and 12-week histogram",
        "A topic's momentum line (papers in the last four weeks against the four before, "
        "and its share of all new papers) and its 12-week histogram.",
        "bot.cli:cmd_momentum",
        (
            arg("topic", metavar="TOPIC", help=_FOLLOW_HELP),
            date_arg("--as-of", "last day counted (default: today)"),
            json_arg("machine-readable, with the counts and papers"),
        ),
    ),
    Command(
        "links",
        "the links that follow a topic from Telegram, Discord or Slack",
        "The links a topic page's \"Follow this topic\" button points to: Telegram links that "
        "follow the topic in a private chat or a group (needs TELEGRAM_BOT_USERNAME), and the "
        "Discord install link with what to type once the bot is in (needs "
        "DISCORD_APPLICATION_ID), and Slack's (needs SLACK_INSTALL_URL).",
        "bot.cli:cmd_links",
        (arg("topic", metavar="TOPIC", help="display name or slug, in any case"),),
    ),
    Command(
        "preview",
        "print the digest a channel would receive",
        "Print the digest a channel following the given topics would receive for a period, "
        "and optionally write the chart it would show.",
        "bot.cli:cmd_preview",
        (
            arg(
                "--follow",
                action="append",
                required=True,
                metavar="TOPIC",
                help="a followed topic (display name or slug) or 'query: …', 'author: …', "
                "'category: …'; repeat for more",
            ),
            date_arg("--as-of", "last day of the period (default: today)"),
            date_arg("--since", "first day of the period (default: 6 days before)"),
            arg(
                "--chart",
                type=Path,
                metavar="FILE",
                help="also write the chart a chat would show (PNG)",
            ),
        ),
    ),
    Command(
        "spikes",
        "which topics would alert now, and why",
        "Which topics the spike scan would alert about now, and why each other one stays "
        "quiet. Nothing is recorded.",
        "bot.cli:cmd_spikes",
        (
            date_arg("--as-of", "last day counted (default: today)"),
            json_arg(),
            arg("--all", action="store_true", help="list quiet topics too"),
        ),
    ),
    Command(
        "status",
        "last ingest, queue, paused channels, next digests",
        "Last ingest, papers, delivery queue, failed deliveries and why, paused channels, "
        "next digests due and re-tagging progress.",
        "bot.cli:cmd_status",
        (json_arg(),),
    ),
    Command(
        "tag",
        "tag the papers of a file without storing them",
        "The topics each paper of a file would be stored with, best first; nothing is stored.",
        "bot.cli_tagging:cmd_tag",
        (
            arg("--file", type=Path, required=True, metavar="PATH", help=_FILE_HELP),
            json_arg("one JSON object per paper"),
        ),
    ),
    Command(
        "eval",
        "precision and recall on a judged gold set",
        "Per-topic precision, recall and F1 of the tagger on a judged gold set, with the "
        "worst errors and their evidence.",
        "bot.cli_tagging:cmd_eval",
        (
            arg("gold", type=Path, metavar="GOLD", help="gold file (JSON Lines)"),
            arg("--split", choices=("all", "dev", "test"), default="all", help="papers to score"),
            arg("--worst", type=int, default=20, metavar="N", help="errors shown"),
            arg("--by-month", action="store_true", help="figures per listing month, oldest first"),
            json_arg(),
        ),
    ),
    Command(
        "train",
        "rebuild the learned tagger from judged papers",
        "Rebuild the learned tagging tier from judged papers (the gold set plus any reviewed "
        "judged lines) and real papers for its vocabulary; the same inputs give the same "
        "bytes. Forward in time: --until, --choose and --report. Needs the train extra: "
        "pip install 'digestbot[train]'.",
        "bot.cli_tagging:cmd_train",
        (
            arg(
                "--gold",
                type=Path,
                action="append",
                metavar="PATH",
                help="judged papers, JSON Lines (repeatable, later files win; default the gold "
                "set, then the independent pools of tests/data/gold/independent/)",
            ),
            arg(
                "--corpus",
                type=Path,
                action="append",
                metavar="PATH",
                help="real papers for the vocabulary, JSON Lines (repeatable)",
            ),
            arg("--out", type=Path, metavar="PATH", help="artefact to write"),
            arg(
                "--split",
                choices=("dev", "all"),
                default="all",
                help="judged papers to learn from (dev keeps the test split out)",
            ),
            arg("--cv", action="store_true", help="only print cross-validation"),
            arg("--until", metavar="YYYY-MM", help="forward: learn from papers up to"),
            arg("--choose", metavar="YYYY-MM", help="forward: thresholds chosen on"),
            arg("--report", metavar="YYYY-MM", help="forward: month to score"),
            arg(
                "--report-gold",
                type=Path,
                metavar="PATH",
                help="forward: score the month on this judged pool alone (an independent "
                "pool's papers weighed by what they stand for)",
            ),
        ),
    ),
    Command(
        "retag",
        "re-tag every stored paper now, per-topic changes",
        "Re-tag every stored paper now (the scheduler does it in the background after the "
        "tagger changes) and list what changed per topic.",
        "bot.cli_tagging:cmd_retag",
        (arg("--quiet", action="store_true", help="no progress lines"),),
    ),
    Command(
        "deliveries",
        "digests and alerts that failed to go out",
        "Digests and alerts that ended failed (see `digestbot status`).",
        "bot.cli:cmd_deliveries",
        actions=(
            Command(
                "retry",
                "send the failed deliveries again",
                "Queue the digests and alerts that ended failed to be sent again.",
                arguments=(
                    date_arg("--since", "only those that failed on or after this day (UTC)"),
                ),
            ),
        ),
    ),
    Command(
        "feedback",
        "readers' 👍/👎 votes",
        "Readers' 👍/👎 votes on the papers of digests and alerts.",
        "bot.cli:cmd_feedback",
        actions=(
            Command(
                "export",
                "a topic's votes as gold-set lines",
                "Write the papers voted on under a topic, over every channel, as JSON Lines in "
                "the gold-set format `digestbot eval` reads (labels yes / no / borderline from "
                "the votes), for review before they become tagging labels.",
                arguments=(
                    arg("--topic", required=True, metavar="TOPIC", help="display name or slug"),
                    arg(
                        "--output",
                        type=Path,
                        metavar="FILE",
                        help="write here instead of standard output",
                    ),
                ),
            ),
        ),
    ),
    Command(
        "db",
        "database maintenance",
        "Database maintenance.",
        "bot.cli:cmd_db",
        actions=(
            Command(
                "upgrade",
                "apply schema migrations",
                "Apply the schema migrations up to the newest. Every start does it too; "
                "replicas starting together take turns.",
            ),
        ),
    ),
)
BY_NAME = {command.name: command for command in COMMANDS}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="digestbot",
        description="Follow research topics on arXiv: ingest, tag, momentum and weekly digests.",
        epilog="Settings come from the environment or .env (see .env.example).",
    )
    parser.add_argument("--version", action=_PrintVersion)
    _add_commands(parser, COMMANDS, dest="command")
    return parser


def _add_commands(parser: argparse.ArgumentParser, commands: Sequence[Command], dest: str) -> None:
    metavar = "COMMAND" if dest == "command" else "ACTION"
    chosen = parser.add_subparsers(dest=dest, metavar=metavar, required=True)
    for command in commands:
        sub = chosen.add_parser(command.name, help=command.summary, description=command.description)
        for argument in command.arguments:
            sub.add_argument(*argument.flags, **argument.options)
        if any(argument.options.get("metavar") == "DATE" for argument in command.arguments):
            sub.epilog = "DATE is a day as YYYY-MM-DD."
        if command.actions:
            _add_commands(sub, command.actions, dest=f"{command.name}_command")


class _PrintVersion(argparse.Action):
    """--version, looking the installed version up only when asked."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from bot.version import installed_version

        print(f"{parser.prog} {installed_version() or '(not installed)'}")
        parser.exit()


def _handler(command: Command) -> Callable[[Settings, argparse.Namespace], int]:
    module, _, function = command.handler.partition(":")
    return getattr(importlib.import_module(module), function)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code = _run_command(args)
        sys.stdout.flush()  # output that fit in the buffer meets a closed pipe only here
    except BrokenPipeError:
        return _output_closed()
    return code


def _output_closed() -> int:
    """The reader went away early (`digestbot topics | head -1`): exit quietly with the status
    of a command stopped by SIGPIPE. What is still buffered goes to /dev/null, or Python's
    own flush at exit would fail on the closed pipe again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 128 + signal.SIGPIPE


# A full disk or a lost server is told in one line too, though the error is SQLAlchemy's; a
# module never imported cannot have raised it, so it is looked up without importing anything.
_DATABASE_FAILURE = ("sqlalchemy.exc", "OperationalError")


def _database_failures() -> tuple[type[BaseException], ...]:
    module = sys.modules.get(_DATABASE_FAILURE[0])
    return (getattr(module, _DATABASE_FAILURE[1]),) if module is not None else ()


def _run_command(args: argparse.Namespace) -> int:
    from bot.logs import Redactor
    from bot.settings import load_settings, unknown_env_keys

    for warning in unknown_env_keys():
        _fail(f"warning: {warning}")
    redact = Redactor([])  # token shapes only, until the settings name the secrets
    try:
        settings = load_settings()
        redact = Redactor(settings.secrets())
        return _handler(BY_NAME[args.command])(settings, args)
    except DigestbotError as exc:
        _fail(redact(exc.user_text()))
        return exc.exit_code
    except _database_failures() as exc:
        from digests.health import first_line

        _fail(redact(f"the database failed: {first_line(exc)}"))
        return 1
    except KeyboardInterrupt:
        return 130


def _fail(message: str) -> None:
    print(f"digestbot: {message}", file=sys.stderr)


def _now() -> datetime:
    return datetime.now(UTC)


def _with_app(settings: Settings) -> App:
    from bot.app import build_app

    app = build_app(settings)
    if app.usecases.sync_catalog().pending:
        _fail(
            "note: the tagger changed and stored papers are being re-tagged; "
            "`digestbot retag` finishes it now"
        )
    return app


def _resolve(app: App, query: str):
    return _resolve_in(app.catalog, query)


def _resolve_in(catalog: Catalog, query: str):
    """A catalog topic, or a filter for `query: …`, `author: …`, `category: …`."""
    from digests.follows.filters import FilterError, is_filter_spec, parse_filter
    from digests.topics.catalog import UnknownTopic

    try:
        if is_filter_spec(query):
            return parse_filter(query)
        return catalog.resolve(query)
    except FilterError as exc:
        raise UsageError(str(exc)) from None
    except UnknownTopic as exc:
        raise UsageError(str(exc)) from None


def cmd_ingest(settings: Settings, args: argparse.Namespace) -> int:
    app = _with_app(settings)
    if args.file is None:
        listing = app.usecases.ingest_listing
        report = _run_async(
            _with_client(app, lambda client: listing(client, settings.arxiv_categories))
        )
        print(report.summary())
        return 1 if report.missing else 0
    report = ingest_file(app, args.file)
    print(report.summary())
    # An empty listing is a normal day; a document whose every entry was skipped is not.
    return 0 if report.read == 0 or report.read > len(report.skipped) else 1


def _run_async(job):
    import asyncio

    return asyncio.run(job)


def ingest_file(app: App, path: Path) -> IngestReport:
    """Read, tag and store the file a batch at a time (see `UseCases.ingest_batches`)."""
    import zlib
    from contextlib import closing

    from bot.documents import open_document
    from bot.read_ahead import read_ahead
    from bot.tag_ahead import tagging_ahead
    from digests.papers.feeds import FeedError, read_batches

    try:
        with (
            open_document(path) as stream,
            tagging_ahead(app.tagger) as ahead,
            closing(read_ahead(read_batches(stream, name=str(path)))) as batches,
        ):
            if ahead is None:
                return app.usecases.ingest_batches(batches)
            return app.usecases.ingest_batches(ahead.ahead(batches), tagger=ahead)
    except FeedError as exc:
        raise DigestbotError(f"{path}: {exc}") from None
    except (OSError, EOFError, zlib.error) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise DigestbotError(
            f"cannot read {path}: {reason}; the papers before the fault are stored, "
            "and a re-run adds nothing twice"
        ) from None


async def _with_client(app: App, job: Callable):
    from bot.arxiv import ArxivUnavailable

    async with app.arxiv_client() as client:
        try:
            return await job(client)
        except ArxivUnavailable as exc:
            raise DigestbotError(f"arXiv: {exc}") from None


def cmd_backfill(settings: Settings, args: argparse.Namespace) -> int:
    from bot.ingest_jobs import backfill

    app = _with_app(settings)
    report = _run_async(
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
    import json

    from digests.topics.catalog import Catalog

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
        from digests.messages.layout import clean_text  # with the store's modules: only here

        print(f"no topic matches {clean_text(args.search, 80)!r}")
        return 1
    width = max(len(t.name) for t in topics)
    for topic in topics:
        print(f"{topic.name:<{width}}  {topic.slug}  — {topic.description}")
    return 0


def cmd_momentum(settings: Settings, args: argparse.Namespace) -> int:
    """Reads only: neither the tagger nor the chat and arXiv clients are loaded, and a catalog
    topic is counted with SQLAlchemy Core alone (no ORM)."""
    import json

    from digests.messages.plain_text import render_momentum
    from digests.topics.catalog import Catalog
    from digests.usecases.momenta import read_momentum

    catalog = Catalog.load(settings.topics_file)
    topic = _resolve_in(catalog, args.topic)
    as_of = args.as_of or _now().date()
    engine = _open_store(settings)
    try:
        momentum = read_momentum(engine, topic, as_of=as_of)
    finally:
        engine.dispose()
    if args.json:
        print(json.dumps({"slug": topic.slug, **momentum.to_json()}, indent=2, ensure_ascii=False))
    else:
        print(render_momentum(momentum))
    return 0


def _open_store(settings: Settings):
    """The database, its schema brought to the newest migration."""
    from digests.store.engine import open_engine, upgrade_schema

    engine = open_engine(settings.database_url)
    upgrade_schema(engine)
    return engine


def cmd_links(settings: Settings, args: argparse.Namespace) -> int:
    """Needs no database: the links are made from the catalog and two settings."""
    from digests.follows.filters import is_filter_spec
    from digests.links import chat as links
    from digests.topics.catalog import Catalog

    if is_filter_spec(args.topic):
        raise UsageError("links are made for catalog topics; a query, author or category "
                           "is followed with /follow in the chat")
    topic = _resolve_in(Catalog.load(settings.topics_file), args.topic)
    print(topic.name)
    username = settings.telegram_bot_username
    if username:
        print(f"Telegram, private chat: {links.telegram_follow_link(username, topic.slug)}")
        print(f"Telegram, add to a group: {links.telegram_group_follow_link(username, topic.slug)}")
    else:
        print("Telegram: unknown; set TELEGRAM_BOT_USERNAME to the bot's @username")
    if settings.discord_application_id:
        install = links.discord_install_link(str(settings.discord_application_id))
        print(f"Discord, add to a server: {install}")
        print(f"Discord, then type in a channel: /follow topic:{topic.slug}")
    else:
        print("Discord: unknown; set DISCORD_APPLICATION_ID to the bot's application id")
    if settings.slack_install_url:
        print(f"Slack, add to a workspace: {settings.slack_install_url}")
        print(f"Slack, then type in a channel: /invite @digestbot, then /follow {topic.name}")
    else:
        print("Slack: unknown; set SLACK_INSTALL_URL to the app's install link (docs/slack.md)")
    return 0 if username or settings.discord_application_id or settings.slack_install_url else 1


def cmd_preview(settings: Settings, args: argparse.Namespace) -> int:
    from digests.messages.chart_spec import digest_chart
    from digests.messages.plain_text import render_text

    app = _with_app(settings)
    topics = list({t.slug: t for t in (_resolve(app, query) for query in args.follow)}.values())
    until = args.as_of or _now().date()
    since = args.since or until - timedelta(days=6)
    if since > until:
        raise UsageError("--since must not be after --as-of")
    digest = app.usecases.digest(topics, since=since, until=until)
    print(render_text(digest, histogram=True))
    if args.chart and (spec := digest_chart(digest)):  # --follow gives it a topic at least
        _write_chart(args.chart, spec)
    return 0


def _write_chart(path: Path, spec: dict) -> None:
    from digests.messages.chart import chart_png  # Pillow only for this option

    try:
        path.write_bytes(chart_png(spec))
    except OSError as exc:
        reason = f"cannot write the chart to {path}: {exc.strerror}"
        raise UsageError(reason) from None
    print(f"Chart written to {path}", file=sys.stderr)


def cmd_spikes(settings: Settings, args: argparse.Namespace) -> int:
    """What the spike scan would decide; nothing is recorded."""
    import json

    from digests.store import follow_filters
    from digests.usecases.spike_scan import scan

    app = _with_app(settings)
    as_of = args.as_of or _now().date()
    with app.session() as session:
        filters = [follow.topic() for _, follow in follow_filters.all_filters(session)]
        topics = app.catalog.topics
        decisions = scan(
            session, topics, as_of=as_of, settings=settings.spike, now=_now(), filters=filters
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
    import json

    from bot.app import build_app

    status = build_app(settings, create=False).usecases.status(try_writing=True)
    if args.json:
        print(json.dumps(status.to_json(), indent=2, ensure_ascii=False))
    else:
        print("\n".join(status.lines()))
    return 0


def cmd_deliveries(settings: Settings, args: argparse.Namespace) -> int:
    from bot.app import build_app

    since = datetime.combine(args.since, datetime.min.time(), UTC) if args.since else None
    window = timedelta(hours=max(settings.digest_grace_hours, 1))
    count = build_app(settings).usecases.retry_failed(since=since, window=window)
    print(f"{count} failed deliver{'y' if count == 1 else 'ies'} queued to be sent again")
    return 0


def cmd_feedback(settings: Settings, args: argparse.Namespace) -> int:
    import json

    app = _with_app(settings)
    topic = _resolve(app, args.topic)
    lines = app.usecases.export_votes(topic.slug)
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            args.output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise DigestbotError(f"{args.output}: cannot write: {exc.strerror or exc}") from None
    papers = "1 paper" if len(lines) == 1 else f"{len(lines):,} papers"
    _fail(f"note: {papers} voted on under {topic.name}; review them before using as labels")
    return 0


def cmd_db(settings: Settings, args: argparse.Namespace) -> int:
    from digests.store.engine import open_engine, upgrade_schema

    revision = upgrade_schema(open_engine(settings.database_url))
    print(f"database schema at revision {revision}")
    return 0


def cmd_run(settings: Settings, args: argparse.Namespace) -> int:
    from bot.arxiv import ArxivUnavailable
    from bot.runner import run

    try:
        return run(settings, once=args.once)
    except ArxivUnavailable as exc:  # --once: no digest is better than a stale one
        raise DigestbotError(f"arXiv: {exc}; no digest printed") from None
