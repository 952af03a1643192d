"""Ingest throughput: parse, tag and store papers into a fresh SQLite file.

    .venv/bin/python bench/bench_ingest.py [--sizes 10000 25000 50000] [--repeat 3] [--profile]
    .venv/bin/python bench/bench_ingest.py --real [--repeat 3]
    .venv/bin/python bench/bench_ingest.py --cli [--big] [--postgres URL] [--repeat 3]
        [--when-idle] [--before CHECKOUT]

With --cli it times `digestbot ingest --file` itself, in a subprocess, on the real 2025 corpus
(and with --big on a 400,000-paper file built from it once: ten copies with new ids and dates
shifted by whole years), into a fresh SQLite file (and with --postgres into that emptied
database), and prints papers/s of the whole command (start-up included) beside its peak RSS.
`--python` runs another checkout's interpreter, `--before CHECKOUT` alternates each run with
one of that checkout's code, for before and after in one sitting. On a shared machine,
`--when-idle` starts each run once the cores have been idle for two seconds and does a run
again when other work took more than a tenth of a core beside it.

Papers come from the demo corpus generator (scripts/make_demo_corpus.py) at a larger scale,
about 450 a day over 16 weeks, or with --real from the real 2025 corpus
(`../shared/data/arxiv-real/ai-2025.jsonl.gz`, 40,717 papers). Each run encodes them as JSON
Lines, parses them with `digests.papers.feeds.parse_jsonl` and ingests them 2,000 per transaction,
as `digestbot ingest --file` does, into a new database. It prints the median papers/s of the
runs and where the time went; the target is 2,000 papers/s for 50,000 papers.
"""

from __future__ import annotations

import argparse
import cProfile
import gzip
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "scripts")]

import make_demo_corpus as generator  # noqa: E402
from sqlalchemy import func, select  # noqa: E402
from sqlmodel import Session  # noqa: E402

from digests.papers.feeds import parse_jsonl  # noqa: E402
from digests.store import repo  # noqa: E402
from digests.store.engine import open_engine, upgrade_schema  # noqa: E402
from digests.store.models import PaperTopic  # noqa: E402
from digests.topics.catalog import Catalog  # noqa: E402
from digests.topics.tagger import Tagger  # noqa: E402
from digests.usecases.ingest import ingest_records, sync_catalog  # noqa: E402

REAL = REPO.parent / "shared" / "data" / "arxiv-real" / "ai-2025.jsonl.gz"
BATCH = 2_000
TARGET = 2_000  # papers/s at 50,000 papers
NOW = datetime(2026, 9, 29, 6, 0, tzinfo=UTC)
PHASES = ("parse", "tag", "upsert", "tag writes", "commit", "other")


