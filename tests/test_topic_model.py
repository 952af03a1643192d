"""The learned tier: the shipped artefact reads papers as training did, and is the one the
training script builds."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from digests.topics.catalog import Catalog, CatalogError
from digests.topics.tagger import Tagger
from digests.topics.text_features import paper_terms, paper_word_bytes
from digests.topics.topic_model import ModelError, TopicModel
from tests.shared_data import shared_dir

ROOT = Path(__file__).resolve().parents[1]
ODD_PAPERS = [
    ("", "", []),
    ("Ünïcode — Agents?", "Ärger über LLM-Agenten; RL in ℝ^n.", ["cs.CL"]),
    ("<script>alert(1)</script> RL", "@everyone " * 50, "cs.LG cs.AI"),
]


@pytest.fixture(scope="module")
def model() -> TopicModel:
    return TopicModel.shipped()


@pytest.fixture(scope="module")
def real_papers() -> list[tuple[str, str, list[str]]]:
    path = shared_dir("data", "arxiv-real", pattern="ai-2025.jsonl.gz") / "ai-2025.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        rows = [json.loads(next(lines)) for _ in range(400)]
    return [(r["title"], r["abstract"], r["categories"]) for r in rows] + ODD_PAPERS


def test_a_paper_is_read_with_exactly_the_terms_training_counted(model, real_papers) -> None:
    columns = {term: number for number, term in enumerate(model.vocabulary)}
    for title, abstract, categories in real_papers:
        seen = [columns[t] for t in paper_terms(title, abstract, categories) if t in columns]
        expected, counts = np.unique(np.array(seen, dtype=np.intp), return_counts=True)
        vector = model.vector(title, abstract, categories)
        assert np.array_equal(vector.ids, expected), title[:60]
        if len(expected):
            values = (1 + np.log(counts.astype(np.float32))) * model._idf[expected]
            assert np.allclose(vector.values, values / np.linalg.norm(values), atol=1e-6)


def test_a_paper_scores_the_same_in_a_batch_as_alone(model, real_papers) -> None:
    words = [(*paper_word_bytes(title, abstract), cats) for title, abstract, cats in real_papers]
    together = model.probabilities_many(words)
    alone = np.stack([model.probabilities_many([paper])[0] for paper in words])
    assert np.allclose(together, alone, atol=1e-6)


def test_every_modelled_topic_was_trained_with_the_shipped_rules(model) -> None:
    catalog = Catalog.load()
    stale = [t.slug for t in model.topics if t.rules_hash != catalog.get(t.slug).rules_hash()]
    assert not stale, f"retrain the model (docs/tagging.md): rules changed for {stale}"
    assert len(Tagger(catalog).modelled) == len(model.topics) >= 20


def test_a_topics_file_redefining_a_topic_gets_its_rules_not_the_model(tmp_path) -> None:
    override = tmp_path / "topics.toml"
    override.write_text(
        '[[topic]]\nslug = "rl-for-llm-agents"\nname = "RL for LLM Agents"\n'
        'description = "Ours."\nparents = ["reinforcement-learning", "llm-agents"]\n'
        'phrases = ["agentic rl"]\n',
        encoding="utf-8",
    )
    tagger = Tagger(Catalog.load(override))
    assert "rl-for-llm-agents" not in tagger.modelled
    assert "reinforcement-learning" in tagger.modelled
    tags = {t.slug: t for t in tagger.tag("Agentic RL for web tasks", "", ["cs.CL"])}
    assert tags["rl-for-llm-agents"].source == "rules"


def test_the_model_is_loaded_once_per_process() -> None:
    assert Tagger(Catalog.load())._model is Tagger(Catalog.load())._model


@pytest.mark.parametrize(
    "content, problem",
    [(b"", "cannot read"), (b"not gzip", "cannot read"), (gzip.compress(b'{"format": 9}'), "9")],
)
def test_a_broken_artefact_is_refused_in_one_line(tmp_path, content, problem) -> None:
    path = tmp_path / "model.json.gz"
    path.write_bytes(content)
    with pytest.raises(ModelError, match=problem) as refused:
        TopicModel.load(path)
    assert "\n" not in str(refused.value)
    assert not isinstance(refused.value, CatalogError)


def test_the_shipped_model_is_what_digestbot_train_builds(tmp_path) -> None:
    pytest.importorskip("sklearn")
    shared_dir("data", "arxiv-real", pattern="ai-2025.jsonl.gz")
    rebuilt = tmp_path / "model.json.gz"
    subprocess.run(
        [sys.executable, "-m", "bot", "train", "--out", str(rebuilt)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    shipped = ROOT / "digests" / "data" / "topic_model.json.gz"
    assert rebuilt.read_bytes() == shipped.read_bytes()
