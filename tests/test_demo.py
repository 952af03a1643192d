"""`digestbot demo` and the corpus of generated papers it ships with."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from digests.papers.feeds import parse_jsonl

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "digests" / "data" / "demo_corpus.jsonl.gz"
SCRIPT = REPO / "scripts" / "make_demo_corpus.py"
DEMO_TIMEOUT = 120  # seconds; the demo takes well under 10 on a 2-core machine

MOMENTUM = re.compile(r"([\d,]+) papers in the last four weeks, up ([\d,]+)% on the four weeks")
HISTOGRAM_ROW = re.compile(r"^\s+[A-Z][a-z]{2} \d{2} █* *\s+[\d,]+$")


def run_demo(tmp_path: Path, **env_changes: str) -> subprocess.CompletedProcess[str]:
    """`digestbot demo` in a fresh process, cwd and temp dir inside `tmp_path`."""
    cwd, scratch = tmp_path / "cwd", tmp_path / "tmp"
    cwd.mkdir()
    scratch.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "TOPICS_FILE")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env["TMPDIR"] = str(scratch)
    # Anything that tried to reach the network over HTTP would fail against a dead proxy.
    env.update(dict.fromkeys(("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"), "http://127.0.0.1:9"))
    env.update(env_changes)
    return subprocess.run(
        [sys.executable, "-m", "bot", "demo"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=DEMO_TIMEOUT,
    )


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess, Path]:
    tmp_path = tmp_path_factory.mktemp("demo")
    return run_demo(tmp_path), tmp_path


def section(output: str, heading: str) -> list[str]:
    lines = output.splitlines()
    start = lines.index(f"## {heading}")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), None)
    return lines[start + 1 : end]


def test_demo_runs_offline_with_zero_configuration(demo):
    result, _ = demo
    assert result.returncode == 0, result.stderr
    assert "GENERATED papers" in result.stdout


def test_demo_shows_rl_for_llm_agents_rising(demo):
    result, _ = demo
    momentum = MOMENTUM.search("\n".join(section(result.stdout, "RL for LLM Agents")))
    assert momentum, result.stdout
    assert int(momentum.group(2).replace(",", "")) >= 50


def test_demo_draws_the_twelve_week_histogram(demo):
    result, _ = demo
    lines = section(result.stdout, "RL for LLM Agents")
    rows = [line for line in lines if HISTOGRAM_ROW.match(line)]
    assert len(rows) == 12, result.stdout
    counts = [int(row.split()[-1].replace(",", "")) for row in rows]
    assert counts[-1] == max(counts) > counts[0]


def test_demo_lists_papers_with_arxiv_links(demo):
    result, _ = demo
    links = re.findall(r"https://arxiv\.org/abs/\d{4}\.\d{5}\b", result.stdout)
    assert links, result.stdout


def test_demo_leaves_no_database_or_temporary_files_behind(demo):
    result, tmp_path = demo
    assert result.returncode == 0, result.stderr
    assert list((tmp_path / "cwd").iterdir()) == []
    assert list((tmp_path / "tmp").iterdir()) == []


def test_demo_never_touches_the_configured_database(tmp_path):
    mine = tmp_path / "mine.db"
    mine.write_bytes(b"the operator's real database")
    result = run_demo(tmp_path, DATABASE_URL=f"sqlite:///{mine}")
    assert result.returncode == 0, result.stderr
    assert mine.read_bytes() == b"the operator's real database"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["cwd", "mine.db", "tmp"]


def test_shipped_corpus_is_exactly_what_the_script_generates(tmp_path):
    fresh = tmp_path / "corpus.jsonl.gz"
    subprocess.run([sys.executable, str(SCRIPT), "--out", str(fresh)], check=True, timeout=120)
    shipped = CORPUS.read_bytes()
    assert gzip.decompress(fresh.read_bytes()) == gzip.decompress(shipped)
    # No timestamp and no file name in the gzip header, so a rebuild changes no byte.
    assert shipped[3] == 0 and shipped[4:8] == b"\0\0\0\0"


def test_every_shipped_paper_is_labelled_generated():
    lines = gzip.decompress(CORPUS.read_bytes()).splitlines()
    assert lines and all(json.loads(line)["generated"] is True for line in lines)


def test_shipped_corpus_spans_twelve_weeks_of_thousands_of_papers_in_several_categories():
    parsed = parse_jsonl(gzip.decompress(CORPUS.read_bytes()))
    published = [record.published for record in parsed.records]
    assert parsed.skipped == []
    assert len(parsed.records) >= 3_000
    assert max(published) - min(published) >= timedelta(weeks=12)
    assert len({record.primary_category for record in parsed.records}) >= 5


def test_shipped_paper_ids_belong_to_their_publication_month():
    parsed = parse_jsonl(gzip.decompress(CORPUS.read_bytes()))
    ids = [record.arxiv_id for record in parsed.records]
    assert len(set(ids)) == len(ids)
    for record in parsed.records:
        month: datetime = record.published
        assert re.fullmatch(rf"{month:%y%m}\.\d{{5}}", record.arxiv_id), record.arxiv_id
