"""Generate digestbot's demo corpus: GENERATED arXiv-like papers, not real ones.

Every record this script writes is made up. Titles and abstracts are assembled from templates
and a vocabulary of research phrases, authors are random pairings of first and last names from
the lists below, and ids are well-formed arXiv ids chosen to fit the date, not those of real
papers. Each record carries `"generated": true` so that nothing downstream can take it for data.

The corpus spans 16 weeks ending on 2026-09-28, with fewer submissions at weekends, across the
categories digestbot follows by default and a few others. One strand of research, reinforcement
learning for LLM agents, grows sharply over the last four weeks so that `digestbot demo` has a
spike to show.

The output is deterministic: the same seed gives the same bytes with the same zlib (the gzip
header carries no timestamp and no file name).

Usage:
    python scripts/make_demo_corpus.py            # writes digests/data/demo_corpus.jsonl.gz
    python scripts/make_demo_corpus.py --out FILE.jsonl.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from pathlib import Path

SEED = 20260928
END = date(2026, 9, 28)
WEEKS = 16
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "digests" / "data" / "demo_corpus.jsonl.gz"

# Relative submission volume, Monday first: arXiv is quiet at weekends.
DAY_WEIGHTS = (1.0, 1.05, 1.05, 1.0, 0.9, 0.3, 0.35)
# Submission hour (UTC): a broad afternoon peak and a thin night.
HOUR_WEIGHTS = (2, 2, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 15, 12, 9, 6, 4, 3)
AUTHOR_COUNT_WEIGHTS = (4, 10, 14, 14, 12, 9, 7, 5, 3, 2)  # 1 to 10 authors
REVISED_SHARE = 0.1  # papers already at version 2
OPEN_WITH_CONTRIBUTION = 0.5  # abstracts that start with what the paper does

FIRST_NAMES = (
    "Aiko", "Amara", "Anders", "Aneesh", "Ayla", "Bao", "Beatriz", "Bilal", "Camille", "Chen",
    "Dario", "Dmitri", "Elif", "Emeka", "Esther", "Farah", "Felix", "Gabriel", "Hana", "Haruto",
    "Ines", "Ioana", "Jae-won", "Javier", "Jonas", "Kavya", "Kenji", "Laila", "Lars", "Lucia",
    "Mateo", "Mei", "Mihail", "Nadia", "Nikhil", "Noor", "Olga", "Omar", "Priya", "Quentin",
    "Rafael", "Rania", "Ruth", "Saanvi", "Samuel", "Sofia", "Soren", "Tariq", "Thandiwe",
    "Tomasz", "Uma", "Valentina", "Wen", "Xavier", "Yara", "Yusuf", "Zanele", "Zhiyuan",
)  # fmt: skip
LAST_NAMES = (
    "Abebe", "Adeyemi", "Alvarez", "Andersen", "Bakker", "Banerjee", "Bianchi", "Brandt",
    "Castellanos", "Chowdhury", "Costa", "Dubois", "Eriksson", "Fernandes", "Fischer", "Gallo",
    "Gupta", "Haddad", "Hoffmann", "Horvath", "Ibrahim", "Ivanova", "Jensen", "Kapoor", "Kim",
    "Kowalski", "Kuznetsov", "Lindqvist", "Liu", "Mahlangu", "Marino", "Mendes", "Moreau",
    "Nakamura", "Novak", "Okafor", "Oliveira", "Park", "Petrov", "Quispe", "Rahman", "Rossi",
    "Sato", "Schmidt", "Silva", "Singh", "Sokolov", "Suzuki", "Tanaka", "Torres", "Tran",
    "Usman", "Van Dijk", "Vasquez", "Wang", "Weber", "Xu", "Yamamoto", "Yilmaz", "Zhang",
    "Zhou", "Zielinski",
)  # fmt: skip

NAME_TAILS = ("-R1", "-Zero", "++", "X", "-Lite", "-2", "Pro", "Net", "Flow", "Mix", "-S", "Star")
TITLES = (
    "{name}: {Method}",
    "{name}: {Method} in {Task}",
    "{Method} in {Task}",
    "Scaling {Method} to {Task}",
    "What Makes {Method} Work in {Task}?",
    "{name}: Rethinking {Method}",
    "Towards Reliable {Task} with {Method}",
    "{Method}: A Study of {Task}",
)
INTROS = (
    "We propose {name}, which applies {method} to {task}.",
    "In this work, we introduce {name}, an approach to {task} based on {method}.",
    "We present {name}, built on {method}, for {task}.",
    "This paper studies {method} for {task} and introduces {name}.",
)
RESULTS = (
    "Experiments on {b1} and {b2} show that {name} improves over strong baselines by {x} "
    "points on average.",
    "On {b1}, {name} outperforms the previous state of the art by {x}%, and it carries over "
    "to {b2} without further tuning.",
    "{name} achieves the best results on {b1} and {b2} while using {k}x less compute than "
    "comparable methods.",
    "Across {b1} and {b2}, {name} matches models several times its size at a fraction of the cost.",
)
CLOSINGS = (
    "We release code, data and trained models to support future work.",
    "Ablations show that each component contributes to the gains.",
    "Our analysis also identifies failure modes that remain open.",
    "We discuss limitations and directions for future work.",
    "",
    "",
)
SMALL_WORDS = frozenset(
    {"a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or"}
    | {"over", "the", "to", "under", "via", "vs", "with"}
)


@dataclass(frozen=True)
class Theme:
    """A strand of research: where it is posted, how much, and the phrases it is written in.

    Phrase pools are '|'-separated strings, which keeps the vocabulary table below readable.
    """

    key: str
    categories: str  # ';'-separated category lists, primary first
    per_week: float  # papers in an ordinary week
    heads: str  # first halves of method names
    methods: str  # noun phrases: what a paper proposes
    tasks: str  # noun phrases: what it is for
    contexts: str  # opening sentences
    gaps: str  # what is missing, as a clause that follows "However,"
    mechanisms: str  # how the method works, using {name}
    benchmarks: str
    # Papers per week, newest week last, replacing per_week where given (the spike).
    weekly: tuple[int, ...] = ()

    def pool(self, field: str) -> tuple[str, ...]:
        return _split(getattr(self, field), "|")

    def category_lists(self) -> tuple[str, ...]:
        return _split(self.categories, ";")


@cache
def _split(text: str, separator: str) -> tuple[str, ...]:
    parts = (" ".join(part.split()) for part in text.split(separator))
    return tuple(part for part in parts if part)


SPIKE = Theme(
    key="rl-llm-agents",
    categories="cs.LG cs.AI cs.CL; cs.AI cs.LG; cs.CL cs.AI cs.LG; cs.LG cs.CL",
    per_week=7,
    weekly=(6, 7, 6, 7, 7, 6, 7, 7, 7, 7, 8, 8, 11, 15, 20, 26),
    heads="Agent | Web | Tool | Turn | Trace | Env | Act | Roll",
    methods="""multi-turn reinforcement learning for LLM agents
        | agentic reinforcement learning with verifiable rewards
        | GRPO-based policy optimization for tool-using LLM agents
        | turn-level credit assignment in reinforcement learning of LLM agents
        | online reinforcement learning of LLM agents
        | reward modeling for long-horizon LLM agents
        | curriculum reinforcement learning for LLM agents""",
    tasks="""web navigation | tool use | software engineering tasks | long-horizon agentic tasks
        | interactive terminal environments | deep research | household tasks
        | multi-step function calling""",
    contexts="""Large language model (LLM) agents are increasingly trained with reinforcement
        learning to act in interactive environments.
        | Reinforcement learning has emerged as a promising way to turn LLMs into agents that
        plan, call tools and recover from their own errors.
        | Recent work shows that outcome-based reinforcement learning can teach LLM agents to
        solve multi-step tasks without human demonstrations.
        | Training LLM agents with reinforcement learning promises agents that improve from
        their own interaction with the environment.
        | Agentic reinforcement learning, in which a language model is optimized as a policy
        over multi-turn interactions, has attracted rapid interest.""",
    gaps="""sparse, delayed rewards make credit assignment across long multi-turn trajectories
        difficult
        | existing RL recipes for LLM agents are unstable and sample-inefficient when an
        episode spans dozens of tool calls
        | most reinforcement learning methods for LLMs optimize single-turn responses and
        ignore the state of the environment
        | rollouts in realistic environments are slow, which limits how much on-policy data an
        agent can collect
        | reward hacking and entropy collapse frequently derail the training of LLM agents""",
    mechanisms="""{name} assigns turn-level advantages by comparing groups of trajectories that
        share a prefix, extending GRPO to multi-turn agent interactions.
        | {name} trains the LLM agent with PPO on a mix of verifiable task rewards and a learned
        process reward model.
        | {name} runs asynchronous rollouts in sandboxed environments so that policy updates
        never wait for slow tool calls.
        | {name} rewards the agent for noticing and correcting its own mistakes within an
        episode.
        | {name} schedules tasks by difficulty so that the agent's reinforcement learning
        signal stays informative throughout training.
        | {name} drops trajectory groups with zero reward variance and regularizes the policy
        toward the reference LLM to prevent collapse.""",
    benchmarks="""WebArena | ALFWorld | SWE-bench Verified | WebShop | tau-bench | BrowseComp
        | OSWorld | AppWorld""",
)

THEMES = (
    SPIKE,
    Theme(
        key="rl",
        categories="cs.LG cs.AI; cs.LG stat.ML; cs.RO cs.LG; cs.AI cs.LG; cs.LG",
        per_week=24,
        heads="Dyna | Safe | Meta | Value | Dream | Critic | Explore",
        methods="""offline reinforcement learning with conservative value estimates
            | model-based reinforcement learning with latent world models
            | policy gradient methods with variance-reduced estimators
            | distributional temporal-difference learning
            | safe reinforcement learning under cost constraints
            | exploration bonuses from ensemble disagreement
            | hierarchical reinforcement learning with learned options""",
        tasks="""continuous control | sparse-reward exploration | Atari games
            | autonomous driving policies | sim-to-real transfer
            | partially observable environments""",
        contexts="""Reinforcement learning (RL) learns to act by maximizing cumulative reward
            through interaction with an environment.
            | Deep reinforcement learning has achieved strong results in games and continuous
            control, but remains data hungry.
            | Offline reinforcement learning aims to learn policies from fixed datasets
            without further interaction.
            | Model-based reinforcement learning promises sample efficiency by planning with
            a learned dynamics model.
            | Policy optimization methods such as PPO and SAC are the workhorses of modern
            reinforcement learning.""",
        gaps="""value estimates for out-of-distribution actions are overly optimistic, which
            leads to poor policies
            | exploration in high-dimensional state spaces with sparse rewards remains open
            | a learned dynamics model compounds its errors over long planning horizons
            | existing methods need millions of environment steps to reach good performance
            | guarantees derived for function approximation rarely hold in practice""",
        mechanisms="""{name} penalizes the Q-function on actions outside the dataset while
            keeping a tight bound on policy improvement.
            | {name} learns a latent world model and plans with short imagined rollouts to
            limit model bias.
            | {name} estimates epistemic uncertainty with an ensemble of critics and uses it
            as an exploration bonus.
            | {name} learns temporally extended options and a high-level policy that selects
            among them.
            | {name} uses a Lagrangian relaxation to keep the expected cost of the policy
            below a threshold.
            | We prove a regret bound for {name} in linear Markov decision processes.""",
        benchmarks="""D4RL | the DeepMind Control Suite | Atari 100k | MuJoCo locomotion
            | Procgen | Meta-World | NetHack""",
    ),
    Theme(
        key="llm-agents",
        categories="cs.AI cs.CL; cs.CL cs.AI; cs.AI cs.SE cs.CL; cs.HC cs.AI; cs.SE cs.AI",
        per_week=27,
        heads="Agent | Plan | Tool | Web | Task | Orch | Flow | Act",
        methods="""LLM agents with structured planning
            | tool-use frameworks for LLM agents
            | prompting strategies for autonomous LLM agents
            | evaluation harnesses for LLM agents
            | self-correcting LLM agents with execution feedback
            | LLM agents that write and run code""",
        tasks="""web navigation | computer use | agentic workflows | spreadsheet automation
            | customer service | scientific discovery | software engineering tasks""",
        contexts="""Large language model agents combine reasoning with tool calls to complete
            tasks in software environments.
            | LLM-based agents are now deployed to browse the web, operate computers and
            automate workflows.
            | Autonomous agents built on large language models decompose goals into plans and
            act on them with external tools.
            | Tool-augmented LLM agents extend language models from text generation to
            actions in the world.""",
        gaps="""LLM agents often fail silently when a tool returns an unexpected result
            | agents built on prompting alone struggle to plan over long horizons
            | evaluations of LLM agents rarely account for cost, latency and safety
            | existing agent frameworks treat tool descriptions as static and break when
            APIs change""",
        mechanisms="""{name} lets the LLM agent draft a plan, execute it step by step and
            revise it when observations contradict its assumptions.
            | {name} retrieves tool documentation on demand and checks every call against a
            schema before executing it.
            | {name} has the agent write executable code as its action space instead of
            free-form text.
            | {name} records each trajectory and replays failed steps with a critic model
            that explains the error.
            | {name} routes subtasks to specialized prompts and aggregates their results.""",
        benchmarks="""WebArena | GAIA | OSWorld | SWE-bench Lite | ToolBench | AgentBench
            | tau-bench""",
    ),
    Theme(
        key="rl-reasoning",
        categories="cs.CL cs.LG; cs.LG cs.CL cs.AI; cs.AI cs.CL; cs.LG cs.AI",
        per_week=14,
        heads="Reason | Math | Think | Verif | Proof | Deep",
        methods="""group relative policy optimization (GRPO) for LLM reasoning
            | reinforcement learning with verifiable rewards (RLVR)
            | GRPO with dynamic sampling
            | process reward models for chain-of-thought reasoning
            | length-penalized reinforcement fine-tuning of reasoning models""",
        tasks="""mathematical reasoning | competition math | code generation
            | logical reasoning | theorem proving""",
        contexts="""Reinforcement learning with verifiable rewards has become a standard
            recipe for improving the reasoning of large language models.
            | Group Relative Policy Optimization (GRPO) removes the value network of PPO by
            normalizing rewards within a group of sampled responses.
            | Reasoning models trained with GRPO produce long chains of thought that solve
            hard math problems.""",
        gaps="""GRPO wastes compute on prompts whose sampled responses all receive the same
            reward
            | reinforcement fine-tuning tends to lengthen responses without improving accuracy
            | it is unclear whether RL teaches new reasoning skills or only sharpens those
            already present in the base model
            | binary outcome rewards give no signal about which reasoning steps were wrong""",
        mechanisms="""{name} resamples prompts with zero advantage variance and clips the
            policy ratio asymmetrically.
            | {name} normalizes advantages at the token level and removes the length bias of
            the GRPO objective.
            | {name} trains a process reward model from Monte Carlo rollouts and uses it to
            shape step-level rewards.
            | {name} mixes on-policy GRPO updates with off-policy traces from a stronger
            teacher model.""",
        benchmarks="AIME 2025 | MATH-500 | GSM8K | LiveCodeBench | OlympiadBench | Minerva Math",
    ),
    Theme(
        key="multi-agent-llm",
        categories="cs.MA cs.AI cs.CL; cs.AI cs.MA; cs.CL cs.MA; cs.MA cs.AI",
        per_week=12,
        heads="Crew | Debate | Swarm | Team | Council | Guild",
        methods="""multi-agent LLM systems with role specialization
            | debate between LLM agents
            | communication protocols for multi-agent LLM collaboration
            | hierarchical orchestration of multi-agent LLM systems
            | multi-agent LLM pipelines with a shared blackboard""",
        tasks="""software development | scientific hypothesis generation | fact verification
            | negotiation | collaborative problem solving""",
        contexts="""Multi-agent systems of large language models divide a task among agents
            that discuss, critique and refine each other's outputs.
            | Assigning distinct roles to several LLM agents has been shown to improve the
            quality of complex generated artifacts.
            | Multi-agent debate lets language models challenge each other's answers before
            reaching a consensus.""",
        gaps="""multi-agent LLM systems frequently fail because agents misunderstand their
            roles or repeat each other
            | communication between agents grows quadratically with team size and quickly
            dominates the cost
            | it is unclear when a team of LLM agents actually outperforms a single agent
            with the same budget""",
        mechanisms="""{name} assigns planner, executor and reviewer roles and lets a
            coordinator agent decide when the team has converged.
            | {name} compresses inter-agent messages into a shared structured state that
            every agent can query.
            | {name} prunes redundant agents from the communication graph during a
            conversation.
            | {name} builds a taxonomy of coordination failures from thousands of
            multi-agent traces.""",
        benchmarks="HumanEval | MMLU-Pro | GPQA | MATH | StrategyQA",
    ),
    Theme(
        key="agent-memory",
        categories="cs.CL cs.AI; cs.AI cs.CL cs.IR; cs.AI cs.LG",
        per_week=8,
        heads="Mem | Recall | Chrono | Episodic | Note",
        methods="""long-term memory for LLM agents
            | episodic memory for conversational agents
            | hierarchical memory architectures for language agents
            | memory consolidation for persistent agents
            | structured memory graphs for agents""",
        tasks="""long-term conversations | personalized assistants | multi-session dialogue
            | lifelong agent tasks""",
        contexts="""Agents built on large language models need memory that persists beyond a
            single context window.
            | Long-term memory lets conversational agents recall user preferences and past
            events across sessions.
            | As LLM agents run for days or weeks, what they remember and forget becomes a
            central design question.""",
        gaps="""storing every interaction makes retrieval slow and fills the context with
            irrelevant history
            | existing agent memory systems cannot update or delete outdated facts
            | memory benchmarks rarely test temporal reasoning over events spread across
            many sessions""",
        mechanisms="""{name} writes salient events to an episodic store and periodically
            consolidates them into semantic summaries.
            | {name} organizes memories as a temporal knowledge graph and resolves conflicts
            when new facts arrive.
            | {name} learns when to read from and write to memory with a lightweight
            controller.
            | {name} scores memories by recency, importance and relevance before placing
            them in the prompt.""",
        benchmarks="LoCoMo | LongMemEval | Multi-Session Chat | PerLTQA",
    ),
    Theme(
        key="diffusion",
        categories="cs.CV cs.LG; cs.LG cs.CV stat.ML; cs.CV cs.AI; cs.GR cs.CV; cs.CV",
        per_week=32,
        heads="Diff | Flow | Denoise | Latent | Score | Pixel",
        methods="""latent diffusion models | consistency distillation of diffusion models
            | flow matching with optimal transport paths
            | classifier-free guidance schedules | diffusion transformers
            | score-based generative models""",
        tasks="""text-to-image generation | video generation | image editing
            | 3D shape generation | few-step sampling | image super-resolution""",
        contexts="""Diffusion models generate images by learning to reverse a gradual noising
            process.
            | Latent diffusion models have become the dominant approach to high-fidelity
            text-to-image synthesis.
            | Score-based generative models achieve excellent sample quality but need many
            network evaluations at inference time.
            | Flow matching trains continuous normalizing flows without simulation and is
            closely related to diffusion models.""",
        gaps="""sampling still needs tens of denoising steps, which limits interactive use
            | classifier-free guidance improves prompt alignment at the cost of diversity
            | diffusion models memorize training images more often than previously thought
            | temporal consistency across video frames remains hard to maintain""",
        mechanisms="""{name} distills a pretrained diffusion model into a one-step generator
            with a consistency objective.
            | {name} adapts the guidance scale to the noise level so that early steps keep
            diversity and late steps add detail.
            | {name} denoises in a compressed latent space with a diffusion transformer
            backbone.
            | {name} straightens the probability flow so that few-step sampling stays
            accurate.""",
        benchmarks="ImageNet 256x256 | MS-COCO | GenEval | UCF-101 | CIFAR-10 | DrawBench",
    ),
    Theme(
        key="vision-transformers",
        categories="cs.CV cs.LG; cs.CV cs.AI; cs.CV",
        per_week=22,
        heads="Patch | Token | Swin | Lens | Glance",
        methods="""vision transformers with token merging
            | self-supervised pretraining of vision transformers
            | hierarchical vision transformers
            | efficient attention for vision transformers
            | register tokens for vision transformers""",
        tasks="""image classification | semantic segmentation | dense prediction
            | object detection | medical image analysis""",
        contexts="""Vision transformers (ViTs) split an image into patches and process them
            with self-attention.
            | Since the introduction of the Vision Transformer, attention-based backbones have
            matched or surpassed convolutional networks.
            | Self-supervised vision transformers learn features that transfer to many
            downstream tasks.""",
        gaps="""the quadratic cost of self-attention makes high-resolution inputs expensive
            | ViTs lack the inductive biases of convolutions and need large datasets
            | attention maps of large ViTs contain high-norm artifact tokens""",
        mechanisms="""{name} merges similar tokens between transformer blocks, shortening the
            sequence without retraining.
            | {name} pretrains a ViT with masked image modeling and a self-distillation loss.
            | {name} restricts attention to shifted local windows and adds a global token for
            long-range context.
            | {name} adds learnable register tokens that absorb the artifacts seen in
            attention maps.""",
        benchmarks="ImageNet-1k | ADE20K | COCO | iNaturalist | CIFAR-100",
    ),
    Theme(
        key="robot-manipulation",
        categories="cs.RO cs.LG; cs.RO cs.AI cs.CV; cs.RO; cs.RO cs.SY eess.SY",
        per_week=20,
        heads="Grasp | Dex | Manip | Reach | Arm | Hand",
        methods="""diffusion policies for robot manipulation
            | vision-language-action models for manipulation
            | imitation learning from teleoperated demonstrations
            | tactile feedback for dexterous manipulation
            | 6-DoF grasp planning""",
        tasks="""robotic manipulation | dexterous in-hand manipulation
            | bimanual manipulation | deformable object manipulation
            | pick-and-place in cluttered scenes""",
        contexts="""Robot manipulation in unstructured environments requires policies that
            generalize across objects and scenes.
            | Learning manipulation skills from human demonstrations has become a practical
            route to general-purpose robots.
            | Dexterous manipulation with multi-fingered hands remains one of the hardest
            problems in robotics.""",
        gaps="""collecting demonstrations on real robots is slow and expensive
            | policies trained in simulation transfer poorly to real hardware
            | vision-only policies fail when the gripper occludes the object""",
        mechanisms="""{name} predicts action chunks with a diffusion policy conditioned on
            point clouds and proprioception.
            | {name} fuses tactile signals with camera images to detect slip during grasping.
            | {name} fine-tunes a vision-language-action model on a few task demonstrations.
            | {name} generates training scenes procedurally and randomizes physics parameters
            to close the sim-to-real gap.""",
        benchmarks="""LIBERO | RLBench | ManiSkill | real-world tasks on a Franka arm
            | a bimanual ALOHA setup""",
    ),
    Theme(
        key="gnn",
        categories="cs.LG cs.SI; cs.LG stat.ML; cs.LG cs.AI; cs.SI cs.LG",
        per_week=19,
        heads="Graph | Node | Edge | Hyper | Mesh",
        methods="""graph neural networks
            | message passing neural networks with positional encodings
            | graph transformers | equivariant graph neural networks
            | graph contrastive learning""",
        tasks="""node classification | link prediction | molecular property prediction
            | traffic forecasting | recommendation on large graphs""",
        contexts="""Graph neural networks (GNNs) learn representations of nodes and graphs by
            passing messages along edges.
            | Message passing GNNs are widely used for molecules, social networks and
            knowledge graphs.
            | Graph transformers combine global attention with structural encodings of the
            input graph.""",
        gaps="""deep GNNs suffer from over-smoothing and over-squashing
            | the expressive power of message passing is bounded by the Weisfeiler-Leman test
            | GNNs degrade on heterophilous graphs where neighbors have different labels""",
        mechanisms="""{name} rewires the input graph to relieve bottlenecks before message
            passing.
            | {name} adds random-walk positional encodings and a sparse global attention
            layer to the GNN.
            | {name} learns separate aggregations for similar and dissimilar neighbors.
            | {name} samples subgraphs so that training scales to graphs with billions of
            edges.""",
        benchmarks="OGB | ZINC | the Long Range Graph Benchmark | Cora and PubMed | QM9",
    ),
    Theme(
        key="rag",
        categories="cs.CL cs.IR; cs.IR cs.CL cs.AI; cs.CL cs.AI; cs.IR",
        per_week=24,
        heads="Retro | Fetch | Cite | Ground | Search",
        methods="""retrieval-augmented generation | adaptive retrieval for RAG
            | graph-based retrieval-augmented generation | dense retrievers trained for RAG
            | citation-aware RAG pipelines""",
        tasks="""open-domain question answering | multi-hop question answering
            | enterprise search | fact-checking | long-document question answering""",
        contexts="""Retrieval-augmented generation (RAG) grounds the outputs of large
            language models in retrieved documents.
            | RAG systems reduce hallucination by conditioning generation on passages
            fetched from an external corpus.
            | Retrieval-augmented language models can answer questions about knowledge that
            changed after training.""",
        gaps="""retrieving for every query adds latency and can distract the model with
            irrelevant passages
            | standard RAG pipelines struggle with questions that need evidence from several
            documents
            | RAG outputs often cite passages that do not support the generated claims""",
        mechanisms="""{name} decides per query whether retrieval is needed and how many
            passages to read.
            | {name} builds a knowledge graph over the corpus and retrieves connected
            subgraphs for multi-hop questions.
            | {name} reranks retrieved passages by the generator's own uncertainty.
            | {name} checks each generated sentence against its cited passage and revises
            unsupported claims.""",
        benchmarks="Natural Questions | HotpotQA | MuSiQue | TriviaQA | BEIR | FRAMES",
    ),
    Theme(
        key="llm-efficiency",
        categories="cs.CL cs.LG; cs.CL cs.AI; cs.LG cs.CL; cs.LG cs.AR",
        per_week=38,
        heads="Quant | Sparse | Long | Tiny | Swift | Lean",
        methods="""post-training quantization of large language models
            | speculative decoding | low-rank adapters for parameter-efficient fine-tuning
            | mixture-of-experts language models | KV cache compression
            | direct preference optimization""",
        tasks="""efficient LLM inference | long-context language modeling
            | instruction following | multilingual language modeling | on-device deployment""",
        contexts="""Large language models (LLMs) have become the foundation of many natural
            language processing systems.
            | Serving large language models is expensive because inference is dominated by
            memory bandwidth.
            | Fine-tuning all parameters of a large language model is often impractical on
            limited hardware.""",
        gaps="""quantizing weights below four bits causes a sharp loss of accuracy
            | the key-value cache grows linearly with context length and limits batch size
            | alignment with human preferences can erode the model's factual knowledge""",
        mechanisms="""{name} keeps outlier channels in higher precision and quantizes the
            rest to 3 bits.
            | {name} drafts several tokens with a small model and verifies them in a single
            forward pass of the LLM.
            | {name} evicts key-value entries that receive little attention while keeping
            recent tokens.
            | {name} routes each token to two of sixty-four experts and balances their load
            without an auxiliary loss.""",
        benchmarks="""MMLU | LongBench | WikiText-2 | AlpacaEval 2 | RULER | MT-Bench""",
    ),
    Theme(
        key="nlp",
        categories="cs.CL; cs.CL cs.LG; cs.CL cs.SD eess.AS",
        per_week=22,
        heads="Lingo | Morph | Polyglot | Lex | Babel",
        methods="""multilingual sentence encoders
            | neural machine translation for low-resource languages
            | speech recognition models | text simplification models
            | hate speech classifiers""",
        tasks="""low-resource machine translation | cross-lingual transfer
            | named entity recognition | sentiment analysis
            | summarization of scientific articles""",
        contexts="""Most of the world's languages have little annotated data for training
            NLP systems.
            | Machine translation quality has improved rapidly, but its evaluation remains
            contested.
            | Named entity recognition is a core step in information extraction pipelines.""",
        gaps="""automatic metrics correlate poorly with human judgments for morphologically
            rich languages
            | models trained on news text transfer poorly to clinical and legal domains
            | annotation guidelines differ across datasets, which makes results hard to
            compare""",
        mechanisms="""{name} pretrains on parallel data mined from the web and filtered with a
            quality classifier.
            | {name} transfers supervision from a high-resource language through aligned
            word embeddings.
            | {name} adds a lexicon-constrained decoding step that respects domain
            terminology.""",
        benchmarks="FLORES-200 | WMT24 | CoNLL-2003 | XNLI | a SemEval shared task",
    ),
    Theme(
        key="vision",
        categories="cs.CV; cs.CV cs.LG; cs.CV eess.IV; cs.CV cs.RO",
        per_week=31,
        heads="Seg | Det | Depth | Pose | Track | Splat",
        methods="""open-vocabulary object detectors | monocular depth estimation networks
            | 3D Gaussian splatting | video object segmentation
            | multi-object tracking by detection""",
        tasks="""autonomous driving perception | scene reconstruction
            | human pose estimation | remote sensing imagery | medical image segmentation""",
        contexts="""Perception systems for autonomous driving must detect and track objects
            under changing weather and lighting.
            | 3D Gaussian splatting renders novel views of a scene in real time from a set
            of posed images.
            | Estimating depth from a single image is ill-posed, yet learned models do it
            surprisingly well.""",
        gaps="""detectors trained on a fixed label set cannot recognize new categories
            | reconstruction quality drops sharply with sparse input views
            | annotations for dense prediction are expensive to collect""",
        mechanisms="""{name} aligns region features with text embeddings so that new
            categories can be named at test time.
            | {name} regularizes the Gaussians with monocular depth priors to handle sparse
            views.
            | {name} propagates masks across frames with a memory of past object
            appearances.""",
        benchmarks="nuScenes | KITTI | COCO | ScanNet | DAVIS | LVIS",
    ),
    Theme(
        key="stat-ml",
        categories="stat.ML cs.LG; stat.ML stat.ME; stat.ML math.ST stat.TH; stat.ME stat.ML",
        per_week=20,
        heads="Bayes | Causal | Conform | Kernel | Prior",
        methods="""conformal prediction | variational inference
            | causal discovery from observational data | Gaussian process regression
            | double machine learning""",
        tasks="""uncertainty quantification | treatment effect estimation
            | prediction under distribution shift | high-dimensional regression
            | time series forecasting""",
        contexts="""Reliable uncertainty estimates are essential when predictions inform
            high-stakes decisions.
            | Estimating causal effects from observational data requires assumptions that
            cannot be tested from the data alone.
            | Bayesian inference offers principled uncertainty but is often computationally
            prohibitive.""",
        gaps="""coverage guarantees break down when the test distribution differs from
            training
            | existing estimators are biased when nuisance functions are learned flexibly
            | variational approximations underestimate posterior variance""",
        mechanisms="""{name} reweights calibration scores to restore coverage under covariate
            shift.
            | {name} combines cross-fitting with orthogonal scores to remove first-order bias.
            | We establish finite-sample guarantees for {name} under mild assumptions.""",
        benchmarks="""synthetic and semi-synthetic data | the IHDP benchmark
            | UCI regression datasets | the M4 competition data""",
    ),
    Theme(
        key="optimization",
        categories="math.OC cs.LG; math.OC; math.OC cs.SY eess.SY; math.OC stat.ML",
        per_week=15,
        heads="Prox | Grad | Mirror | Lion | Momentum",
        methods="""stochastic gradient methods | proximal algorithms | adaptive optimizers
            | zeroth-order optimization | distributionally robust optimization""",
        tasks="""nonconvex optimization | minimax problems | optimal control
            | large-scale convex programs | bilevel optimization""",
        contexts="""First-order methods are the tools of choice for large-scale optimization
            problems in machine learning.
            | Minimax problems arise in adversarial training, robust optimization and games.
            | Adaptive optimizers such as Adam dominate deep learning practice despite a
            patchy theory.""",
        gaps="""known convergence rates rely on smoothness assumptions that rarely hold
            | tuning step sizes by hand is costly and problem dependent
            | lower bounds leave a gap to the best known upper bounds""",
        mechanisms="""We show that {name} converges at the optimal rate for smooth nonconvex
            objectives.
            | {name} adapts its step size from local curvature estimates without line
            search.
            | {name} uses variance reduction to match the lower bound up to logarithmic
            factors.""",
        benchmarks="""logistic regression and neural network training | LIBSVM datasets
            | random quadratic programs""",
    ),
    Theme(
        key="bio",
        categories="q-bio.BM cs.LG; q-bio.QM cs.LG; q-bio.GN cs.LG; q-bio.BM",
        per_week=12,
        heads="Fold | Prot | Gene | Cell | Bind",
        methods="""protein language models | generative models for protein design
            | single-cell foundation models | structure-based drug design""",
        tasks="""protein structure prediction | binding affinity prediction
            | gene expression modeling | antibody design""",
        contexts="""Machine learning has transformed protein structure prediction and is now
            reshaping protein design.
            | Single-cell sequencing measures gene expression in millions of individual cells.
            | Predicting how strongly a small molecule binds a protein target is central to
            drug discovery.""",
        gaps="""models trained on natural sequences rarely explore novel folds
            | batch effects across experiments obscure biological signal
            | docking scores correlate weakly with measured affinities""",
        mechanisms="""{name} conditions sequence generation on a target backbone structure.
            | {name} pretrains on tens of millions of cells and corrects batch effects in its
            latent space.
            | {name} scores protein-ligand complexes with an SE(3)-equivariant network.""",
        benchmarks="CASP15 targets | PDBbind | ProteinGym | the CELLxGENE census",
    ),
    Theme(
        key="astro",
        categories="astro-ph.GA cs.LG; astro-ph.IM cs.LG; astro-ph.CO astro-ph.IM; astro-ph.EP",
        per_week=12,
        heads="Astro | Galaxy | Stellar | Cosmo | Transit",
        methods="""convolutional networks for galaxy morphology | simulation-based inference
            | anomaly detection in light curves
            | neural emulators of cosmological simulations""",
        tasks="""photometric redshift estimation | exoplanet transit detection
            | strong lens finding | cosmological parameter inference""",
        contexts="""Upcoming sky surveys will image billions of galaxies, far more than can
            be inspected by eye.
            | Space telescopes record light curves of hundreds of thousands of stars.
            | Cosmological inference increasingly relies on expensive numerical simulations.""",
        gaps="""labelled training sets cover only the brightest objects
            | instrumental systematics mimic astrophysical signals
            | each simulation takes thousands of CPU hours""",
        mechanisms="""{name} learns from simulated images and adapts to real observations
            with a domain-adversarial loss.
            | {name} estimates posteriors over cosmological parameters with normalizing
            flows.
            | {name} flags unusual light curves with a contrastively trained encoder.""",
        benchmarks="""Sloan Digital Sky Survey images | TESS light curves | simulated LSST
            data | Gaia DR3""",
    ),
    Theme(
        key="federated",
        categories="cs.LG cs.CR; cs.LG cs.DC; cs.CR cs.LG; cs.DC cs.LG",
        per_week=12,
        heads="Fed | Priv | Shield | Guard",
        methods="""federated learning with heterogeneous clients
            | differentially private training | defenses against model poisoning
            | machine unlearning""",
        tasks="""cross-device learning | privacy-preserving analytics
            | collaboration on healthcare data""",
        contexts="""Federated learning trains a shared model without moving data off the
            devices that hold it.
            | Differential privacy bounds what a trained model can reveal about any single
            training example.""",
        gaps="""client data are non-identically distributed, which slows convergence
            | a few malicious clients can poison the global model
            | privacy noise substantially reduces accuracy""",
        mechanisms="""{name} corrects client drift with control variates.
            | {name} aggregates client updates with a robust median that tolerates poisoned
            clients.
            | {name} allocates the privacy budget across training rounds adaptively.""",
        benchmarks="FEMNIST | CIFAR-10 with Dirichlet splits | Shakespeare | StackOverflow",
    ),
)


