"""Variants of the decision and the features of RL for LLM Agents alone, forward in time
(docs/tagging.md, "RL for LLM Agents, forward"): the shipped recipe trained on the judged papers
up to --until, each variant's one setting chosen on --choose, then reported on --report and on
the seed pages' papers, which choose nothing.

    .venv/bin/pip install -e ".[train]"
    .venv/bin/python scripts/rla_variants.py [--gold GOLD ...] [--until 2026-01
        --choose 2026-02 --report 2026-03]

- yields: RL for LLM Agents implies LLM Agents, so a confident model of the topic is evidence
  for both: its LLM Agents gate (or every gate but Reinforcement Learning's) gives way once its
  own probability reaches a level S (best F1 on --choose, ties to the highest S). Scored with
  the real tagger: a paper has the tag when the gated tagger gives it, or a tagger without
  those gates gives it and the probability reaches S.
- stacking: a logistic regression over the logits of the out-of-fold probabilities of the topic
  and of its gates on the training papers replaces the threshold and those gates (the
  Reinforcement Learning gate stays); its threshold is the best cross-validated F1.
- phrases: binary features for 2026's wording ("agentic RL", "terminal agents", "tool-integrated
  RL"...) beside the words, for this topic alone, at the scale --choose prefers.
- C: this topic's own inverse regularisation strength, the one --choose prefers.
--months 2: the recipe self-trains on the last two training months' unjudged papers, not one.
Stacking, phrases and C are scored outside the tagger (no roll-up from the topic's children), as
scripts/forward_experiments.py does; each prints its baseline scored the same way.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from pathlib import Path

import numpy as np
from scipy import sparse
from sklearn.linear_model import LogisticRegression

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import forward_experiments as F  # noqa: E402

from digests.topics import training as T  # noqa: E402
from digests.topics.catalog import Catalog  # noqa: E402
from digests.topics.evaluation import Evaluation, GoldPaper, evaluate, load_gold  # noqa: E402
from digests.topics.tagger import Tagger  # noqa: E402
from digests.topics.text_features import paper_word_bytes  # noqa: E402

H = "rl-for-llm-agents"
RL = "reinforcement-learning"
STACKED = [H, RL, "rl-for-language-models", "llm-agents", "llm-post-training"]
YIELD_LEVELS = (0.7, 0.6, 0.5, 0.45, 0.4, 0.35, 0.3, 0.25, 0.2)
PHRASES = [
    r"agentic (rl|reinforcement)",
    r"\b(rl|reinforcement learning) (for|of) (llm |language )?agents?",
    r"terminal[- ](bench|agents?|tasks?|environments?)",
    r"tool[- ]integrated (rl|reinforcement|reasoning)",
    r"multi-turn (rl|reinforcement|policy)",
    r"agent(ic)? (rl )?training",
    r"\brollouts?\b.{0,40}\b(environment|tool|turn)s?",
    r"(interactive|agentic) environments?",
    r"long-horizon",
    r"(web|search|gui|coding|software) agents?",
]
PHRASE_SCALES = (0.15, 0.3, 0.6)
STRENGTH = T.C  # the recipe's inverse regularisation strength
STRENGTHS = (1.0, 2.0, 4.0, 8.0, 16.0)  # this topic's, tried


def counts(tagged: np.ndarray, papers: list[GoldPaper]) -> str:
    """right / wrong / missed, precision / recall, F1 on the papers judged for the topic."""
    labels = [p.labels.get(H) for p in papers]
    tp = sum(t and lab == "yes" for t, lab in zip(tagged, labels, strict=True))
    fp = sum(t and lab == "no" for t, lab in zip(tagged, labels, strict=True))
    fn = sum(not t and lab == "yes" for t, lab in zip(tagged, labels, strict=True))
    p, r = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    return f"{tp}/{fp}/{fn} P {p:.3f} R {r:.3f} F1 {2 * p * r / max(p + r, 1e-9):.3f}"


def f1(text: str) -> float:
    return float(text.rsplit(" ", 1)[1])


def has_tag(tagger: Tagger, papers: list[GoldPaper]) -> np.ndarray:
    tags = tagger.tag_many([(p.title, p.abstract, p.categories) for p in papers])
    return np.array([any(t.slug == H for t in found) for found in tags])


def probabilities(model, papers: list[GoldPaper]) -> np.ndarray:
    return model.probabilities_many(
        [(*paper_word_bytes(p.title, p.abstract), p.categories) for p in papers]
    )


def yields(catalog, built: T.Built, sets: dict, choose: str, name: str, kept: set[str]) -> None:
    """The gates whose topic is not in `kept` give way at the level chosen on `choose`."""
    model = built.model()
    open_fitted = [
        dataclasses.replace(
            f,
            calibration=dataclasses.replace(
                f.calibration, gates=tuple(g for g in f.calibration.gates if g[0] in kept)
            ),
        )
        if f.calibration.slug == H
        else f
        for f in built.fitted
    ]
    gated = Tagger(catalog, model=model)
    ungated = Tagger(catalog, model=T.as_model(open_fitted, built.vocabulary, built.idf))
    parts = {
        name: (
            has_tag(gated, ps),
            has_tag(ungated, ps),
            probabilities(model, ps)[:, model.column[H]],
        )
        for name, ps in sets.items()
    }

    def scored(month: str, level: float) -> str:
        g, o, p = parts[month]
        return counts(g | (o & (p >= level)), sets[month])

    for level in (1.01, *YIELD_LEVELS):
        print(f"{name} S={level}: {choose} {scored(choose, level)}")
    best = max(YIELD_LEVELS, key=lambda level: (f1(scored(choose, level)), level))
    print(f"{name} chosen S={best}: " + "  ".join(f"{n} {scored(n, best)}" for n in sets))


def base(catalog: Catalog, model, sets: dict[str, list[GoldPaper]]) -> list[str]:
    """The topic's figures and the macro over the learned topics, with the real tagger."""
    tagger = Tagger(catalog, model=model)
    out = []
    for name, ps in sets.items():
        found = evaluate(tagger, ps, worst=0)
        learned = Evaluation([t for t in found.topics if t.slug in tagger.modelled])
        macro = "/".join(f"{learned.macro(n) or 0:.3f}" for n in ("precision", "recall"))
        out.append(f"{name} {counts(has_tag(tagger, ps), ps)} macro {macro}")
    return out


