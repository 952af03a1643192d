"""Draw the papers to judge for the tagging gold set (tests/data/gold/).

    .venv/bin/python scripts/gold_pool.py --out DIR [--round 1|2] [--corpus PATH]

For each family of topics (judged together, so that one reading of a paper labels every topic
of its family) the pool is: the papers the current tagger tags with any of the family's topics,
plus a broad lexical pool per topic (words a paper on the topic can hardly avoid), plus a
uniform sample of the whole corpus. Papers already in the gold set are left out, so a second
round draws only what a newer tagger proposes that nobody has judged yet. Sampling is seeded,
so the same corpus and gold set give the same batches.

Round 1 samples every stratum (rules only, the tagger before the learned tier); round 2 samples,
per topic, the papers the current tagger (`--model`) tags that nobody has judged for that
topic yet, and for the headline topic also its near misses (probability just below the
threshold), so that recall at the boundary is measured too. Round 3 is for the headline topic
alone: every paper its rules propose whose probability is at least 0.1 and that nobody has
judged, plus a sample of the rest.

    .venv/bin/python scripts/gold_pool.py --independent --month 2026-03 --out DIR

draws an independent pool instead (scripts/independent_pool.py, which takes the same
arguments): strata the tagger does not choose (its tags, a reader's broad search written from
the guide, the month at random), each paper with a known inclusion probability, judged blind.
Recall measured on the rounds above sees only what the tagger could already propose.

    .venv/bin/python scripts/gold_pool.py --merge BATCHES LABELS
    .venv/bin/python scripts/gold_pool.py --agreement

adds judged batches to the gold set: LABELS holds one file per batch (`<batch>.txt`), a line
per paper, `ID CODES`, one letter per family topic in FAMILIES order (y, b or n). Each paper's
split is fixed by its id (60% dev, 40% test), so it never moves between splits. --agreement
compares the gold labels with an independent second reading of a sample of papers
(`second_reading.jsonl`).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import re
import sys
from pathlib import Path

from digests.topics.catalog import Catalog
from digests.topics.tagger import Tagger
from digests.topics.topic_model import TopicModel

CORPUS = Path(__file__).resolve().parents[2] / "shared/data/arxiv-real/ai-2025.jsonl.gz"
GOLD = Path(__file__).resolve().parents[1] / "tests/data/gold/gold.jsonl.gz"
BATCH = 100

RL = r"reinforcement|\brl\b|\brlhf\b|\brlvr\b|grpo|\bppo\b|policy optimi[sz]ation|\breward"
AGENT = r"\bagent|agentic"
FAMILIES: dict[str, dict[str, str | None]] = {
    "agents": {
        "rl-for-llm-agents": rf"({RL}).*({AGENT}|multi-turn|multi-step|interactive|tool)"
        rf"|({AGENT}|multi-turn|tool).*({RL})",
        "agentic-rl": r"agentic.{0,40}(rl\b|reinforcement)|(rl|reinforcement).{0,60}agent",
        "rl-for-tool-use": rf"({RL}).*(tool|function[- ]call|search engine|\bapi|interpreter)"
        rf"|(tool|function[- ]call|search engine|interpreter).*({RL})",
        "rl-for-language-model-reasoning": rf"({RL}).*(reason|math)|(reason|math).*({RL})",
        "rl-for-language-models": rf"({RL}|\bdpo\b|preference optimi).*(llm|language model)"
        rf"|(llm|language model).*({RL}|\bdpo\b)",
        "reinforcement-learning": rf"{RL}|bandit|markov decision|\bmdps?\b|q-learning",
        "group-relative-policy-optimization": r"grpo|group[- ]relative|\bdapo\b|\bgspo\b",
        "credit-assignment-in-rl": r"credit assignment|process reward|(step|turn|token)[- ]level"
        r" (reward|advantage|credit)|advantage estimat|dense reward|intermediate reward",
        "llm-agents": AGENT,
        "llm-agent-memory": r"memor.*agent|agent.*memor",
        "deep-research-agents": r"deep research|deep search|research agent|browsecomp"
        r"|search agent|report generation",
        "computer-use-agents": r"\bgui\b|computer[- ]use|web (agent|navigation)|browser"
        r"|mobile agent|android|\bos agent|desktop|webarena|osworld|terminal",
    },
    "language": {
        "language-modeling": r"language model|\bllms?\b|tokeni[sz]|perplexity|next[- ]token",
        "large-language-models": r"\bllms?\b|language model|\bgpt|chatgpt|llama|qwen|mistral"
        r"|gemini|claude|deepseek",
        "llm-reasoning": r"reasoning|chain[- ]of[- ]thought|\bcot\b|mathematic",
        "llm-training": r"pre-?train|training data|scaling law|post-?train|fine-?tun"
        r"|data mixture",
        "llm-post-training": r"post-?train|instruction[- ]tun|\bsft\b|rlhf|\bdpo\b|preference"
        r" optimi|fine-?tun|grpo|alignment",
        "llm-fine-tuning": r"fine-?tun|\blora\b|\bpeft\b|adapter|instruction[- ]tun",
        "benchmarks-and-evaluation": r"benchmark|evaluat|dataset",
    },
    "vision": {
        "computer-vision": r"\bimage|video|visual|vision|pixel|camera|\b3d\b|point cloud",
        "image-segmentation": r"segment|\bmasks?\b|matting",
        "object-detection": r"detect|bounding box|locali[sz]|yolo|detr",
        "medical-image-analysis": r"medical|clinical|patholog|radiolog|\bmri\b|\bct\b|x-ray"
        r"|ultrasound|lesion|tumou?r|retina|endoscop|dermat",
        "vision-language-models": r"vision[- ]language|\bvlms?\b|multimodal|mllm|lvlm|caption"
        r"|\bvqa\b|visual question|\bclip\b",
        "generative-models": r"generat|diffusion|\bgans?\b|\bvae\b|flow matching|synthes",
    },
}
# Families added with the forward rounds: no lexical pattern of their own (None); the papers
# in which the rules find any evidence for the topic, tagged or not, stand in for it.
NEW_FAMILIES: dict[str, list[str]] = {
    "retrieval": [
        "information-retrieval",
        "retrieval-augmented-generation",
        "question-answering",
        "hallucination",
        "code-generation",
    ],
    "multiagent": [
        "multi-agent-systems",
        "multi-agent-llm-systems",
        "multi-agent-collaboration",
        "tool-using-agents",
        "llm-agent-training",
        "persistent-memory-for-language-models",
        "memory-augmented-neural-networks",
    ],
    "rlmethods": [
        "policy-optimization",
        "policy-gradient-methods",
        "reward-modeling",
        "preference-optimization",
        "supervised-fine-tuning",
        "knowledge-distillation",
    ],
    "safety": ["llm-evaluation", "ai-safety", "ai-alignment", "interpretability"],
    "systems": [
        "model-efficiency",
        "mixture-of-experts",
        "continual-learning",
        "graph-learning",
        "graph-neural-networks",
        "speech-recognition",
    ],
    "embodied": ["robotics", "robot-learning", "autonomous-driving", "diffusion-models"],
}
for _family, _topics in NEW_FAMILIES.items():
    FAMILIES[_family] = dict.fromkeys(_topics)
# Round 1: per topic, how many of its tagged papers and of its lexical-only papers to judge;
# per family, how many of its whole pool and of the whole corpus.
PER_TOPIC = {"agents": (60, 30), "language": (40, 25), "vision": (40, 25)}
HEADLINE = ("rl-for-llm-agents", 220, 120)
PER_FAMILY = {"agents": (200, 100), "language": (150, 200), "vision": (150, 200)}
ROUND2_PER_TOPIC = {"agents": 50, "language": 40, "vision": 40}
ROUND2_HEADLINE = (200, 80)  # tagged, near misses
NEAR_MISS = 0.25  # how far below its threshold a probability counts as a near miss
ROUND3_FLOOR, ROUND3_BELOW = 0.1, 100  # round 3: all from this probability up, a sample below
# Forward rounds (4 and up) judge one newer month for every topic of a family: per topic,
# samples of the papers the shipped tagger tags, of its near misses and of the lexical-only
# papers; the headline topic larger; and a uniform sample of the month.
FORWARD_PER_TOPIC = (12, 6, 5)  # tagged, near misses, lexical only
FORWARD_HEADLINE = (40, 25, 15)
FORWARD_RANDOM = 40


def load_corpus(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def _gold_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in gzip.decompress(path.read_bytes()).splitlines()]


def judged_ids(path: Path) -> dict[str, set[str]]:
    """Family -> ids already judged for it."""
    judged: dict[str, set[str]] = {family: set() for family in FAMILIES}
    if path.exists():
        for row in _gold_rows(path):
            for family, topics in FAMILIES.items():
                if set(topics) & set(row["labels"]):
                    judged[family].add(row["id"])
    return judged


def draw(
    corpus: list[dict],
    judged: dict[str, set[str]],
    round_: int,
    seed: int,
    tagger: Tagger,
    families: list[str],
    sizes: tuple[int, int, int, int] | None = None,
    only: set[str] | None = None,
    near: float = NEAR_MISS,
    held: bool = False,
) -> dict:
    """`sizes` (forward rounds): per topic tagged, near misses, lexical only; uniform sample.
    `only` (forward rounds): the topics whose strata are drawn; every topic of the family is
    judged all the same. `near`: how far below the threshold a near miss may score; `held`:
    papers a gate holds back though their probability reaches the threshold are near misses
    too."""
    by_id = {p["id"]: p for p in corpus}
    tags = {
        p["id"]: {t.slug for t in tagger.tag(p["title"], p["abstract"], p["categories"])}
        for p in corpus
    }
    # The rules' evidence stands in for a family's lexical pattern only where it has none.
    patternless = any(None in FAMILIES[family].values() for family in families)
    # Evidence means the rules' phrases, not the model's reach (which is every paper).
    rules = Tagger(tagger.catalog, model=tagger._model, everywhere=False)
    evidence = {
        p["id"]: set(rules.candidates(p["title"], p["abstract"], p["categories"]))
        for p in (corpus if patternless else ())
    }
    text = {p["id"]: f"{p['title']} {p['abstract']}".lower() for p in corpus}
    ids = sorted(text)
    rng = random.Random(seed)
    chosen: dict[str, list[str]] = {}
    for family in families:
        topics = FAMILIES[family]
        picked: dict[str, None] = {}
        fresh = [i for i in ids if i not in judged[family]]

        def take(pool: list[str], count: int, picked: dict[str, None] = picked) -> None:
            pool = [i for i in pool if i not in picked]
            for i in rng.sample(pool, min(count, len(pool))):
                picked[i] = None

        pool_all: set[str] = set()
        for slug, pattern in topics.items():
            lexical = re.compile(pattern) if pattern else None
            tagged = [i for i in fresh if slug in tags[i]]
            worded = [
                i
                for i in fresh
                if slug not in tags[i]
                and (lexical.search(text[i]) if lexical else slug in evidence[i])
            ]
            pool_all.update(tagged, worded)
            if round_ >= 4:
                if only and slug not in only:
                    continue
                n_tagged, n_near, n_worded = (
                    FORWARD_HEADLINE if slug == HEADLINE[0] else FORWARD_PER_TOPIC
                )
                if sizes:
                    n_tagged, n_near, n_worded = sizes[:3]
                take(tagged, n_tagged)
                if n_near:
                    missed = near_misses(tagger, [by_id[i] for i in fresh], slug, near, held)
                    take(missed, n_near)
                take(worded, n_worded)
                continue
            if round_ == 3:
                if slug == HEADLINE[0]:
                    above, below = probable(tagger, [by_id[i] for i in fresh], slug)
                    take(above, len(above))
                    take(below, ROUND3_BELOW)
                continue
            if round_ == 2:
                if slug == HEADLINE[0]:
                    take(tagged, ROUND2_HEADLINE[0])
                    take(near_misses(tagger, [by_id[i] for i in fresh], slug), ROUND2_HEADLINE[1])
                else:
                    take(tagged, ROUND2_PER_TOPIC[family])
                continue
            n_tagged, n_worded = PER_TOPIC[family]
            if slug == HEADLINE[0]:
                n_tagged, n_worded = HEADLINE[1:]
            take(tagged, n_tagged)
            take(worded, n_worded)
        if round_ >= 4:
            take(fresh, sizes[3] if sizes else FORWARD_RANDOM)
        if round_ == 1:
            n_pool, n_corpus = PER_FAMILY[family]
            take(sorted(pool_all), n_pool)
            take(fresh, n_corpus)
        chosen[family] = list(picked)
    return chosen


def near_misses(
    tagger: Tagger, papers: list[dict], slug: str, near: float = NEAR_MISS, held: bool = False
) -> list[str]:
    """Papers whose probability for `slug` falls just short of its threshold (by at most
    `near`), and with `held` those whose probability reaches it but a gate holds them back."""
    missed = []
    for paper in papers:
        text = (paper["title"], paper["abstract"], paper["categories"])
        seen = tagger.explain(*text, slug)
        probability, threshold = seen.probability, seen.threshold
        if probability is None:
            continue
        if threshold - near <= probability < threshold or (
            held and probability >= threshold and slug not in {t.slug for t in tagger.tag(*text)}
        ):
            missed.append(paper["id"])
    return missed


def probable(tagger: Tagger, papers: list[dict], slug: str) -> tuple[list[str], list[str]]:
    """Candidates for `slug` with a probability of at least ROUND3_FLOOR, and the rest."""
    above, below = [], []
    for paper in papers:
        seen = tagger.explain(paper["title"], paper["abstract"], paper["categories"], slug)
        if seen.probability is not None:
            (above if seen.probability >= ROUND3_FLOOR else below).append(paper["id"])
    return above, below


def write_batches(folder: Path, stem: str, ids: list[str], by_id: dict[str, dict]) -> None:
    """`ids` in batches of BATCH, `<stem>-NN.jsonl`: the paper alone, for a judge to read."""
    keep = ("id", "title", "abstract", "categories", "published")
    for number, start in enumerate(range(0, len(ids), BATCH)):
        with (folder / f"{stem}-{number:02d}.jsonl").open("w", encoding="utf-8") as out:
            for arxiv_id in ids[start : start + BATCH]:
                paper = by_id[arxiv_id]
                out.write(json.dumps({k: paper[k] for k in keep}, ensure_ascii=False) + "\n")


CODES = {"y": "yes", "b": "borderline", "n": "no"}
DEV_SHARE = 6  # in tenths


def split_of(arxiv_id: str) -> str:
    return "dev" if hashlib.sha256(arxiv_id.encode()).digest()[0] % 10 < DEV_SHARE else "test"


def merge(batches: Path, labels: Path, gold: Path) -> None:
    rows = {}
    if gold.exists():
        rows = {row["id"]: row for row in _gold_rows(gold)}
    added = 0
    for path in sorted(labels.glob("r*.txt")):  # "a*": second readings, not gold
        family = path.stem.split("-")[1]
        topics = list(FAMILIES[family])
        papers = {}
        for line in (batches / f"{path.stem}.jsonl").read_text(encoding="utf-8").splitlines():
            paper = json.loads(line)
            papers[paper["id"]] = paper
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            arxiv_id, codes = line.split()
            row = rows.setdefault(arxiv_id, {**papers[arxiv_id], "split": split_of(arxiv_id)})
            labels_now = row.setdefault("labels", {})
            if not set(topics) & set(labels_now):  # a second reading of a paper is not merged
                labels_now.update({t: CODES[c] for t, c in zip(topics, codes, strict=True)})
                added += 1
    ordered = sorted(rows.values(), key=lambda r: r["id"])
    lines = []
    for row in ordered:
        row["labels"] = dict(sorted(row["labels"].items()))
        lines.append(json.dumps(row, ensure_ascii=False) + "\n")
    gold.write_bytes(gzip.compress("".join(lines).encode(), compresslevel=9, mtime=0))
    print(f"{added} paper-family judgments added; {len(ordered)} papers in {gold}")


def agreement(gold: Path, second: Path) -> None:
    """How often an independent second reading gave the same label, per topic."""
    first = {row["id"]: row["labels"] for row in _gold_rows(gold)}
    same: dict[str, list[int]] = {}  # topic -> [identical labels, pairs, identical yes/no, yes/no]
    for line in second.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        for topic, label in row["labels"].items():
            counts = same.setdefault(topic, [0, 0, 0, 0])
            other = first[row["id"]][topic]
            counts[0] += label == other
            counts[1] += 1
            if "borderline" not in (label, other):
                counts[2] += label == other
                counts[3] += 1
    totals = [sum(c[i] for c in same.values()) for i in range(4)]
    for topic, (equal, pairs, decided_equal, decided) in [*same.items(), ("all", totals)]:
        print(f"{topic:36} same label {equal}/{pairs}; yes/no pairs {decided_equal}/{decided}")


def main() -> None:
    if "--independent" in sys.argv:
        sys.argv.remove("--independent")
        from independent_pool import main as independent

        independent()
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="folder for the batches")
    parser.add_argument("--merge", nargs=2, type=Path, metavar=("BATCHES", "LABELS"))
    parser.add_argument("--agreement", action="store_true", help="gold vs a second reading")
    parser.add_argument(
        "--round", type=int, default=1, dest="round_", help="1-3; 4+: a forward month"
    )
    parser.add_argument("--month", help="only papers published in this month (YYYY-MM)")
    parser.add_argument("--families", nargs="+", choices=list(FAMILIES), default=list(FAMILIES))
    parser.add_argument(
        "--sizes",
        nargs=4,
        type=int,
        metavar=("TAGGED", "NEAR", "WORDED", "RANDOM"),
        help="forward rounds: per topic, and the family's uniform sample",
    )
    parser.add_argument(
        "--topics",
        nargs="+",
        help="forward rounds: draw only these topics' strata (and --sizes'"
        " uniform sample); the batches are judged for the whole family",
    )
    parser.add_argument(
        "--near",
        type=float,
        default=NEAR_MISS,
        help="forward rounds: how far below its threshold a near miss may score",
    )
    parser.add_argument(
        "--held",
        action="store_true",
        help="forward rounds: papers a gate holds back are near misses too",
    )
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--seed", type=int, default=2025)
    parser.add_argument("--model", type=Path, help="round 2: the learned tier to draw from")
    args = parser.parse_args()
    if args.merge:
        merge(*args.merge, GOLD)
        return
    if args.agreement:
        agreement(GOLD, GOLD.parent / "second_reading.jsonl")
        return
    if args.out is None:
        parser.error("--out or --merge is needed")
    corpus = load_corpus(args.corpus)
    if args.month:
        corpus = [p for p in corpus if p["published"].startswith(args.month)]
    by_id = {p["id"]: p for p in corpus}
    model = None
    if args.round_ > 1:
        model = TopicModel.load(args.model)
    tagger = Tagger(Catalog.load(), model=model)
    chosen = draw(
        corpus,
        judged_ids(GOLD),
        args.round_,
        args.seed,
        tagger,
        args.families,
        args.sizes,
        set(args.topics or ()),
        args.near,
        args.held,
    )
    args.out.mkdir(parents=True, exist_ok=True)
    for family, picked in chosen.items():
        rng = random.Random(f"{args.seed}-{family}")
        rng.shuffle(picked)  # batches mix strata, so no batch is all positives
        write_batches(args.out, f"r{args.round_}-{family}", picked, by_id)
        print(f"{family}: {len(picked)} papers, topics {', '.join(FAMILIES[family])}")


if __name__ == "__main__":
    main()
