"""The tagger: which topics papers get, how scores behave, and that odd text is harmless."""

from __future__ import annotations

import gzip
import json
import time

import pytest

from digests.topics.catalog import Catalog, TopicDef
from digests.topics.tagger import Tagger, TagScore
from tests.shared_data import shared_dir

# Abstracts written for these tests; each is plainly from a field with no agents in it, and
# several carry words that a careless matcher would take for agent or RL vocabulary.
OTHER_FIELDS = [
    (
        "Stellar feedback and the quenching of star formation in dwarf galaxies",
        "We analyse deep integral-field spectroscopy of 42 dwarf galaxies observed with MUSE "
        "and radio continuum maps from the VLA. Star formation histories derived from "
        "resolved stellar populations show that supernova-driven outflows remove cold gas "
        "from the central kiloparsec within 200 Myr. A deep search for neutral hydrogen "
        "around the quenched systems yields upper limits that favour ejection over "
        "exhaustion. Our results constrain feedback prescriptions in cosmological simulations "
        "and predict the gas fractions that future surveys should find.",
        ["astro-ph.GA"],
    ),
    (
        "Coevolution-free protein structure prediction for orphan sequences",
        "Accurate structure prediction for proteins without homologues remains difficult "
        "because multiple sequence alignments carry little signal. We present a folding "
        "model that conditions on embeddings from a protein language model and refines "
        "backbone frames with an equivariant transformer. On orphan targets from recent CASP "
        "rounds the method improves mean TM-score by 0.08 over AlphaFold2 run in "
        "single-sequence mode, and its confidence estimates remain well correlated with "
        "error. Ablations show that recycling and side-chain packing contribute most of the "
        "gain.",
        ["q-bio.BM"],
    ),
    (
        "Boundary-aware transformers for semantic segmentation of aerial imagery",
        "Semantic segmentation of aerial images suffers from thin structures such as roads "
        "and field boundaries that are lost at low resolution. We add a boundary branch to a "
        "vision transformer encoder and fuse its predictions with the mask decoder through "
        "learned gating. Trained with a combination of Dice and boundary losses, the model "
        "improves mean IoU by 2.1 points on two public benchmarks while running at 30 frames "
        "per second on a single GPU. We release code and pretrained weights.",
        ["cs.CV"],
    ),
    (
        "On the chromatic number of graphs with forbidden induced subgraphs",
        "We prove that every graph with no induced path on six vertices and no triangle has "
        "chromatic number at most four, improving the previous bound of five. The argument "
        "combines a structural decomposition into homogeneous sets with a careful analysis "
        "of minimal counterexamples. We also show that the bound is tight by constructing an "
        "explicit family of graphs, and we discuss consequences for the policy of choosing "
        "colourings greedily in online settings.",
        ["math.CO"],
    ),
    (
        "Robust inference for heterogeneous treatment effects in panel data",
        "We develop an estimator for heterogeneous treatment effects in panels with "
        "staggered adoption and interactive fixed effects. Economic agents select into "
        "treatment based on unobserved trends, which biases two-way fixed effects "
        "regressions. Our approach combines factor models with doubly robust moment "
        "conditions and yields asymptotically normal estimates under weak dependence. "
        "Simulations and an application to minimum wage policy evaluation show sizeable "
        "differences from conventional difference-in-differences estimates.",
        ["econ.EM"],
    ),
    (
        "Verified register allocation for a multi-pass optimizing compiler",
        "Register allocation is among the most intricate phases of an optimizing compiler. "
        "We present a register allocator based on graph colouring with coalescing whose "
        "output is checked by a formally verified validator in Coq. The validator runs after "
        "instruction selection and code generation and rejects incorrect allocations. "
        "Integrated into a production compiler backend, the approach adds 4% to compile "
        "time, found two latent miscompilation bugs, and preserves the performance of the "
        "generated code on the SPEC benchmarks.",
        ["cs.PL"],
    ),
    (
        "Reagent selection for late-stage C-H functionalisation from high-throughput data",
        "Choosing the right reagent and catalyst for late-stage functionalisation is largely "
        "empirical. We curate 12,000 high-throughput experiments and fit gradient-boosted "
        "models that predict yield from reagent descriptors and substrate fingerprints. The "
        "models rank the best reagent within the top three for 78% of held-out substrates "
        "and suggest two oxidising agents that had not been tried for this reaction class.",
        ["physics.chem-ph"],
    ),
    (
        "Dose reduction of gadolinium contrast agents in brain MRI with deep learning",
        "Gadolinium-based contrast agents raise safety concerns with repeated use. We train a "
        "convolutional network to synthesise full-dose contrast-enhanced images from "
        "low-dose acquisitions in 640 patients. Radiologists rated the synthesised images "
        "non-inferior for lesion detection, and quantitative enhancement agreed with the "
        "reference within 6%. The approach could cut the administered dose by a factor of "
        "four.",
        ["eess.IV"],
    ),
    (
        "Energy-efficient multi-hop routing for LoRa mesh networks",
        "LoRa networks are usually deployed as single-hop stars, which limits coverage in "
        "rugged terrain. We design a multi-hop routing protocol that schedules relays by "
        "residual energy and link quality and adapts the spreading factor per hop. In a field "
        "deployment with 48 nodes the protocol extends network lifetime by 37% and delivers "
        "96% of packets, outperforming flooding and static tree baselines.",
        ["cs.NI"],
    ),
    (
        "Topological order and fractionalised excitations in a kagome antiferromagnet",
        "We study the spin-1/2 Heisenberg model on the kagome lattice with density matrix "
        "renormalisation group simulations on cylinders of circumference up to 12. The "
        "entanglement entropy shows a topological correction consistent with a gapped Z2 "
        "spin liquid, and the static structure factor lacks Bragg peaks. Adding a weak "
        "Dzyaloshinskii-Moriya interaction drives a transition to a q=0 ordered state, whose "
        "location we determine by finite-size scaling.",
        ["cond-mat.str-el"],
    ),
    (
        "Seasonal forecasting of monsoon rainfall with coupled ocean-atmosphere ensembles",
        "We evaluate the skill of a coupled ensemble prediction system for the Indian summer "
        "monsoon over thirty hindcast years. Sea surface temperature anomalies in the "
        "equatorial Pacific explain most of the predictable signal, while the Indian Ocean "
        "dipole adds skill in late-onset years. Calibrating ensemble spread with a "
        "nonhomogeneous regression improves reliability, and we show where the system "
        "remains overconfident.",
        ["physics.ao-ph"],
    ),
    (
        "Transmission dynamics of dengue under changing climate in Southeast Asia",
        "We fit a compartmental model of dengue transmission to weekly case counts from "
        "eleven provinces between 2005 and 2023, with mosquito abundance driven by "
        "temperature and rainfall. The estimated basic reproduction number rises by 12% per "
        "degree of warming. Scenario projections suggest that vector control must intensify "
        "substantially to offset climate-driven increases, and we quantify uncertainty with "
        "a Bayesian hierarchical framework.",
        ["q-bio.PE"],
    ),
    (
        "Lock-free concurrent B-trees with epoch-based reclamation",
        "We present a lock-free B-tree that supports concurrent inserts, deletes and range "
        "scans with linearisable semantics. Nodes are updated through copy-on-write with a "
        "single compare-and-swap, and memory is reclaimed with epochs to avoid the ABA "
        "problem. On a 64-core server the structure sustains 180 million operations per "
        "second under a mixed workload, three times the throughput of a lock-based "
        "baseline.",
        ["cs.DB"],
    ),
    (
        "Post-quantum key encapsulation on constrained microcontrollers",
        "We implement a lattice-based key encapsulation mechanism on 32-bit ARM Cortex-M4 "
        "devices with masking against first-order side-channel attacks. Careful scheduling "
        "of the number theoretic transform keeps the masked decapsulation under 1.3 million "
        "cycles. Test vector leakage assessment on 100,000 power traces finds no leakage, "
        "and we report stack usage suitable for devices with 16 kB of RAM.",
        ["cs.CR"],
    ),
    (
        "Surface code thresholds under biased noise with leakage",
        "We compute fault-tolerance thresholds for the XZZX surface code when physical qubits "
        "suffer biased Pauli noise and occasional leakage to non-computational states. Using "
        "a tensor-network decoder and leakage-reduction circuits, the threshold stays above "
        "1% for noise biases up to 100. We also estimate the qubit overhead needed to reach "
        "logical error rates of one in a billion.",
        ["quant-ph"],
    ),
]