def generate(
    seed: int = SEED, *, end: date = END, weeks: int = WEEKS, scale: float = 1.0
) -> list[dict]:
    """Papers first published over `weeks` weeks ending on `end`, oldest first.

    `scale` multiplies every volume, spike included (benchmarks use it for bigger corpora).
    """
    rng = random.Random(seed)
    start = end - timedelta(days=7 * weeks - 1)
    drafts: list[tuple[datetime, Theme]] = []
    for week in range(weeks):
        days = [start + timedelta(days=7 * week + offset) for offset in range(7)]
        day_weights = [DAY_WEIGHTS[day.weekday()] for day in days]
        for theme in THEMES:
            count = _week_count(rng, theme, weeks - 1 - week, scale)
            for day in rng.choices(days, weights=day_weights, k=count):
                drafts.append((_moment(rng, day), theme))
    drafts.sort(key=lambda draft: draft[0])  # stable: ties keep generation order
    ids = _arxiv_ids(rng, [moment for moment, _ in drafts])
    return [
        _paper(rng, arxiv_id, moment, theme)
        for arxiv_id, (moment, theme) in zip(ids, drafts, strict=True)
    ]


def _week_count(rng: random.Random, theme: Theme, weeks_before_end: int, scale: float) -> int:
    if weeks_before_end < len(theme.weekly):
        return round(theme.weekly[-1 - weeks_before_end] * scale)
    return round(theme.per_week * scale * rng.uniform(0.85, 1.15))


