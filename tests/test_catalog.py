"""The topic catalog: what ships, how people name topics, and what a TOPICS_FILE can do."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from digests.topics.catalog import AmbiguousTopic, Catalog, CatalogError, TopicDef, UnknownTopic
from digests.topics.tagger import Tagger
from tests.seeds import load_seed_papers, seed_tags, seeds_dir


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "topics.toml"
    path.write_text(text, encoding="utf-8")
    return path


NEW_TOPIC = """
[[topic]]
slug = "sparse-autoencoders"
name = "Sparse Autoencoders"
description = "Dictionary learning on model activations."
parents = ["interpretability"]
phrases = ["sae feature", "dictionary feature"]
"""


LOOP = """
[[topic]]
slug = "loop-a"
name = "Loop A"
description = "A."
parents = ["loop-b"]
phrases = ["a"]

[[topic]]
slug = "loop-b"
name = "Loop B"
description = "B."
parents = ["loop-a"]
phrases = ["b"]
"""


# ---------------------------------------------------------------- the shipped catalog


def test_shipped_catalog_is_broad(catalog: Catalog) -> None:
    assert len(catalog.topics) >= 40
    for slug in ("computer-vision", "robotics", "diffusion-models", "graph-neural-networks"):
        catalog.get(slug)


def test_every_seed_tag_is_a_catalog_topic(catalog: Catalog) -> None:
    names = [topic.name for topic in catalog.topics]
    tags: set[str] = set()
    for paper in load_seed_papers(seeds_dir()):
        split = seed_tags(paper, names)
        assert split is not None, f"tags not all in the catalog: {paper.tag_line!r}"
        tags.update(split)
    assert len(tags) >= 90  # guards the parser: the pages carry 93 distinct tags
    assert {"RL for LLM Agents", "Agentic RL", "Terminal Agents", "World Model Learning"} <= tags


def test_descriptions_are_single_lines_written_for_each_topic(catalog: Catalog) -> None:
    descriptions = [topic.description for topic in catalog.topics]
    assert all(d and "\n" not in d and len(d) < 200 for d in descriptions)
    assert len(set(descriptions)) == len(descriptions)


def test_rl_for_llm_agents_sits_under_rl_for_language_models_and_llm_agents(
    catalog: Catalog,
) -> None:
    ancestors = catalog.ancestors("rl-for-llm-agents")
    assert ancestors[:2] == ["rl-for-language-models", "llm-agents"]
    assert {"reinforcement-learning", "large-language-models"} <= set(ancestors)


def test_descendants_include_grandchildren(catalog: Catalog) -> None:
    below = catalog.descendants("reinforcement-learning")
    assert "policy-optimization" in below
    assert "group-relative-policy-optimization" in below


def test_agent_topics_inherit_the_category_gate(catalog: Catalog) -> None:
    assert "cs" in catalog.category_gate("llm-agents")
    inherited = set(catalog.category_gate("rl-for-llm-agents"))
    assert set(catalog.category_gate("llm-agents")) <= inherited


def test_every_shipped_root_topic_is_gated_to_machine_learning_fields(catalog: Catalog) -> None:
    for topic in catalog.topics:
        if not topic.parents:
            assert "cs" in catalog.category_gate(topic.slug), topic.slug


def test_get_unknown_slug_raises_key_error(catalog: Catalog) -> None:
    with pytest.raises(KeyError):
        catalog.get("no-such-topic")


# ---------------------------------------------------------------- naming topics


@pytest.mark.parametrize(
    "query",
    [
        "RL for LLM Agents",
        "rl for llm agents",
        "RL-for-LLM-Agents",
        "rl-for-llm-agents",
        "  RL  for LLM agents. ",
    ],
)
def test_resolve_accepts_name_or_slug_in_any_spelling(catalog: Catalog, query: str) -> None:
    assert catalog.resolve(query).slug == "rl-for-llm-agents"


def test_resolve_accepts_aliases(catalog: Catalog) -> None:
    assert catalog.resolve("GRPO").slug == "group-relative-policy-optimization"
    assert catalog.resolve("marl").slug == "multi-agent-reinforcement-learning"


@pytest.mark.parametrize(
    "query, slug",
    [
        ("Reinforcment Learning", "reinforcement-learning"),
        ("Multi-Agent LLM Sytems", "multi-agent-llm-systems"),
        ("llm agent", "llm-agents"),
        ("Terminal Agnets", "terminal-agents"),
    ],
)
def test_resolve_fixes_a_clear_typo(catalog: Catalog, query: str, slug: str) -> None:
    assert catalog.resolve(query).slug == slug


def test_resolve_refuses_to_pick_between_close_topics(catalog: Catalog) -> None:
    with pytest.raises(AmbiguousTopic) as caught:
        catalog.resolve("credit assignment rl")
    names = {topic.name for topic in caught.value.suggestions}
    assert {"Credit Assignment in RL", "Credit Assignment"} <= names


def test_a_word_shared_by_several_names_is_ambiguous(catalog: Catalog) -> None:
    with pytest.raises(AmbiguousTopic) as caught:
        catalog.resolve("memory")
    assert len(caught.value.suggestions) > 1
    assert all("memory" in topic.name.lower() for topic in caught.value.suggestions)


def test_unknown_topic_suggests_the_closest_names_in_one_line(catalog: Catalog) -> None:
    with pytest.raises(UnknownTopic) as caught:
        catalog.resolve("rl for agnets")
    error = caught.value
    assert not isinstance(error, AmbiguousTopic)
    assert error.query == "rl for agnets"
    assert error.suggestions[0].name == "RL for LLM Agents"
    message = str(error)
    assert message.startswith('unknown topic "rl for agnets" — did you mean: RL for LLM Agents, ')
    assert message.endswith("?") and "\n" not in message


def test_partial_word_is_not_silently_resolved(catalog: Catalog) -> None:
    with pytest.raises(UnknownTopic) as caught:
        catalog.resolve("calibration")
    assert caught.value.suggestions[0].slug == "model-calibration"


@pytest.mark.parametrize("query", ["x" * 10_000, "\x00\x1b[31m\u202e<script>", "", "   ", "🤖🤖"])
def test_garbage_queries_fail_fast_with_a_short_message(catalog: Catalog, query: str) -> None:
    start = time.perf_counter()
    with pytest.raises(UnknownTopic) as caught:
        catalog.resolve(query)
    assert time.perf_counter() - start < 0.1
    message = str(caught.value)
    assert len(message) < 120 and "\n" not in message and "\x1b" not in message


def test_names_repeated_by_an_upstream_file_resolve_quickly(catalog: Catalog) -> None:
    start = time.perf_counter()
    for _ in range(2_000):
        with pytest.raises(UnknownTopic):
            catalog.resolve("Quantum Error Mitigation Agents")
        catalog.resolve("Terminal Agnets")
    assert time.perf_counter() - start < 1.0


def test_suggest_is_empty_for_nonsense(catalog: Catalog) -> None:
    assert catalog.suggest("xyzzy qwrtp") == []
    assert [t.slug for t in catalog.suggest("world models")][:2] == [
        "world-model-learning",
        "world-model-evaluation",
    ]


def test_search_ranks_name_matches_before_description_matches(catalog: Catalog) -> None:
    found = [topic.slug for topic in catalog.search("memory")]
    assert found[0] == "llm-agent-memory" or "memory" in catalog.get(found[0]).name.lower()
    by_description = catalog.search("shell")  # only in the Terminal Agents description
    assert [t.slug for t in by_description] == ["terminal-agents"]


def test_search_tolerates_a_typo_and_partial_words(catalog: Catalog) -> None:
    assert catalog.search("reinforcment")[0].slug == "reinforcement-learning"
    assert "group-relative-policy-optimization" in [t.slug for t in catalog.search("group rel")]


def test_search_with_no_words_lists_everything(catalog: Catalog) -> None:
    assert len(catalog.search("  ")) == len(catalog.topics)


# ---------------------------------------------------------------- versions and hashes


def test_version_is_stable_across_loads(catalog: Catalog) -> None:
    assert Catalog.load().version() == catalog.version()


def test_version_changes_when_a_rule_changes(tmp_path: Path, catalog: Catalog) -> None:
    shipped = catalog.get("terminal-agents")
    path = write(
        tmp_path,
        f"""