@pytest.fixture(scope="module")
def tagger(catalog: Catalog) -> Tagger:
    return Tagger(catalog)


def agent_slugs(catalog: Catalog) -> set[str]:
    roots = ("llm-agents", "multi-agent-systems")
    return {slug for root in roots for slug in (root, *catalog.descendants(root))}


def slugs(tags: list[TagScore]) -> set[str]:
    return {tag.slug for tag in tags}


@pytest.mark.parametrize("title, abstract, categories", OTHER_FIELDS, ids=lambda v: str(v)[:30])
def test_papers_from_other_fields_get_no_agent_topic(
    tagger: Tagger, catalog: Catalog, title: str, abstract: str, categories: list[str]
) -> None:
    assert not slugs(tagger.tag(title, abstract, categories)) & agent_slugs(catalog)


@pytest.mark.parametrize("title, abstract, categories", OTHER_FIELDS, ids=lambda v: str(v)[:30])
def test_rules_alone_keep_other_fields_out_of_agent_topics(
    tagger: Tagger, catalog: Catalog, title: str, abstract: str, categories: list[str]
) -> None:
    assert not slugs(tagger.tag(title, abstract, [])) & agent_slugs(catalog)


def test_clear_title_tags_the_specific_topic_and_all_its_ancestors(
    tagger: Tagger, catalog: Catalog
) -> None:
    tags = {t.slug for t in tagger.tag("When does GRPO fail?", "", [])}
    assert "group-relative-policy-optimization" in tags
    assert set(catalog.ancestors("group-relative-policy-optimization")) <= tags