def _moment(rng: random.Random, day: date) -> datetime:
    hour = rng.choices(range(24), weights=HOUR_WEIGHTS)[0]
    return datetime.combine(day, time(hour, rng.randrange(60)), tzinfo=UTC)


def _arxiv_ids(rng: random.Random, moments: Sequence[datetime]) -> list[str]:
    """New-style ids (YYMM.NNNNN) rising with submission time within each month.

    The corpus is a sample of arXiv, so serials leave gaps, kept small enough to stay within
    five digits however many papers a month has.
    """
    per_month = Counter((moment.year, moment.month) for moment in moments)
    serial: dict[tuple[int, int], int] = defaultdict(int)
    ids = []
    for moment in moments:
        month = (moment.year, moment.month)
        step = max(1, min(9, 90_000 // per_month[month]))
        serial[month] += rng.randint(1, step)
        ids.append(f"{moment.year % 100:02d}{moment.month:02d}.{serial[month]:05d}")
    return ids


def _paper(rng: random.Random, arxiv_id: str, moment: datetime, theme: Theme) -> dict:
    name = rng.choice(theme.pool("heads")) + rng.choice(NAME_TAILS)
    method, task = rng.choice(theme.pool("methods")), rng.choice(theme.pool("tasks"))
    return {
        "id": arxiv_id,
        "version": 2 if rng.random() < REVISED_SHARE else 1,
        "title": _title(rng, name, method, task),
        "abstract": _abstract(rng, theme, name, method, task),
        "authors": _authors(rng),
        "categories": rng.choice(theme.category_lists()).split(),
        "published": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "generated": True,
    }


def _title(rng: random.Random, name: str, method: str, task: str) -> str:
    template = rng.choice(TITLES)
    return template.format(name=name, Method=title_case(method), Task=title_case(task))


def _abstract(rng: random.Random, theme: Theme, name: str, method: str, task: str) -> str:
    first, second = rng.sample(theme.pool("benchmarks"), 2)
    context, gap = rng.choice(theme.pool("contexts")), rng.choice(theme.pool("gaps"))
    intro = rng.choice(INTROS).format(name=name, method=method, task=task)
    mechanism = rng.choice(theme.pool("mechanisms")).format(name=name)
    if rng.random() < OPEN_WITH_CONTRIBUTION:
        opening = [intro, mechanism, f"It is motivated by the observation that {gap}."]
    else:
        opening = [context, f"However, {gap}.", intro, mechanism]
    result = rng.choice(RESULTS).format(
        name=name, b1=first, b2=second, x=rng.randint(2, 18), k=rng.randint(2, 8)
    )
    return " ".join(sentence for sentence in [*opening, result, rng.choice(CLOSINGS)] if sentence)


def _authors(rng: random.Random) -> list[str]:
    count = rng.choices(range(1, len(AUTHOR_COUNT_WEIGHTS) + 1), AUTHOR_COUNT_WEIGHTS)[0]
    names: list[str] = []
    while len(names) < count:
        name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        if name not in names:
            names.append(name)
    return names


def title_case(phrase: str) -> str:
    """Capitalize each word but short function words; acronyms and hyphen parts kept."""
    words = phrase.split()
    return " ".join(
        word if index and word in SMALL_WORDS else "-".join(_cap(part) for part in word.split("-"))
        for index, word in enumerate(words)
    )


def _cap(part: str) -> str:
    return part[:1].upper() + part[1:]


def encode(papers: Sequence[dict]) -> bytes:
    """JSON Lines, one paper per line."""
    return "".join(json.dumps(paper, ensure_ascii=False) + "\n" for paper in papers).encode()


def write_corpus(papers: Sequence[dict], path: Path) -> bytes:
    """Write gzipped JSON Lines with a fixed header (mtime 0, no name); returns the bytes."""
    data = gzip.compress(encode(papers), compresslevel=9, mtime=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return data


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output .jsonl.gz file")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    papers = generate(args.seed)
    data = write_corpus(papers, args.out)
    categories = {category for paper in papers for category in paper["categories"]}
    print(
        f"wrote {len(papers):,} generated papers ({papers[0]['published'][:10]} to "
        f"{papers[-1]['published'][:10]}, {len(categories)} categories) to {args.out}: "
        f"{len(data) / 1e6:.2f} MB",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