def outside(catalog: Catalog, papers: list[GoldPaper]) -> np.ndarray:
    rules = Tagger(catalog, model=None)
    return np.array([H in T._proposed(rules, p) for p in papers])


def logits(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def stacking(catalog, built, captured, training, sets) -> None:
    stage, calibrated = captured["stages"][H], captured["calibrated"]
    rows = stage.rows[stage.rows < len(training)]  # judged papers, not self-training's
    asked = stage.candidate[rows]
    x = logits(np.column_stack([calibrated[s][2][rows] for s in STACKED]))
    y = np.array([training[i].labels[H] == "yes" for i in rows])
    folds = np.array([T.fold_of(training[i].arxiv_id) for i in rows])
    held = np.zeros(len(rows))
    for fold in range(T.FOLDS):
        fit = LogisticRegression().fit(x[asked & (folds != fold)], y[asked & (folds != fold)])
        held[folds == fold] = fit.predict_proba(x[folds == fold])[:, 1]
    final = LogisticRegression().fit(x[asked], y[asked])
    model = built.model()
    calibration = model.topics[model.column[H]]
    rl_level = dict(calibration.gates).get(RL, 0.0)
    rl_ok = calibrated[RL][2][rows] >= rl_level
    judged = [training[i] for i in rows]
    threshold = max(
        np.round(np.arange(0.05, 0.951, 0.01), 2),
        key=lambda t: f1(counts(asked & rl_ok & (held >= t), judged)),
    )
    print(f"stacking: weights {np.round(final.coef_[0], 2)}, threshold {threshold}")
    for name, ps in sets.items():
        p = probabilities(model, ps)
        columns = np.column_stack([p[:, model.column[s]] for s in STACKED])
        proposed, rl_ok = outside(catalog, ps), columns[:, 1] >= rl_level
        base = proposed & (columns[:, 0] >= calibration.threshold)
        for slug, level in calibration.gates:
            base &= p[:, model.column[slug]] >= level
        stacked = proposed & rl_ok & (final.predict_proba(logits(columns))[:, 1] >= threshold)
        print(f"  {name}: base {counts(base, ps)}  stacking {counts(stacked, ps)}")


def phrase_features(papers: list[GoldPaper], scale: float) -> sparse.csr_matrix:
    patterns = [re.compile(p, re.IGNORECASE) for p in PHRASES]
    rows = [
        [
            scale * (1.0 if p.search(paper.title) else 0.5 if p.search(paper.abstract) else 0.0)
            for p in patterns
        ]
        for paper in papers
    ]
    return sparse.csr_matrix(np.array(rows))


def alone(catalog, built0: T.Built, training, sets, choose: str) -> None:
    """Phrases and regularisation: this topic refitted with a setting, the others as they are,
    scored outside the tagger without self-training; each setting chosen on `choose`."""
    slices = {name: F.make_slice(catalog, ps, built0) for name, ps in sets.items()}
    keep = {H, *catalog.ancestors(H)}
    narrowed = [
        dataclasses.replace(p, labels={k: v for k, v in p.labels.items() if k in keep})
        for p in training
    ]

    def scored(features, extra, strength: float = T.C) -> dict[str, str]:
        T.C = strength
        refit = T.train(catalog, narrowed, built0.vocabulary, built0.idf, features)
        T.C = STRENGTH
        own = next(r for r in refit if r.calibration.slug == H)
        fitted = [own if f.calibration.slug == H else f for f in built0.fitted]
        out = {}
        for name, piece in slices.items():
            words = piece.words if extra is None else sparse.hstack([piece.words, extra(piece)])
            probs = F.probabilities(fitted, words.tocsr())
            out[name] = counts(F.predict(catalog, fitted, probs, piece.proposed)[H], piece.papers)
        return out

    def show(name: str, results: dict) -> None:
        for setting, row in results.items():
            print(f"{name} {setting}: {choose} {row[choose]}")
        best = max(results, key=lambda k: f1(results[k][choose]))
        print(f"{name} chosen {best}: " + "  ".join(f"{n} {s}" for n, s in results[best].items()))

    base = scored(built0.features, None)
    print("alone, base (no self-training): " + "  ".join(f"{n} {s}" for n, s in base.items()))
    show(
        "phrases scale",
        {
            k: scored(
                sparse.hstack([built0.features, phrase_features(training, k)]).tocsr(),
                lambda s, k=k: phrase_features(s.papers, k),
            )
            for k in PHRASE_SCALES
        },
    )
    show("C", {c: scored(built0.features, None, c) for c in STRENGTHS})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gold", type=Path, action="append")
    parser.add_argument("--until", default="2026-01")
    parser.add_argument("--choose", default="2026-02")
    parser.add_argument("--report", default="2026-03")
    parser.add_argument(
        "--months", type=int, default=1, help="self-training reads the last N months (recipe: 1)"
    )
    args = parser.parse_args()
    catalog = Catalog.load()
    papers = T.judged_papers(args.gold or [T.GOLD])
    corpus = [p for p in T._corpus(T.CORPORA) if p["published"][:7] <= args.until]
    training = [p for p in papers if T.month_of(p) <= args.until]
    sets = {m: [p for p in papers if T.month_of(p) == m] for m in (args.choose, args.report)}
    sets["seeds"] = load_gold(ROOT / "tests/data/gold/seed_pages.jsonl")
    captured: dict = {}
    second_stage = T.second_stage

    def capturing(topic, broader, stages, calibrated, required):
        captured.update(stages=stages, calibrated=calibrated)  # of the last fit: self-trained
        return second_stage(topic, broader, stages, calibrated, required)

    T.second_stage = capturing
    built0 = T.build(catalog, corpus, training)
    recent = sorted({p["published"][:7] for p in corpus})[-args.months :]
    newest = [p for p in corpus if p["published"][:7] in recent]
    built = T.self_trained(catalog, built0, training, newest)
    T.second_stage = second_stage
    model = built.model()
    print("base, the shipped recipe: " + "  ".join(base(catalog, model, sets)))
    gates = {slug for slug, _ in model.topics[model.column[H]].gates}
    yields(catalog, built, sets, args.choose, "yields (LLM Agents)", gates - {"llm-agents"})
    yields(catalog, built, sets, args.choose, "yields (all but RL)", {RL})
    stacking(catalog, built, captured, training, sets)
    alone(catalog, built0, training, sets, args.choose)


if __name__ == "__main__":
    main()