def test_rules_roll_a_tag_up_to_its_ancestors_with_a_lower_score(catalog: Catalog) -> None:
    rules = Tagger(catalog, model=None)
    tags = {t.slug: t for t in rules.tag("When does GRPO fail?", "", [])}
    grpo = tags["group-relative-policy-optimization"]
    assert grpo.source == "rules"
    for ancestor in catalog.ancestors("group-relative-policy-optimization"):
        assert tags[ancestor].source == "rollup"
        assert 0 < tags[ancestor].score < grpo.score


def test_rollup_keeps_a_parents_own_direct_match(catalog: Catalog) -> None:
    rules = Tagger(catalog, model=None)
    title = "Reinforcement learning with GRPO for theorem provers"
    tags = {t.slug: t for t in rules.tag(title, "", [])}
    assert tags["group-relative-policy-optimization"].source == "rules"
    assert tags["reinforcement-learning"].source == "rules"


def test_rl_for_llm_agents_needs_both_rl_and_agent_evidence(tagger: Tagger) -> None:
    assert "rl-for-llm-agents" in slugs(
        tagger.tag("Training web agents with reinforcement learning", "", ["cs.CL"])
    )
    assert "rl-for-llm-agents" not in slugs(
        tagger.tag("Reinforcement learning for quadruped locomotion", "", ["cs.RO"])
    )
    assert "rl-for-llm-agents" not in slugs(
        tagger.tag("A survey of LLM agents for customer support", "", ["cs.CL"])
    )


def test_title_match_outscores_a_single_abstract_mention(tagger: Tagger) -> None:
    in_title = {t.slug: t.score for t in tagger.tag("Federated learning at scale", "", [])}
    in_abstract = {
        t.slug: t.score for t in tagger.tag("Scaling study", "We use federated learning.", [])
    }
    assert in_title["federated-learning"] > in_abstract["federated-learning"] > 0


def test_passing_words_do_not_reach_the_threshold(tagger: Tagger) -> None:
    assert tagger.tag("A note", "The agent reported results to the committee.", []) == []


def test_category_gate_vetoes_agent_topics_outside_computing(tagger: Tagger) -> None:
    title = "LLM agents negotiate prices in simulated markets"
    assert "llm-agents" in slugs(tagger.tag(title, "", ["cs.MA"]))
    assert "llm-agents" in slugs(tagger.tag(title, "", []))
    assert "llm-agents" in slugs(tagger.tag(title, "", "econ.GN cs.AI"))  # arXiv's spelling
    assert "llm-agents" not in slugs(tagger.tag(title, "", ["econ.GN"]))


def test_exclude_phrase_vetoes_a_topic(tagger: Tagger) -> None:
    assert "diffusion-models" in slugs(tagger.tag("Latent diffusion models for audio", "", []))
    assert "diffusion-models" not in slugs(
        tagger.tag("Pattern formation in a reaction-diffusion model of skin", "", [])
    )


def test_plurals_hyphens_and_case_all_match(tagger: Tagger) -> None:
    for title in ("Multi-Agent LLM systems", "multi agent llm system", "MULTI-AGENT LLM SYSTEMS"):
        assert "multi-agent-llm-systems" in slugs(tagger.tag(title, "", []))


