"""scripts/gold_pool.py draws the papers to judge; its near misses can include the papers a
gate holds back (`--held`), which the threshold window alone never reaches."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

from digests.topics.catalog import Catalog
from digests.topics.tagger import Tagger

REPO = Path(__file__).resolve().parents[1]
GOLD = REPO / "tests" / "data" / "gold"
HEADLINE = "rl-for-llm-agents"


def unjudged_papers() -> list[dict]:
    """Papers no gold.jsonl.gz line judges: the seed pages' and the unmerged rounds'."""
    rows = []
    for name in ("seed_pages.jsonl", "rounds_11_12.jsonl"):
        for line in (GOLD / name).read_text(encoding="utf-8").splitlines():
            paper = json.loads(line)
            rows.append({"published": "2026-05-01T00:00:00Z", **paper})
    return rows


def drawn(tmp_path: Path, corpus: Path, *options: str) -> set[str]:
    out = tmp_path / "-".join(options or ("plain",))
    command = [
        sys.executable, str(REPO / "scripts" / "gold_pool.py"), "--round", "11",
        "--families", "agents", "--topics", HEADLINE, "--sizes", "0", "500", "0", "0",
        "--corpus", str(corpus), "--model", str(REPO / "digests/data/topic_model.json.gz"),
        "--out", str(out), "--near", "0", *options,
    ]  # fmt: skip
    subprocess.run(command, check=True, timeout=120, capture_output=True, cwd=REPO)
    return {json.loads(line)["id"] for path in out.glob("*.jsonl") for line in path.open()}


def test_papers_a_gate_holds_back_are_near_misses_only_when_asked(tmp_path) -> None:
    papers = unjudged_papers()
    corpus = tmp_path / "corpus.jsonl.gz"
    with gzip.open(corpus, "wt", encoding="utf-8") as out:
        out.writelines(json.dumps(p) + "\n" for p in papers)
    tagger = Tagger(Catalog.load())
    held = set()
    for p in papers:
        seen = tagger.explain(p["title"], p["abstract"], p["categories"], HEADLINE)
        tags = {t.slug for t in tagger.tag(p["title"], p["abstract"], p["categories"])}
        reached = seen.probability is not None and seen.probability >= seen.threshold
        if reached and HEADLINE not in tags:
            held.add(p["id"])
    assert held  # the seed page's BRACE among them: 0.30 for the topic, 0.02 for LLM Agents
    assert drawn(tmp_path, corpus, "--held") == held
    assert drawn(tmp_path, corpus) == set()
