"""`digestbot tag`, `eval` and `retag` as a user meets them."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlmodel import Session, select

from bot.cli import main
from digests.store.engine import open_engine, upgrade_schema
from digests.store.models import Paper, PaperTopic, Topic
from digests.topics.catalog import Catalog
from digests.topics.tagger import Tagger
from digests.usecases.ingest import ingest_records, sync_catalog
from tests.papers import jsonl_line, paper_record


@pytest.fixture
def papers_file(tmp_path: Path) -> Path:
    lines = [
        jsonl_line(
            "2609.00001", "Reinforcement Learning for LLM Agents in Terminals", "2026-09-21"
        ),
        '{"id": "2609.00002", "title": broken',
        json.dumps(
            {
                "id": "2609.00003",
                "title": "Semantic segmentation of street scenes <script>alert(1)</script>",
                "abstract": "We segment camera images of streets into road, cars and people.",
                "authors": ["Ada Lovelace"],
                "categories": ["cs.CV"],
                "published": "2026-09-22",
                "topics": ["Terminal Agents"],
            }
        ),
        jsonl_line("2609.00004", "@everyone A survey of prompting tricks", "2026-09-22"),
    ]
    path = tmp_path / "papers.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def stored_topics(url: str) -> dict[str, set[str]]:
    engine = open_engine(url)
    with Session(engine) as session:
        statement = (
            select(Paper.arxiv_id, Topic.slug)
            .join(PaperTopic, PaperTopic.paper_id == Paper.id)
            .join(Topic, Topic.id == PaperTopic.topic_id)
        )
        rows = session.exec(statement).all()
    engine.dispose()
    topics: dict[str, set[str]] = {}
    for arxiv_id, slug in rows:
        topics.setdefault(arxiv_id, set()).add(slug)
    return topics


def test_tag_prints_the_topics_each_paper_would_be_stored_with(env, papers_file, capsys):
    assert main(["tag", "--file", str(papers_file), "--json"]) == 0
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row["id"] for row in rows] == ["2609.00001", "2609.00003", "2609.00004"]
    assert "line 2" in err  # the broken line, skipped with its reason
    for row in rows:
        scores = [topic["score"] for topic in row["topics"]]
        assert scores == sorted(scores, reverse=True)
        assert all(0 < score <= 1 for score in scores)
    assert main(["ingest", "--file", str(papers_file)]) == 0
    stored = stored_topics(env)
    for row in rows:
        assert {topic["slug"] for topic in row["topics"]} == stored.get(row["id"], set())
    upstream = next(row for row in rows if row["id"] == "2609.00003")["topics"]
    assert {"slug": "terminal-agents", "name": "Terminal Agents", "score": 1.0} in upstream


def test_tag_reads_a_gzipped_file_and_prints_a_readable_table(env, papers_file, tmp_path, capsys):
    packed = tmp_path / "papers.jsonl.gz"
    packed.write_bytes(gzip.compress(papers_file.read_bytes()))
    assert main(["tag", "--file", str(packed)]) == 0
    out = capsys.readouterr().out
    assert "2609.00001  Reinforcement Learning for LLM Agents in Terminals" in out
    assert "RL for LLM Agents" in out
    assert "Computer Vision" in out


@pytest.mark.parametrize("content", [b"", b"\x1f\x8bnot really gzip", b"<html>no feed</html>"])
def test_tag_refuses_an_unusable_file_in_one_line(env, tmp_path, capsys, content):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    assert main(["tag", "--file", str(path)]) != 0
    err = capsys.readouterr().err
    assert err.startswith("digestbot: ") and err.count("\n") == 1


def write_gold(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "gold.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    return path


GOLD_ROWS = [
    {
        "id": "2609.10001",
        "title": "Multi-turn reinforcement learning for web agents",
        "abstract": "We train LLM agents with PPO over multi-turn browsing episodes.",
        "categories": ["cs.CL"],
        "split": "test",
        "labels": {"rl-for-llm-agents": "yes", "computer-vision": "no"},
    },
    {
        "id": "2609.10002",
        "title": "Semantic segmentation of street scenes",
        "abstract": "We segment camera images of streets.",
        "categories": ["cs.CV"],
        "split": "test",
        "labels": {"rl-for-llm-agents": "no", "computer-vision": "yes"},
    },
    {
        "id": "2609.10003",
        "title": "Prompting tricks for chat models",
        "abstract": "We compare prompts.",
        "categories": ["cs.CL"],
        "split": "dev",
        "labels": {"rl-for-llm-agents": "borderline", "computer-vision": "no"},
    },
]


def test_eval_scores_each_topic_on_its_judged_pairs(env, tmp_path, capsys):
    assert main(["eval", str(write_gold(tmp_path, GOLD_ROWS)), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    topics = {t["slug"]: t for t in report["topics"]}
    assert set(topics) == {"rl-for-llm-agents", "computer-vision"}
    assert topics["rl-for-llm-agents"]["judged"] == 2  # the borderline pair is left out
    assert topics["rl-for-llm-agents"]["borderline"] == 1
    assert topics["computer-vision"]["positives"] == 1
    for topic in topics.values():
        wrong = [e for e in report["errors"] if e["topic"] == topic["slug"]]
        assert len(wrong) == topic["false_positives"] + topic["false_negatives"]
    assert set(report["macro"]) == {"precision", "recall", "f1"}


def test_eval_prints_a_table_with_the_macro_average(env, tmp_path, capsys):
    assert main(["eval", str(write_gold(tmp_path, GOLD_ROWS)), "--split", "test"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:3] == ["topic", "precision", "recall"]
    assert "RL for LLM Agents" in out and "macro" in out


def test_eval_table_shows_figures_to_three_places_as_the_json_does(env, capsys):
    # On the real gold set a precision of 0.847 must not print as 0.85, a floor met.
    gold = str(Path(__file__).parent / "data" / "gold" / "gold.jsonl.gz")
    assert main(["eval", gold, "--split", "test", "--json"]) == 0
    headline = next(
        t for t in json.loads(capsys.readouterr().out)["topics"] if t["slug"] == "rl-for-llm-agents"
    )
    assert main(["eval", gold, "--split", "test"]) == 0
    row = next(
        line
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("RL for LLM Agents ")
    )
    precision, recall = row.split()[4:6]
    assert (precision, recall) == (f"{headline['precision']:.3f}", f"{headline['recall']:.3f}")


def test_eval_names_the_first_bad_line_of_a_gold_file(env, tmp_path, capsys):
    rows = [json.dumps(GOLD_ROWS[0]), json.dumps({**GOLD_ROWS[1], "labels": {"x": "maybe"}})]
    path = tmp_path / "gold.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert main(["eval", str(path)]) == 1
    assert "line 2" in capsys.readouterr().err


def test_eval_refuses_a_split_the_file_does_not_have(env, tmp_path, capsys):
    rows = [{**row, "split": "dev"} for row in GOLD_ROWS]
    assert main(["eval", str(write_gold(tmp_path, rows)), "--split", "test"]) == 2
    assert "no paper of the 'test' split" in capsys.readouterr().err


def test_retag_applies_the_current_tagger_and_lists_what_changed(env, capsys):
    catalog = Catalog.load()
    rules = Tagger(catalog, model=None)
    records = [
        paper_record(
            20001,
            datetime(2026, 9, 20, tzinfo=UTC),
            title="Curriculum reinforcement learning for web agents with sparse rewards",
            abstract="Web agents built on large language models fail on long tasks; "
            "we train them with PPO.",
            categories=("cs.CL",),
        )
    ]
    engine = open_engine(env)
    upgrade_schema(engine)
    now = datetime(2026, 9, 21, tzinfo=UTC)
    with Session(engine) as session:
        sync_catalog(session, catalog=catalog, tagger=rules, now=now)
        ingest_records(session, records, tagger=rules, catalog=catalog, now=now)
        session.commit()
    engine.dispose()
    before = stored_topics(env)["2609.20001"]
    assert main(["retag", "--quiet"]) == 0
    out = capsys.readouterr().out
    after = stored_topics(env).get("2609.20001", set())
    assert before != after
    assert out.startswith("re-tagged: ")
    for slug in before ^ after:
        assert catalog.get(slug).name in out


def test_eval_by_month_scores_each_listing_month_apart(env, tmp_path, capsys):
    rows = [
        {**GOLD_ROWS[0], "published": "2026-02-10"},
        {**GOLD_ROWS[1], "published": "2026-03-02"},
        {**GOLD_ROWS[2], "published": "2026-03-20"},
    ]
    assert main(["eval", str(write_gold(tmp_path, rows)), "--by-month", "--json"]) == 0
    months = json.loads(capsys.readouterr().out)["months"]
    assert list(months) == ["2026-02", "2026-03"]
    february = {t["slug"]: t for t in months["2026-02"]["topics"]}
    march = {t["slug"]: t for t in months["2026-03"]["topics"]}
    assert february["rl-for-llm-agents"]["positives"] == 1
    assert february["computer-vision"]["positives"] == 0
    assert march["computer-vision"]["positives"] == 1
    assert march["rl-for-llm-agents"]["borderline"] == 1  # the March borderline stays in March


def test_eval_by_month_prints_one_table_per_month_and_names_undated_papers(env, tmp_path, capsys):
    rows = [{**GOLD_ROWS[0], "published": "2026-02-10"}, GOLD_ROWS[1]]
    assert main(["eval", str(write_gold(tmp_path, rows)), "--by-month"]) == 0
    out = capsys.readouterr().out
    assert out.index("2026-02 (") < out.index("undated (")
    assert out.count("macro") == 2


def test_train_without_the_train_extra_says_how_to_install_it():
    # scikit-learn made unimportable, as in the default install.
    code = (
        "import sys; sys.modules['sklearn'] = None; from bot.cli import main; "
        "sys.exit(main(['train']))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "pip install 'digestbot[train]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_train_refuses_a_forward_run_without_its_reported_month(env, tmp_path, capsys):
    pytest.importorskip("sklearn")
    gold = write_gold(tmp_path, GOLD_ROWS)
    assert main(["train", "--gold", str(gold), "--until", "2026-01"]) == 1
    assert "--until and --report go together" in capsys.readouterr().err


def test_train_reads_later_judged_files_over_earlier_ones_topic_by_topic(tmp_path):
    pytest.importorskip("sklearn")
    from digests.topics.training import judged_papers

    first = tmp_path / "first"
    first.mkdir()
    second = tmp_path / "second"
    second.mkdir()
    reviewed = {**GOLD_ROWS[0], "labels": {"rl-for-llm-agents": "no"}}  # a reviewed vote export
    papers = judged_papers([write_gold(first, GOLD_ROWS), write_gold(second, [reviewed])])
    by_id = {p.arxiv_id: p.labels for p in papers}
    assert len(by_id) == len(GOLD_ROWS)
    assert by_id["2609.10001"] == {"rl-for-llm-agents": "no", "computer-vision": "no"}