def test_scores_are_in_range_and_sorted(tagger: Tagger) -> None:
    tags = tagger.tag(
        "Agentic RL with GRPO for terminal agents",
        "We train LLM agents with reinforcement learning and verifiable rewards. " * 5,
        ["cs.LG"],
    )
    assert tags
    assert all(0 < t.score <= 1 and t.source in {"model", "rules", "rollup"} for t in tags)
    assert [t.score for t in tags] == sorted((t.score for t in tags), reverse=True)


@pytest.mark.parametrize(
    "title, abstract",
    [
        ("<script>alert('x')</script> @everyone", "<b>bold</b> &amp; @here ```code```"),
        ("Mem-$\\pi$: memory via $\\mathcal{O}(n)$ and \\textbf{RL}", "$$\\sum_i x_i$$ \\\\ %"),
        ("🤖🚀 agents 🎉", "émoji, ümlaut, 中文 text with LLM agents\u200b\u0000"),
        ("", ""),
        ("A" * 10_000, "agent " * 5_000),
        ("   \n\t  ", None),
    ],
)
def test_hostile_text_does_not_crash(tagger: Tagger, title: str, abstract: str | None) -> None:
    tags = tagger.tag(title, abstract, ["cs.AI"])  # type: ignore[arg-type]
    assert all(isinstance(t, TagScore) for t in tags)


def test_latex_in_a_title_still_matches(tagger: Tagger) -> None:
    tags = slugs(tagger.tag("$\\textbf{Agentic}$ RL via \\emph{GRPO}", "", []))
    assert {"agentic-rl", "group-relative-policy-optimization"} <= tags


def test_huge_texts_stay_fast(tagger: Tagger) -> None:
    title = "Reinforcement learning for LLM agents " * 300  # ~10 kB
    abstract = "We study agentic RL with credit assignment and tool use. " * 200
    start = time.perf_counter()
    for _ in range(20):
        tagger.tag(title, abstract, ["cs.LG"])
    assert (time.perf_counter() - start) / 20 < 0.02


def test_a_patterns_only_topic_from_an_override_matches() -> None:
    extra = TopicDef(
        slug="sparse-autoencoder-probes",
        name="Sparse Autoencoder Probes",
        description="Probing models with sparse autoencoders.",
        patterns=(r"sparse (?:\w+ )?autoencoders?",),
    )
    catalog = Catalog([*Catalog.load().topics, extra])
    tags = slugs(Tagger(catalog).tag("Sparse dictionary autoencoders find features", "", []))
    assert "sparse-autoencoder-probes" in tags


def test_an_acronym_alone_is_no_evidence(catalog: Catalog) -> None:
    rules = Tagger(catalog, model=None)
    radio = rules.tag(
        "Radio-loud quasars at high redshift: RL fractions and jet power",
        "The RL fraction of quasars declines with redshift; RL sources show more jet power.",
        [],
    )
    assert "reinforcement-learning" not in slugs(radio)
    jailbreak = rules.tag(
        "Universal jailbreak suffixes: ASR and transfer across chat models",
        "Our suffixes reach an ASR of 94% on aligned chat models and transfer to others.",
        [],
    )
    assert "speech-recognition" not in slugs(jailbreak)


def test_an_acronym_counts_beside_other_evidence_for_its_topic(catalog: Catalog) -> None:
    rules = Tagger(catalog, model=None)

    def rl_score(title: str) -> float:
        return {t.slug: t.score for t in rules.tag(title, "", [])}["reinforcement-learning"]

    with_acronym = rl_score("Atari agents trained with RL: reinforcement learning from pixels")
    assert with_acronym > rl_score("Atari agents: reinforcement learning from pixels")


def test_a_field_category_is_evidence_for_the_field_but_not_its_children(catalog) -> None:
    rules = Tagger(catalog, model=None)
    title, abstract = "Better features for everyday pictures", "We study what networks learn."
    assert "computer-vision" in slugs(rules.tag(title, abstract, ["cs.CV"]))
    children = set(catalog.descendants("computer-vision"))
    assert not slugs(rules.tag(title, abstract, ["cs.CV"])) & children
    assert "computer-vision" not in slugs(rules.tag(title, abstract, ["cs.CL"]))