@dataclass
class Phases:
    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))

    def timed(self, name: str, function):
        def wrapper(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[name] += time.perf_counter() - started

        return wrapper


class TimedTagger:
    """The real tagger, with the time spent tagging added up."""

    def __init__(self, tagger: Tagger, phases: Phases) -> None:
        self.tag_many = phases.timed("tag", tagger.tag_many)
        self.version = tagger.version


@dataclass
class Run:
    seconds: float  # wall clock, parse to last commit
    cpu_seconds: float  # this process only, so less disturbed by other work on the machine
    papers: int
    tags: int
    phases: Phases


def run_once(jsonl: bytes, catalog: Catalog, directory: Path) -> Run:
    """Parse and ingest `jsonl` into a new SQLite file."""
    engine = open_engine(f"sqlite:///{directory / f'ingest-{time.monotonic_ns()}.db'}")
    upgrade_schema(engine)
    tagger = Tagger(catalog)
    with Session(engine) as session:
        sync_catalog(session, catalog=catalog, tagger=tagger, now=NOW)
        session.commit()
    phases = Phases()
    timed_tagger = TimedTagger(tagger, phases)
    originals = repo.upsert_papers, repo.write_tags
    repo.upsert_papers = phases.timed("upsert", repo.upsert_papers)
    repo.write_tags = phases.timed("tag writes", repo.write_tags)
    try:
        started, cpu_started = time.perf_counter(), time.process_time()
        records = phases.timed("parse", parse_jsonl)(jsonl).records
        with Session(engine) as session:
            for start in range(0, len(records), BATCH):
                batch = records[start : start + BATCH]
                ingest_records(session, batch, tagger=timed_tagger, catalog=catalog, now=NOW)
                phases.timed("commit", session.commit)()
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
            papers = repo.paper_count(session)
            tags = session.execute(select(func.count()).select_from(PaperTopic)).scalar_one()
    finally:
        repo.upsert_papers, repo.write_tags = originals
        engine.dispose()
    phases.seconds["other"] = elapsed - sum(phases.seconds.values())
    return Run(elapsed, cpu, papers, tags, phases)


def report(size: int, runs: list[Run]) -> float:
    rates = [run.papers / run.seconds for run in runs]
    median = statistics.median(rates)
    cpu_rate = statistics.median(run.papers / run.cpu_seconds for run in runs)
    per_paper = {
        name: statistics.median(run.phases.seconds[name] / run.papers for run in runs)
        for name in PHASES
    }
    split = "  ".join(f"{name} {per_paper[name] * 1e6:,.0f}" for name in PHASES)
    print(
        f"{size:>7,} papers  {median:>6,.0f} papers/s (median of {len(runs)}; runs "
        f"{', '.join(f'{rate:,.0f}' for rate in rates)}; by CPU time {cpu_rate:,.0f})  "
        f"{runs[0].tags / runs[0].papers:.1f} tags/paper\n{'':>15}µs/paper: {split}"
    )
    return median


def main(argv: list[str] | None = None) -> int:
    if argv is None and "--cli" in sys.argv:
        return cli_main(sys.argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 25_000, 50_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile one run of the largest")
    parser.add_argument("--real", action="store_true", help="the real 2025 corpus instead")
    args = parser.parse_args(argv)

    catalog = Catalog.load()
    if args.real:
        real = gzip.decompress(REAL.read_bytes())
        corpora = {real.count(b"\n"): real}
        print(f"the real corpus, {max(corpora):,} papers; ", end="")
    else:
        started, largest = time.perf_counter(), max(args.sizes)
        base = len(generator.generate())
        papers = generator.generate(scale=largest / base * 1.02)[:largest]
        corpora = {size: generator.encode(papers[:size]) for size in sorted(args.sizes)}
        print(f"generated {len(papers):,} papers in {time.perf_counter() - started:.1f}s; ", end="")
    print(f"batches of {BATCH:,} per transaction, fresh SQLite file per run")
    largest = max(corpora)
    medians = {}
    with tempfile.TemporaryDirectory(prefix="digestbot-bench-") as scratch:
        for size, jsonl in corpora.items():
            runs = [run_once(jsonl, catalog, Path(scratch)) for _ in range(args.repeat)]
            medians[size] = report(size, runs)
        if args.profile:
            profile(corpora[largest], catalog, Path(scratch))
    verdict = "meets" if medians[largest] >= TARGET else "misses"
    print(f"{largest:,} papers: {medians[largest]:,.0f} papers/s {verdict} the {TARGET:,}/s target")
    return 0


def profile(jsonl: bytes, catalog: Catalog, directory: Path) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    run_once(jsonl, catalog, directory)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)


# --- the command itself ---------------------------------------------------------------------

BIG = Path(tempfile.gettempdir()) / "digestbot-bench-400k.jsonl.gz"
BIG_PAPERS = 400_000
RSS_FLOOR_MB = 300
FLOOR = 5_000  # papers/s of real papers on SQLite


def build_big_file(path: Path) -> None:
    """Ten copies of the real corpus' 2025 papers: copy k has its ids' years and every date
    moved k years back, so each paper is new and lands in its own week."""
    import json

    started, written = time.perf_counter(), 0
    with gzip.open(REAL) as source:
        papers = [json.loads(line) for line in source if line.startswith(b'{"id": "25')]
    with gzip.open(path, "wt", compresslevel=1) as out:
        for copy in range(10):
            for paper in papers:
                if written == BIG_PAPERS:
                    break
                out.write(json.dumps(shifted(paper, copy)) + "\n")
                written += 1
    print(f"built {path} ({written:,} papers) in {time.perf_counter() - started:.0f} s")


def shifted(paper: dict, years: int) -> dict:
    year = int(paper["id"][:2]) - years
    moved = {"id": f"{year:02d}{paper['id'][2:]}"}
    for key in ("published", "updated"):
        if paper.get(key):
            day = f"{int(paper[key][:4]) - years}{paper[key][4:]}"
            moved[key] = day.replace("-02-29", "-02-28")  # no leap day in most years
    return paper | moved


@dataclass
class Memory:
    """Peaks in MB: the command's own RSS (what `time -v` prints), its tagging worker's, and
    the two processes' proportional set sizes added up (shared pages counted once)."""

    main: float = 0.0
    worker: float = 0.0
    together: float = 0.0
    cpu_seconds: float = 0.0  # user and system, the command and its worker


def _proc_kb(pid: int, name: str, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/{name}").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def sample(pid: int, memory: Memory) -> None:
    workers = _children(pid)
    memory.worker = max([memory.worker, *(_proc_kb(w, "status", "VmHWM:") / 1024 for w in workers)])
    pss = sum(_proc_kb(p, "smaps_rollup", "Pss:") for p in [pid, *workers])
    memory.together = max(memory.together, pss / 1024)


IDLE_SHARE = 0.04  # of all cores, over two seconds: the machine counts as idle below it
OTHERS_SHARE = 0.10  # of one core, while a run lasts: above it the run is done again
IDLE_WAIT = 600  # seconds waited for an idle machine before a run starts anyway


def _busy_ticks() -> tuple[int, int]:
    """(busy, total) clock ticks of all cores since boot, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return sum(fields) - fields[3] - fields[4], sum(fields)


def wait_until_idle() -> None:
    deadline = time.monotonic() + IDLE_WAIT
    while time.monotonic() < deadline:
        busy, total = _busy_ticks()
        time.sleep(2)
        busy2, total2 = _busy_ticks()
        if (busy2 - busy) / max(total2 - total, 1) < IDLE_SHARE:
            return


def quiet_run(run, *, when_idle: bool, alone: bool, tries: int = 5):
    """`run()`'s result; with `when_idle`, started on an idle machine and, where the command
    works `alone` (no database server beside it), done again (up to `tries` times) while
    other processes used more than a tenth of a core beside it."""
    if not when_idle:
        return run()
    for _ in range(tries):
        wait_until_idle()
        busy, _ = _busy_ticks()
        seconds, memory, _ = result = run()
        others = (_busy_ticks()[0] - busy) / os.sysconf("SC_CLK_TCK") - memory.cpu_seconds
        if not alone or others < OTHERS_SHARE * seconds:
            return result
        print(f"  (a run of {seconds:.1f} s shared the machine with other work: done again)")
    return result


def ingest_command(
    python: str, path: Path, fresh_url: Callable[[], str], folder: str
) -> tuple[float, Memory, str]:
    """Wall seconds and memory of `digestbot ingest --file path` into a fresh database, and
    its report."""
    env = {**os.environ, "DATABASE_URL": fresh_url(), "LOG_LEVEL": "WARNING"}
    memory = Memory()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(
            [python, "-m", "bot", "ingest", "--file", str(path)],
            env=env, cwd=folder, stdout=out, stderr=err,
        )  # fmt: skip
        while (waited := os.wait4(process.pid, os.WNOHANG))[0] == 0:
            sample(process.pid, memory)
            time.sleep(0.1)
        _, status, usage = waited  # this child's own peak, not the largest child's
        seconds = time.perf_counter() - started
        memory.main = usage.ru_maxrss / 1024
        memory.cpu_seconds = usage.ru_utime + usage.ru_stime
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0), err.seek(0)
        if process.returncode != 0:
            raise SystemExit(f"ingest failed ({process.returncode}): {err.read()[-500:]!r}")
        return seconds, memory, out.read().decode()


def emptied(url: str) -> str:
    from tests.conftest import _reset_postgres  # the test suite's way to empty a database

    _reset_postgres(url)
    return url


def cli_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", action="store_true", required=True)
    parser.add_argument("--big", action="store_true", help=f"also the {BIG_PAPERS:,}-paper file")
    parser.add_argument("--big-file", type=Path, default=BIG, help="built there when missing")
    parser.add_argument("--postgres", metavar="URL", help="also into this (emptied) database")
    parser.add_argument("--postgres-big", action="store_true", help="the big file there too")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--python", default=sys.executable, help="interpreter of the checkout")
    parser.add_argument(
        "--before", metavar="CHECKOUT", help="alternate runs with this checkout's code"
    )
    parser.add_argument(
        "--when-idle", action="store_true", help="start each run on an idle machine, "
        "and do again a run that shared the cores with other work",
    )  # fmt: skip
    args = parser.parse_args(argv)
    files = [REAL]
    if args.big:
        if not args.big_file.exists():
            build_big_file(args.big_file)
        files.append(args.big_file)
    print(f"{args.python}: `digestbot ingest --file`, median of {args.repeat}, start-up included")
    with tempfile.TemporaryDirectory(prefix="digestbot-bench-") as folder:
        for path in files:
            targets = {"SQLite": lambda: f"sqlite:///{folder}/{time.monotonic_ns()}.db"}
            if args.postgres and (path == REAL or args.postgres_big):
                targets["PostgreSQL"] = lambda: emptied(args.postgres)
            for backend, fresh_url in targets.items():
                # `-m bot` runs the code of its working directory ahead of the installed one.
                checkouts = {"": folder} | ({"before": args.before} if args.before else {})
                runs: dict[str, list] = {name: [] for name in checkouts}
                options = {"when_idle": args.when_idle, "alone": backend == "SQLite"}
                for _ in range(args.repeat):
                    for name, checkout in checkouts.items():
                        command = partial(ingest_command, args.python, path, fresh_url, checkout)
                        runs[name].append(quiet_run(command, **options))
                for name in sorted(runs, reverse=True):
                    print_runs(f"{path.name} {name}".strip(), backend, runs[name])
    return 0


def print_runs(what: str, backend: str, runs: list[tuple[float, Memory, str]]) -> None:
    papers = int(runs[0][2].split("new: ")[1].split()[0])
    rates = [papers / seconds for seconds, _, _ in runs]
    main = max(memory.main for _, memory, _ in runs)
    worker = max(memory.worker for _, memory, _ in runs)
    together = max(memory.together for _, memory, _ in runs)
    cpu = statistics.median(papers / memory.cpu_seconds for _, memory, _ in runs)
    print(
        f"  {what:<30} {backend:<10} {papers:>7,} papers  "
        f"{statistics.median(rates):>6,.0f} papers/s (runs "
        f"{', '.join(f'{rate:,.0f}' for rate in rates)})  peak RSS {main:,.0f} MB"
        f" (tagging worker {worker:,.0f} MB; both, PSS {together:,.0f} MB); "
        f"{cpu:,.0f} papers per CPU second"
    )


if __name__ == "__main__":
    sys.exit(main())
