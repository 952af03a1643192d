"""`digestbot ingest --file` reads, tags and stores a file a batch at a time: a long file costs
no more memory than a short one, an interrupted run keeps the batches it stored whole, and a
re-run stores what is left without adding anything twice. The report still counts every entry
of the file in exactly one bucket."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from bot.cli import main
from digests.papers.feeds import BATCH_SIZE, parse_jsonl, read_batches
from digests.store.models import Paper, PaperTopic
from digests.topics.tagger import Tagger
from digests.usecases.app import FILE_PAPERS_PER_TRANSACTION
from digests.usecases.ingest import record_tags

SUBJECTS = (
    "Reinforcement learning for LLM agents with tool use",
    "Diffusion models for protein structure generation",
    "Multi-agent path finding with learned heuristics",
    "Retrieval-augmented generation for long documents",
    "Vision-language models for robot manipulation",
)


def paper_line(number: int, *, version: int = 1) -> str:
    return json.dumps(
        {
            "id": f"2609.{number:05d}",
            "version": version,
            "title": f"{SUBJECTS[number % len(SUBJECTS)]}, part {number}",
            "abstract": f"{SUBJECTS[(number * 7) % len(SUBJECTS)]}: we study it at scale.",
            "authors": ["Ada Lovelace", "Alan Turing"],
            "categories": ["cs.LG", "cs.AI"],
            "published": "2026-09-01",
        }
    )


def write_gzip(path: Path, lines: list[str]) -> Path:
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    return path


def counts(database_url: str) -> tuple[int, int]:
    from digests.store.engine import open_engine

    engine = open_engine(database_url)
    try:
        with Session(engine) as session:
            papers = session.execute(select(func.count()).select_from(Paper)).scalar_one()
            tags = session.execute(select(func.count()).select_from(PaperTopic)).scalar_one()
    finally:
        engine.dispose()
    return papers, tags


def expected_tags(lines: list[str], catalog) -> int:
    """Tags a clean run stores: the tagger's, one per (paper, topic, source)."""
    records = parse_jsonl("\n".join(lines).encode()).records
    tagged, _ = record_tags(Tagger(catalog), catalog, records)
    return sum(len({(t.slug, t.source) for t in tags}) for tags in tagged)


def cli(*args: str, database_url: str, cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": database_url, "LOG_LEVEL": "WARNING"}
    return subprocess.Popen(
        [sys.executable, "-m", "bot", *args],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def stop_after_first_batch(
    process: subprocess.Popen, database_url: str, how: int
) -> tuple[int, list[int]]:
    """Send `how` once a batch is stored (waiting 120 s at most); the papers stored then, and
    the command's child processes (its tagging worker) at that moment."""
    from digests.store.engine import open_engine, upgrade_schema

    upgrade_schema(open_engine(database_url))  # so the store can be counted from the start
    deadline, children = time.monotonic() + 120, []
    while time.monotonic() < deadline and process.poll() is None:
        if counts(database_url)[0] > 0:
            children = child_pids(process.pid)
            process.send_signal(how)
            break
        time.sleep(0.02)
    process.wait(timeout=60)
    return counts(database_url)[0], children


def child_pids(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def still_running(pids: list[int], *, within: float = 10.0) -> list[int]:
    """Which of `pids` are still running after waiting up to `within` seconds for them."""
    deadline = time.monotonic() + within
    while True:
        alive = [pid for pid in pids if Path(f"/proc/{pid}").exists() and not zombie(pid)]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_an_interrupted_file_ingest_keeps_whole_transactions_and_a_rerun_adds_nothing_twice(
    database_url, tmp_path, catalog, how
):
    # Tried: kill `digestbot ingest --file` of 10,000 papers once its first transaction is
    # stored.
    lines = [paper_line(n) for n in range(1, 2 * FILE_PAPERS_PER_TRANSACTION + 2_001)]
    path = write_gzip(tmp_path / "papers.jsonl.gz", lines)

    killed = cli("ingest", "--file", str(path), database_url=database_url, cwd=tmp_path)
    stored, workers = stop_after_first_batch(killed, database_url, how)

    assert killed.returncode == -how, killed.stderr  # stopped by the signal, not finished
    assert workers or (os.cpu_count() or 1) < 2  # it tags ahead in a second process
    assert still_running(workers) == []  # which did not outlive it
    assert 0 < stored < len(lines)
    assert stored % FILE_PAPERS_PER_TRANSACTION == 0  # only whole transactions
    rerun = cli("ingest", "--file", str(path), database_url=database_url, cwd=tmp_path)
    out, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err
    assert f"new: {len(lines) - stored}\n" in out and f"unchanged: {stored}\n" in out
    assert counts(database_url) == (len(lines), expected_tags(lines, catalog))


def test_the_report_counts_every_entry_of_a_long_file_once(env, tmp_path, capsys):
    # Tried: a file longer than a batch, with broken lines, a paper twice in one batch and an
    # older version of a paper after its newer one, in a later batch.
    lines = [paper_line(n) for n in range(1, BATCH_SIZE + 301)]
    lines[10] = '{"id": "2609.99999", "title": broken'
    lines[20] = paper_line(5, version=2)  # v2 of paper 5, in the same batch as its v1
    lines[30] = paper_line(1_250, version=2)  # its v1 comes in the next batch: unchanged
    lines.append(paper_line(7, version=2))  # a later batch updates paper 7
    lines.append("")
    path = write_gzip(tmp_path / "papers.jsonl.gz", lines)

    assert main(["ingest", "--file", str(path)]) == 0
    report = dict(
        line.split(": ", 1) for line in capsys.readouterr().out.splitlines() if ": " in line
    )
    buckets = ("new", "updated", "unchanged", "superseded", "skipped")
    assert int(report["read"]) == len(lines) - 1  # the blank line is no entry
    assert sum(int(report.get(name, "0").split()[0]) for name in buckets) == int(report["read"])
    assert report["superseded"].startswith("1 ") and report["skipped"] == "1"
    assert report["updated"] == "1" and report["unchanged"] == "1"


def test_a_file_that_is_no_json_lines_is_refused_before_anything_is_stored(env, tmp_path):
    # Tried: a text file of 2,500 lines, none of them JSON, read as a stream.
    path = tmp_path / "notes.txt"
    path.write_text("".join(f"note {n}: nothing to see\n" for n in range(2_500)))
    with path.open("rb") as stream, pytest.raises(ValueError, match="not an arXiv feed or JSON"):
        next(read_batches(stream, name=str(path)))
    assert main(["ingest", "--file", str(path)]) == 1
    assert counts(env) == (0, 0)


def test_a_gzip_file_cut_short_keeps_what_was_read_and_says_so(env, tmp_path, capsys):
    # Tried: the real corpus' way of breaking, a download cut in the middle of the gzip stream.
    lines = [paper_line(n) for n in range(1, 3_001)]
    whole = write_gzip(tmp_path / "whole.jsonl.gz", lines).read_bytes()
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(whole[: len(whole) * 2 // 3])

    assert main(["ingest", "--file", str(cut)]) == 1
    err = capsys.readouterr().err
    assert "cannot read" in err and "a re-run adds nothing twice" in err
    papers, _ = counts(env)
    assert papers % BATCH_SIZE == 0 and papers >= BATCH_SIZE
    assert main(["ingest", "--file", str(write_gzip(tmp_path / "again.jsonl.gz", lines))]) == 0
    assert counts(env)[0] == len(lines)