def test_a_narrow_rules_topic_needs_the_broad_topic_the_model_decides(tagger: Tagger) -> None:
    # "exploration" in a paper about prompting is no RL Exploration when it is no RL paper.
    tags = slugs(
        tagger.tag(
            "Exploration of prompt formats for clinical note summarisation",
            "We explore prompt formats and exploration strategies for summarising notes "
            "with large language models, and report exploration costs.",
            ["cs.CL"],
        )
    )
    assert "reinforcement-learning" not in tags
    assert not tags & {"rl-exploration", "exploration-exploitation-tradeoff"}


def test_papers_tagged_together_get_the_tags_they_get_alone(tagger: Tagger) -> None:
    papers = [(t, a, c) for t, a, c in OTHER_FIELDS] + [
        ("Agentic RL with GRPO for terminal agents", "We train LLM agents with RL.", ["cs.LG"]),
        ("", "", []),
    ]
    assert tagger.tag_many(papers) == [tagger.tag(*paper) for paper in papers]


def test_the_version_changes_with_the_rules_the_model_and_the_threshold(catalog) -> None:
    shipped = Tagger(catalog)
    assert shipped.version == Tagger(catalog).version
    assert shipped.version != Tagger(catalog, model=None).version
    assert shipped.version != Tagger(catalog, threshold=0.4).version
    other = Catalog([*catalog.topics[:-1]])
    assert Tagger(other).version != shipped.version


def real_2026_papers(*ids: str) -> dict[str, tuple[str, str, list[str]]]:
    folder = shared_dir("data", "arxiv-real", pattern="ai-2026q1.jsonl.gz")
    wanted = {}
    with gzip.open(folder / "ai-2026q1.jsonl.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            paper = json.loads(line)
            if paper["id"] in ids:
                wanted[paper["id"]] = (paper["title"], paper["abstract"], paper["categories"])
    assert set(wanted) == set(ids)
    return wanted


@pytest.fixture(scope="module")
def rules_only_diffusion(tmp_path_factory) -> Tagger:
    """The shipped tagger with an operator's own Diffusion Models (one phrase fewer): its model
    no longer applies, so the topic is decided by its rules, as every rarer topic is."""
    shipped = Catalog.load().get("diffusion-models")
    phrases = [p for p in shipped.phrases if p != "ddpm"]
    path = tmp_path_factory.mktemp("topics") / "topics.toml"
    path.write_text(
        f"""
[[topic]]
slug = "diffusion-models"
name = "{shipped.name}"
description = "{shipped.description}"
parents = {list(shipped.parents)!r}
phrases = {phrases!r}
exclude = {list(shipped.exclude)!r}
""".replace("'", '"'),
        encoding="utf-8",
    )
    tagger = Tagger(Catalog.load(path))
    assert "diffusion-models" not in tagger.modelled
    return tagger


def test_a_head_word_in_the_title_of_a_confident_parents_paper_tags_the_rules_topic(
    rules_only_diffusion: Tagger,
) -> None:
    # Real 2026 papers whose titles say "Diffusion" without any phrase of Diffusion Models'
    # rules ("diffusion model", "latent diffusion", ...), all confidently Generative Models.
    papers = real_2026_papers("2602.09510", "2601.22135", "2603.04565")
    for title, abstract, categories in papers.values():
        tags = slugs(rules_only_diffusion.tag(title, abstract, categories))
        assert {"diffusion-models", "generative-models"} <= tags, title


def test_a_head_word_is_no_evidence_without_a_confident_parent_or_under_an_exclude(
    rules_only_diffusion: Tagger,
) -> None:
    # Diffusion MRI harmonisation, an advection-diffusion fluid model, diffusion geometry.
    papers = real_2026_papers("2603.17968", "2601.03397", "2601.04517")
    for title, abstract, categories in papers.values():
        tags = slugs(rules_only_diffusion.tag(title, abstract, categories))
        assert "diffusion-models" not in tags, title


def test_a_title_naming_a_rules_topic_needs_a_confident_parent_too(
    rules_only_diffusion: Tagger,
) -> None:
    # "EndoCoT: Scaling Endogenous Chain-of-Thought Reasoning in Diffusion Models" names the
    # topic, but the Generative Models model turns the paper down: the gate holds.
    ((title, abstract, categories),) = real_2026_papers("2603.12252").values()
    tags = slugs(rules_only_diffusion.tag(title, abstract, categories))
    explained = rules_only_diffusion.explain(title, abstract, categories, "generative-models")
    assert explained.probability is not None and explained.probability < explained.threshold
    assert not tags & {"diffusion-models", "generative-models"}
