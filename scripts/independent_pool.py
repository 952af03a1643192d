"""Pools of papers to judge that the tagger did not choose: recall that can be trusted.

    .venv/bin/python scripts/independent_pool.py --month 2026-03 --out DIR     # draw
    .venv/bin/python scripts/independent_pool.py --build DIR --gold FILE       # judged -> gold

A pool drawn from the tagger's own candidates cannot show what its candidate stage never
proposes, so each family's pool here is drawn from three strata per topic, none of which the
rules decide:
- T: the papers the shipped tagger tags with the topic;
- B: the papers the topic's broad search finds (`scripts/broad_search.py`: the words and
  arXiv categories a reader would search, written from the guide) that the tagger does not tag;
- R: every paper of the month in the configured categories (a uniform sample).
Each stratum is sampled independently, paper by paper (Poisson sampling), with a known
probability: about `--sizes` papers from each. A paper's inclusion probability in its family's
pool is therefore known exactly (1 - the product of the chances it was missed by every
stratum it is in), and the judged papers stand for the month with the weight 1 / that
probability: precision and recall estimated this way hold for any later tagger, not only for
the one that drew the pool. Sampling is decided by a hash of the seed, topic and paper id, so
the same corpus, tagger and month give the same pool.

Batches hold the paper only (id, title, abstract, categories, date): the judge reads them
without the tagger's output. Labels are `ID CODES` lines, one letter (y, b, n) per topic of the
family in FAMILIES order, in `DIR/labels/<batch>.txt`; `--build` writes a gold file whose
papers carry `labels` and `weights` (topic -> 1 / inclusion probability), which `digestbot
eval` reads.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from broad_search import BROAD, core_finds
from gold_pool import CODES, FAMILIES, load_corpus, write_batches

from digests.topics.catalog import Catalog
from digests.topics.tagger import Tagger

CORPUS = Path(__file__).resolve().parents[2] / "shared/data/arxiv-real/ai-2026q1.jsonl.gz"
CONFIGURED = ("cs.AI", "cs.LG", "cs.CL", "cs.CV", "cs.RO", "cs.MA", "stat.ML")
SIZES = (25, 25, 15, 40)  # expected draws per topic from T, C and B, per family from R


def _uniform(*parts: str) -> float:
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def month_papers(corpus: list[dict], month: str) -> list[dict]:
    """The month's papers listed in any configured category, by id."""
    papers = [
        p
        for p in corpus
        if p["published"].startswith(month) and set(p["categories"]) & set(CONFIGURED)
    ]
    return sorted(papers, key=lambda p: p["id"])


def strata(papers: list[dict], slug: str, tags: dict[str, set[str]]) -> dict:
    """Topic `slug`'s strata: paper id -> "T", "C" (its core words) or "B" (absent: none)."""
    search = BROAD.get(slug)
    found: dict[str, str] = {}
    for paper in papers:
        if slug in tags[paper["id"]]:
            found[paper["id"]] = "T"
        elif search is not None:
            text = f"{paper['title']} {paper['abstract']}".lower()
            if core_finds(slug, text):
                found[paper["id"]] = "C"
            elif search.finds(text, paper["categories"]):
                found[paper["id"]] = "B"
    return found


def tagged(papers: list[dict], tagger: Tagger) -> dict[str, set[str]]:
    """Paper id -> the topics the tagger tags it with (roll-ups included)."""
    every = tagger.tag_many((p["title"], p["abstract"], p["categories"]) for p in papers)
    return {p["id"]: {t.slug for t in tags} for p, tags in zip(papers, every, strict=True)}