[[topic]]
slug = "terminal-agents"
name = "{shipped.name}"
description = "{shipped.description}"
parents = {list(shipped.parents)!r}
phrases = {[*shipped.phrases, "shell copilot"]!r}
""".replace("'", '"'),
    )
    changed = Catalog.load(path)
    assert changed.version() != catalog.version()
    assert changed.get("terminal-agents").rules_hash() != shipped.rules_hash()


def test_rules_hash_ignores_wording_and_order_but_not_rules() -> None:
    base = TopicDef("t", "T", "One.", parents=("p",), phrases=("a b", "c"))
    assert (
        base.rules_hash() == TopicDef("t", "Tee", "Two.", ("p",), phrases=("c", "a b")).rules_hash()
    )
    assert (
        base.rules_hash() != TopicDef("t", "T", "One.", ("q",), phrases=("a b", "c")).rules_hash()
    )
    assert base.rules_hash() != TopicDef("t", "T", "One.", ("p",), phrases=("a b",)).rules_hash()
    assert len(base.rules_hash()) == 64


# ---------------------------------------------------------------- TOPICS_FILE


def test_topics_file_adds_a_topic_that_resolves_and_tags(tmp_path: Path) -> None:
    catalog = Catalog.load(write(tmp_path, NEW_TOPIC))
    assert catalog.resolve("sparse autoencoders").slug == "sparse-autoencoders"
    tags = {t.slug: t for t in Tagger(catalog).tag("Steering models with SAE features", "", [])}
    assert tags["sparse-autoencoders"].source == "rules"
    assert "interpretability" in tags  # rolled up, or by its own model


def test_topics_file_overrides_a_shipped_topic_by_slug(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[[topic]]
slug = "federated-learning"
name = "Federated and Split Learning"
description = "Training across data silos."
phrases = ["split learning"]
""",
    )
    catalog = Catalog.load(path)
    topic = catalog.get("federated-learning")
    assert topic.name == "Federated and Split Learning"
    assert len(catalog.topics) == len(Catalog.load().topics)
    tagger = Tagger(catalog)
    assert "federated-learning" in {t.slug for t in tagger.tag("Split learning at scale", "", [])}
    assert "federated-learning" not in {t.slug for t in tagger.tag("Federated averaging", "", [])}


