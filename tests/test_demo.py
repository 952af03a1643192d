"""`digestbot demo` on the real papers it ships with, and the generated corpus kept for tests
and scale benches."""

from __future__ import annotations

import gzip
import json
import lzma
import os
import re
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from digests.papers.feeds import parse_jsonl
from tests.shared_data import shared_dir

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "digests" / "data" / "demo_corpus.jsonl.gz"
SCRIPT = REPO / "scripts" / "make_demo_corpus.py"
REAL_CORPUS = REPO / "digests" / "data" / "real_corpus.jsonl.xz"
REAL_SCRIPT = REPO / "scripts" / "make_real_demo_corpus.py"
DEMO_TIMEOUT = 120  # seconds; the demo takes about 9 on a 2-core machine

MOMENTUM = re.compile(r"([\d,]+) papers in the last four weeks, (up|down) ([\d,]+)% on the four")
# A real paper of the week to 2025-12-28 that the catalog files under RL for LLM Agents.
KNOWN_TITLE = "MolAct: An Agentic RL Framework for Molecular Editing and Property Optimization"
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


def test_demo_runs_offline_with_zero_configuration_on_real_papers(demo):
    result, _ = demo
    assert result.returncode == 0, result.stderr
    assert "real arXiv papers" in result.stdout and "CC0" in result.stdout


def test_demo_shows_the_real_digest_of_rl_for_llm_agents_for_the_week_to_dec_28(demo):
    result, _ = demo
    assert "Dec 22 – Dec 28, 2025" in result.stdout
    lines = section(result.stdout, "RL for LLM Agents")
    assert MOMENTUM.search("\n".join(lines)), result.stdout
    assert KNOWN_TITLE in result.stdout
    assert "https://arxiv.org/abs/2512.20135" in result.stdout


def test_demo_draws_the_twelve_week_histogram_to_the_digest_week(demo):
    result, _ = demo
    lines = section(result.stdout, "RL for LLM Agents")
    rows = [line for line in lines if HISTOGRAM_ROW.match(line)]
    assert len(rows) == 12, result.stdout
    assert rows[0].split()[:2] == ["Oct", "06"] and rows[-1].split()[:2] == ["Dec", "22"]


def test_demo_lists_papers_with_arxiv_links(demo):
    result, _ = demo
    links = re.findall(r"https://arxiv\.org/abs/\d{4}\.\d{5}\b", result.stdout)
    assert len(links) == 5, result.stdout


def test_the_real_corpus_is_exactly_what_the_script_cuts_from_the_shared_data(tmp_path):
    source = shared_dir("data", "arxiv-real", pattern="ai-2025.jsonl.gz") / "ai-2025.jsonl.gz"
    fresh = tmp_path / "real.jsonl.xz"
    command = [sys.executable, str(REAL_SCRIPT), "--source", str(source), "--out", str(fresh)]
    subprocess.run(command, check=True, timeout=120, capture_output=True)
    assert fresh.read_bytes() == REAL_CORPUS.read_bytes()


def test_the_real_corpus_is_the_last_16_weeks_of_2025_with_arxiv_fields_only():
    lines = lzma.decompress(REAL_CORPUS.read_bytes()).splitlines()
    papers = [json.loads(line) for line in lines]
    assert {tuple(sorted(p)) for p in papers} == {
        ("abstract", "authors", "categories", "id", "published", "title")
    }
    days = sorted(p["published"] for p in papers)
    assert days[0] >= "2025-09-11" and "2025-12-28" <= days[-1] <= "2025-12-31"
    note = (REAL_CORPUS.parent / "real_corpus.md").read_text()
    assert "CC0" in note and "make_real_demo_corpus.py" in note


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
