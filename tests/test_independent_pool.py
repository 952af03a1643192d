"""Independent pools (scripts/independent_pool.py): the papers to judge are drawn without the
tagger deciding which, each with a known inclusion probability, and the judged pool's figures
are weighed back to the whole month.

Tried: a paper no phrase of the catalog proposes but a reader's search finds (it must be
drawable), the batches shown to the judge (no tag, score or stratum in them), the same draw
twice, and a missed paper that stands for many (recall falls by what it stands for).
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

from digests.topics.catalog import Catalog
from digests.topics.evaluation import evaluate, load_gold
from digests.topics.tagger import Tagger

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "independent_pool.py"
FILLER = "We study a problem of tabular data and report results on standard splits."


def paper(arxiv_id: str, title: str, categories: tuple[str, ...] = ("cs.LG",)) -> dict:
    return {
        "id": arxiv_id,
        "title": title,
        "abstract": FILLER,
        "categories": list(categories),
        "published": "2026-03-10",
    }


# Robotics: one paper the tagger tags, one only a reader's search finds (SLAM in cs.RO), and
# papers about neither; 40 filler papers make the uniform sample a small fraction.
PAPERS = [
    paper("2603.00001", "A humanoid robot learns to grasp cups", ("cs.RO",)),
    paper("2603.00002", "Loop closure for SLAM in long corridors", ("cs.RO",)),
    *(paper(f"2603.1{n:04d}", f"Gradient boosting variant {n}") for n in range(40)),
]


def draw(tmp_path: Path, name: str) -> Path:
    corpus = tmp_path / "corpus.jsonl.gz"
    with gzip.open(corpus, "wt", encoding="utf-8") as out:
        out.writelines(json.dumps(p) + "\n" for p in PAPERS)
    out = tmp_path / name
    command = [
        sys.executable, str(SCRIPT), "--month", "2026-03", "--corpus", str(corpus),
        "--families", "embodied", "--sizes", "5", "5", "5", "2", "--out", str(out),
    ]  # fmt: skip
    subprocess.run(command, check=True, timeout=120, capture_output=True, cwd=REPO)
    return out


def pooled(out: Path) -> list[dict]:
    return [json.loads(line) for path in sorted(out.glob("*.jsonl")) for line in path.open()]


def test_a_paper_the_rules_never_propose_is_drawn_through_the_readers_search(tmp_path) -> None:
    rules = Tagger(Catalog.load(), model=None)  # no phrase of the catalog's finds it
    slam = PAPERS[1]
    assert "robotics" not in rules.candidates(slam["title"], slam["abstract"], ["cs.RO"])
    design = json.loads((draw(tmp_path, "pool") / "design.json").read_text())
    inclusion = design["families"]["embodied"]["inclusion"]
    assert inclusion["2603.00002"] == 1.0  # the search's stratum is smaller than its quota
    assert design["families"]["embodied"]["topics"]["robotics"]["counts"]["T"] >= 1


def test_the_judge_sees_the_paper_and_nothing_the_tagger_said(tmp_path) -> None:
    for row in pooled(draw(tmp_path, "pool")):
        assert set(row) == {"id", "title", "abstract", "categories", "published"}


def test_the_same_month_gives_the_same_pool(tmp_path) -> None:
    first, second = draw(tmp_path, "one"), draw(tmp_path, "two")
    assert pooled(first) == pooled(second)
    assert (first / "design.json").read_text() == (second / "design.json").read_text()


def test_a_judged_pool_weighs_each_paper_by_what_it_stands_for(tmp_path) -> None:
    out = draw(tmp_path, "pool")
    drawn = {row["id"] for row in pooled(out)}
    labels = out / "labels"
    labels.mkdir()
    # Every drawn paper judged: robotics yes for the two robot papers, no for the rest.
    codes = {i: ("ynnn" if i in ("2603.00001", "2603.00002") else "nnnn") for i in drawn}
    (labels / "embodied-00.txt").write_text("".join(f"{i} {c}\n" for i, c in codes.items()))
    gold = tmp_path / "gold.jsonl.gz"
    subprocess.run(
        [sys.executable, str(SCRIPT), "--build", str(out), "--gold", str(gold)],
        check=True, timeout=60, capture_output=True, cwd=REPO,
    )  # fmt: skip
    papers = load_gold(gold)
    inclusion = json.loads((out / "design.json").read_text())["families"]["embodied"]
    for judged in papers:
        expected = round(1 / inclusion["inclusion"][judged.arxiv_id], 4)
        assert judged.weights["robotics"] == expected
    assert {p.arxiv_id for p in papers} == drawn


def test_a_missed_paper_that_stands_for_many_lowers_recall_by_as_many(tmp_path) -> None:
    tagger = Tagger(Catalog.load())
    found = "A humanoid robot learns to grasp cups"
    assert "robotics" in {t.slug for t in tagger.tag(found, FILLER, ["cs.RO"])}
    rows = [
        {"id": "a", "title": found, "abstract": FILLER, "categories": ["cs.RO"],
         "labels": {"robotics": "yes"}, "weights": {"robotics": 1.0}},
        {"id": "b", "title": "Gradient boosting variant", "abstract": FILLER,
         "categories": ["cs.LG"], "labels": {"robotics": "yes"}, "weights": {"robotics": 3.0}},
    ]  # fmt: skip
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(row) + "\n" for row in rows))
    papers = load_gold(gold)
    score = next(t for t in evaluate(tagger, papers, worst=0).topics if t.slug == "robotics")
    assert (score.true_positives, score.false_negatives) == (1, 1)  # counts stay counts
    assert score.recall == 0.25  # the miss stands for three papers of the month