@pytest.mark.parametrize(
    "text, problem",
    [
        ("[[topic]\nslug = 'x'", "not valid TOML"),
        (NEW_TOPIC.replace("phrases =", "phrase ="), "unknown key 'phrase'"),
        (
            NEW_TOPIC.replace('"interpretability"', '"no-such-parent"'),
            "unknown topic 'no-such-parent'",
        ),
        (
            NEW_TOPIC.replace('slug = "sparse-autoencoders"', 'slug = "Sparse Autoencoders"'),
            "kebab-case",
        ),
        (NEW_TOPIC.replace('["sae feature", "dictionary feature"]', "[]"), "needs at least one"),
        (NEW_TOPIC + "patterns = ['sae(']\n", "not a valid regex"),
        (NEW_TOPIC + "patterns = ['(sae) features']\n", "capturing group"),
        (NEW_TOPIC + "patterns = ['SAE']\n", "capitals"),
        (
            NEW_TOPIC.replace('name = "Sparse Autoencoders"', 'name = "Diffusion Models"'),
            "names topic",
        ),
        (
            NEW_TOPIC.replace('description = "Dictionary learning on model activations."\n', ""),
            "'description' must be",
        ),
        (NEW_TOPIC + 'all_of = [["@sparse-autoencoders"]]\n', "refers to itself"),
        (LOOP, "cycle through parents"),
    ],
)
def test_broken_topics_file_names_the_file_and_the_problem(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(CatalogError) as caught:
        Catalog.load(path)
    message = str(caught.value)
    assert str(path) in message and problem in message and "\n" not in message


def test_missing_topics_file_is_a_catalog_error(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="cannot read"):
        Catalog.load(tmp_path / "missing.toml")