def draw(
    papers: list[dict],
    tags: dict[str, set[str]],
    family: str,
    sizes: tuple[int, int, int, int],
    seed: str,
) -> tuple[dict[str, float], dict]:
    """The family's pool: paper id -> inclusion probability; and the design, for the record."""
    n_tagged, n_core, n_broad, n_random = sizes
    missed = {p["id"]: 1.0 - min(1.0, n_random / len(papers)) for p in papers}
    picked = {
        p["id"] for p in papers if _uniform(seed, family, "R", p["id"]) < n_random / len(papers)
    }
    design: dict = {"papers": len(papers), "random": n_random, "topics": {}}
    for slug in FAMILIES[family]:
        found = strata(papers, slug, tags)
        counts = {s: sum(1 for v in found.values() if v == s) for s in "TCB"}
        rate = {
            s: min(1.0, n / counts[s]) if counts[s] else 0.0
            for s, n in zip("TCB", (n_tagged, n_core, n_broad), strict=True)
        }
        design["topics"][slug] = {"counts": counts, "rate": rate}
        for arxiv_id, stratum in found.items():
            missed[arxiv_id] *= 1.0 - rate[stratum]
            if _uniform(seed, family, slug, arxiv_id) < rate[stratum]:
                picked.add(arxiv_id)
    return {i: round(1.0 - missed[i], 6) for i in sorted(picked)}, design


def write_pool(out: Path, month: str, family: str, pool: dict[str, float], by_id: dict) -> None:
    ids = list(pool)
    random.Random(f"{month}-{family}").shuffle(ids)  # batches mix strata
    write_batches(out, family, ids, by_id)


def build(pools: Path, gold: Path) -> None:
    """Judged batches -> a gold file with `labels` and `weights` per topic."""
    design = json.loads((pools / "design.json").read_text(encoding="utf-8"))
    rows: dict[str, dict] = {}
    judged = 0
    for labels in sorted((pools / "labels").glob("*.txt")):
        family = labels.stem.rsplit("-", 1)[0]
        topics = list(FAMILIES[family])
        batch = pools / f"{labels.stem}.jsonl"
        papers = {(p := json.loads(line))["id"]: p for line in batch.read_text().splitlines()}
        for line in labels.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            arxiv_id, codes = line.split()
            weight = round(1.0 / design["families"][family]["inclusion"][arxiv_id], 4)
            row = rows.setdefault(arxiv_id, {**papers[arxiv_id], "labels": {}, "weights": {}})
            for slug, code in zip(topics, codes, strict=True):
                row["labels"][slug] = CODES[code]
                row["weights"][slug] = weight
            judged += 1
    lines = [json.dumps(rows[i], ensure_ascii=False) + "\n" for i in sorted(rows)]
    gold.write_bytes(gzip.compress("".join(lines).encode(), compresslevel=9, mtime=0))
    print(f"{judged} paper-family readings, {len(rows)} papers -> {gold}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--month", help="YYYY-MM: draw this month's pools")
    parser.add_argument("--out", type=Path, help="folder for the batches and design.json")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--families", nargs="+", choices=list(FAMILIES), default=list(FAMILIES))
    parser.add_argument(
        "--sizes", nargs=4, type=int, default=SIZES, metavar=("TAGGED", "CORE", "BROAD", "RANDOM")
    )
    parser.add_argument("--seed", default="independent")
    parser.add_argument("--build", type=Path, metavar="DIR", help="judged pools -> --gold")
    parser.add_argument("--gold", type=Path, help="the gold file --build writes")
    args = parser.parse_args()
    if args.build:
        build(args.build, args.gold)
        return
    if not (args.month and args.out):
        parser.error("--month and --out draw a pool; --build DIR --gold FILE builds one")
    papers = month_papers(load_corpus(args.corpus), args.month)
    by_id = {p["id"]: p for p in papers}
    tagger = Tagger(Catalog.load())
    args.out.mkdir(parents=True, exist_ok=True)
    record = {
        "month": args.month,
        "seed": args.seed,
        "sizes": list(args.sizes),
        "tagger": tagger.version,
        "families": {},
    }
    tags = tagged(papers, tagger)
    for family in args.families:
        pool, design = draw(papers, tags, family, tuple(args.sizes), args.seed)
        write_pool(args.out, args.month, family, pool, by_id)
        record["families"][family] = {**design, "inclusion": pool}
        print(f"{family}: {len(pool)} papers of {len(papers)}")
    (args.out / "design.json").write_text(json.dumps(record, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
