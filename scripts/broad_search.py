"""The broad searches behind the independent pools (`scripts/independent_pool.py`).

One search per learned topic, written from its guide in `tests/data/gold/guides.md` as a
reader looking for the topic's papers would write it: the ordinary words of the field (its
methods, objects, benchmarks and the neighbouring words a paper on it can hardly avoid) and
the arXiv categories a reader would browse. None of it is taken from the catalog's phrases, so
a paper the tagger's rules never propose can still be found here. The searches are wide on
purpose: most of what they find is not about the topic, and only a sample of it is judged.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

_RL = (
    r"reinforcement|\brl\w*\b|reward|\bgrpo\b|\bppo\b|\bdpo\b|policy|bandit|markov decision"
    r"|\bmdps?\b|q-learning|actor-critic|rollout|trial and error|exploration"
)
_LM = (
    r"\bllms?\b|language model|\blms?\b|\bslms?\b|\blrms?\b|reasoning model|\bgpt|chatgpt"
    r"|llama|qwen|mistral|gemini|claude|deepseek|\bvlms?\b|mllm|foundation model|chatbot"
)
_AGENT = r"agent|multi-turn|multi-step|interactive|environment|tool|web|\bgui\b|trajector"


@dataclass(frozen=True)
class BroadSearch:
    words: str  # a regular expression over the lower-cased title and abstract
    categories: tuple[str, ...] = ()  # a paper listed in one of them is found too
    all_of: tuple[str, ...] = ()  # further expressions that must all match as well

    def finds(self, text: str, categories: Sequence[str]) -> bool:
        if any(c in self.categories for c in categories):
            return True
        return bool(_compiled(self.words).search(text)) and all(
            _compiled(extra).search(text) for extra in self.all_of
        )


def core_finds(slug: str, text: str) -> bool:
    """Whether the topic's core words (CORE: the few a reader would search first) are in
    `text`; the pool samples these papers more densely than the rest of the broad search."""
    return slug in CORE and bool(_compiled(CORE[slug]).search(text))


@functools.cache
def _compiled(expression: str) -> re.Pattern[str]:
    return re.compile(expression)


BROAD: dict[str, BroadSearch] = {
    # Agents and reinforcement learning
    "reinforcement-learning": BroadSearch(_RL + r"|imitation|offline rl|inverse rl|regret"),
    "rl-for-language-models": BroadSearch(_RL + r"|verifiable|preference", all_of=(_LM,)),
    "rl-for-language-model-reasoning": BroadSearch(
        _RL + r"|verifiable",
        all_of=(
            r"reason|math|chain[- ]of[- ]thought|\bcot\b|think|logic"
            r"|puzzle|problem[- ]solving|code|science",
        ),
    ),
    "rl-for-llm-agents": BroadSearch(_RL, all_of=(_AGENT,)),
    "agentic-rl": BroadSearch(_RL, all_of=(r"agent|multi-turn|tool|interactive",)),
    "rl-for-tool-use": BroadSearch(
        _RL,
        all_of=(
            r"tool|function[- ]call|search|\bapis?\b|interpreter|retriev|calculator"
            r"|code execution|sandbox",
        ),
    ),
    "group-relative-policy-optimization": BroadSearch(
        r"grpo|group[- ]relative|group[- ]based|\bdapo\b|\bgspo\b|rlvr|verifiable reward"
        r"|policy optimi[sz]ation|advantage|r1-style|r1-zero|\bgrpo"
    ),
    "credit-assignment-in-rl": BroadSearch(
        r"credit|process reward|\bprms?\b|(step|turn|token|segment)[- ]level|advantage"
        r"|dense reward|sparse reward|intermediate reward|reward shaping|hindsight"
        r"|return decomposition|delayed reward|long[- ]horizon"
    ),
    "llm-agents": BroadSearch(
        r"agent|autonomous|tool[- ]use|tool[- ]calling|function[- ]call|planning|workflow"
        r"|assistant|multi-step|act in|acting|environment"
    ),
    "llm-agent-memory": BroadSearch(
        r"memor|remember|recall|long[- ]term|experience|lifelong|sessions?|forget|persist",
        all_of=(r"agent|assistant|dialog|conversation|llm|language model",),
    ),
    "deep-research-agents": BroadSearch(
        r"deep research|research agent|search agent|deep search|web search|browsing|browse"
        r"|browsecomp|report|literature|information[- ]seeking|multi-hop|open[- ]ended"
        r" research|investigat|scientific discovery|search engine"
    ),
    "computer-use-agents": BroadSearch(
        r"\bgui\b|graphical|computer[- ]use|web ?(agent|navigation|page|site|task)|browser"
        r"|mobile|android|smartphone|\bapps?\b|desktop|operating system|\bos\b|terminal"
        r"|screen|\bui\b|user interface|click|webarena|osworld|windows"
    ),
    # Language models
    "language-modeling": BroadSearch(
        _LM + r"|tokeni[sz]|perplexity|next[- ]token|pre-?train|transformer|text generation",
        categories=("cs.CL",),
    ),
    "large-language-models": BroadSearch(_LM, categories=("cs.CL",)),
    "llm-reasoning": BroadSearch(
        r"reason|chain[- ]of[- ]thought|\bcot\b|math|logic|think|test[- ]time|inference[- ]time"
        r" scal|problem[- ]solving|deduct|planning|puzzle|\bo1\b|\br1\b"
    ),
    "llm-training": BroadSearch(
        r"pre-?train|training data|scaling law|post-?train|fine-?tun|data mixture|curriculum"
        r"|data selection|synthetic data|training recipe|tokeni[sz]|distill|optimi[sz]er"
        r"|learning rate|warm-?up|checkpoint|corpus|instruction data"
    ),
    "llm-post-training": BroadSearch(
        r"post-?train|instruction[- ]tun|\bsft\b|supervised fine|rlhf|\bdpo\b|preference"
        r"|fine-?tun|grpo|alignment|rlvr|reward model|reinforcement|distill"
    ),
    "llm-fine-tuning": BroadSearch(
        r"fine-?tun|finetun|\blora\b|\bpeft\b|adapter|instruction[- ]tun|parameter[- ]efficient"
        r"|\bsft\b|supervised training|domain adaptation|continued training"
    ),
    "benchmarks-and-evaluation": BroadSearch(
        r"benchmark|evaluat|dataset|leaderboard|metric|assess|test suite|corpus|annotat"
    ),
    # Vision and generation
    "computer-vision": BroadSearch(
        r"image|video|visual|vision|pixel|camera|\b3d\b|point cloud|scene|depth|segment"
        r"|detect|photo|render|gaussian splatting|nerf|optical|remote sensing|satellite",
        categories=("cs.CV", "eess.IV", "cs.GR"),
    ),
    "image-segmentation": BroadSearch(
        r"segment|\bmasks?\b|matting|panoptic|semantic label|\bsam\b|pixel[- ]level|parsing"
        r"|delineat|contour|boundar"
    ),
    "object-detection": BroadSearch(
        r"detect|bounding box|locali[sz]|yolo|detr|tracking|grounding|proposal|anchor"
        r"|recogni[sz]e objects|counting"
    ),
    "medical-image-analysis": BroadSearch(
        r"medical|clinical|patholog|radiolog|\bmri\b|\bct\b|x-ray|ultrasound|lesion|tumou?r"
        r"|retina|endoscop|dermat|histolog|cancer|surgical|surgery|brain|cardiac|chest"
        r"|patient|diagnos|biomedical|mammogra|organ",
        all_of=(r"image|imaging|scan|slide|visual|segment|detect|video|vision",),
    ),
    "vision-language-models": BroadSearch(
        r"vision[- ]language|\bvlms?\b|multimodal|multi-modal|mllm|lvlm|caption|\bvqa\b"
        r"|visual question|\bclip\b|image-text|text-image|visual instruction|video-language"
        r"|video llm|grounding|visual reasoning|gpt-4o|qwen-?vl|llava"
    ),
    "generative-models": BroadSearch(
        r"generat|diffusion|\bgans?\b|\bvae\b|flow matching|synthes|text-to-image"
        r"|text-to-video|editing|inpaint|autoregressive|denois|sampling|novel view"
    ),
    # Retrieval, question answering and code
    "information-retrieval": BroadSearch(
        r"retriev|search|rank|recommend|dense passage|embedding|quer(y|ies)|\bindex|bm25"
        r"|relevance|reranker|document|passage",
        categories=("cs.IR",),
    ),
    "retrieval-augmented-generation": BroadSearch(
        r"retriev|\brag\b|rag\b|knowledge base|external knowledge|grounded generation"
        r"|search[- ]augmented|graphrag|knowledge[- ]intensive|evidence|documents?|corpus"
        r"|knowledge graph"
    ),
    "question-answering": BroadSearch(
        r"question|answer|\bqa\b|\bvqa\b|reading comprehension|faq|quiz|exam|trivia|query"
    ),
    "hallucination": BroadSearch(
        r"hallucinat|factual|faithful|fact-?check|confabulat|grounded|misinformation|truthful"
        r"|uncertainty|calibrat|fabricat|citation|attribution|verif|reliab"
    ),
    "code-generation": BroadSearch(
        r"\bcode|program|software|repositor|coding|swe-bench|\bsql\b|text-to-sql|compiler"
        r"|\bbugs?\b|verilog|python|debug|unit test|developer|kernel"
    ),
    # Multi-agent systems, tools and memory
    "multi-agent-systems": BroadSearch(
        r"multi-?agent|multiple agents|agents|swarm|\bmarl\b|cooperat|team|game[- ]theor"
        r"|negotiat|coalition|decentrali[sz]ed|consensus|collective",
        categories=("cs.MA",),
    ),
    "multi-agent-llm-systems": BroadSearch(
        r"multi-?agent|multiple agents|agents|debate|role-?play|society|collaborat|crew"
        r"|orchestrat",
        all_of=(_LM + r"|agentic",),
        categories=("cs.MA",),
    ),
    "multi-agent-collaboration": BroadSearch(
        r"collaborat|cooperat|coordinat|teamwork|debate|multi-?agent|consensus|communicat"
        r"|division of labou?r|role",
        all_of=(r"agent",),
    ),
    "tool-using-agents": BroadSearch(
        r"\btools?\b|tool[- ]|function[- ]call|\bapis?\b|plugin|interpreter|\bmcp\b"
        r"|model context protocol|calculator|search engine|external"
    ),
    "llm-agent-training": BroadSearch(
        r"train|fine-?tun|reinforcement|\brl\b|trajector|self-improv|learn from|distill"
        r"|imitation|\bsft\b|curriculum|self-evolv|synthetic data",
        all_of=(r"agent",),
    ),
    "persistent-memory-for-language-models": BroadSearch(
        r"memor|long[- ]term|remember|personali[sz]|user profile|sessions?|lifelong|persist"
        r"|knowledge update|forget",
        all_of=(_LM + r"|assistant|agent|dialog|conversation",),
    ),
    "memory-augmented-neural-networks": BroadSearch(
        r"memor|external store|key-value|\bkv\b|long context|long-context|recurrent"
        r"|state[- ]space|cache|retrieval-augmented|episodic|working memory|neural turing"
    ),
    # Policies, rewards and training signals
    "policy-optimization": BroadSearch(
        r"policy|\bppo\b|grpo|trpo|actor-critic|advantage|policy gradient|reinforce\b"
        r"|on-policy|off-policy|trust region|clip|optimi[sz]ation objective"
    ),
    "reward-modeling": BroadSearch(
        r"reward|preference model|verifier|judge|rlhf|bradley-terry|\bprms?\b|\borms?\b"
        r"|critic|feedback|scor(e|ing) model|rubric"
    ),
    "preference-optimization": BroadSearch(
        r"preference|\bdpo\b|rlhf|\bkto\b|simpo|orpo|pairwise|alignment|human feedback"
        r"|chosen and rejected|bradley-terry|direct optimi"
    ),
    "supervised-fine-tuning": BroadSearch(
        r"\bsft\b|supervised fine|instruction[- ]tun|fine-?tun|distill|demonstration"
        r"|imitation|instruction data|cold[- ]start|rejection sampling"
    ),
    "knowledge-distillation": BroadSearch(
        r"distil|teacher|student|compress|logit|soft label|transfer knowledge|mimic"
    ),
    # Evaluation, safety and understanding
    "llm-evaluation": BroadSearch(
        r"benchmark|evaluat|judge|leaderboard|contamination|assess|measur|audit|probe|test",
        all_of=(_LM + r"|agent",),
    ),
    "ai-safety": BroadSearch(
        r"safe|harm|jailbreak|attack|red[- ]team|guardrail|refus|toxic|misuse|decept"
        r"|scheming|misalign|unlearn|risk|adversarial|backdoor|poison|privacy|govern"
        r"|collusion|sabotage|oversight|dangerous|bioweapon|cyber|secur|trust|malicious"
        r"|manipulat|sandbag|loss of control|prompt injection|moderation"
    ),
    "ai-alignment": BroadSearch(
        r"align|rlhf|preference|human values|\bvalues?\b|constitution|oversight|reward hack"
        r"|sycophan|misalign|human feedback|helpful|harmless|honest|decept|scheming"
        r"|specification gaming|steer|refus|moral|ethic|norm"
    ),
    "interpretability": BroadSearch(
        r"interpret|explain|explanation|explainab|\bxai\b|mechanistic|circuit|sparse"
        r" autoencoder|\bsaes?\b|prob(e|ing)|attribution|saliency|attention (map|analys|head)"
        r"|concept|representation|steering|neuron|logit lens|transparen|feature"
    ),
    # Efficiency, continual, graph and speech learning
    "model-efficiency": BroadSearch(
        r"efficien|quanti[sz]|prun|sparsi|compress|distill|kv[- ]cache|speculative|latency"
        r"|throughput|inference cost|memory footprint|accelerat|faster|lightweight|edge"
        r"|flops|token (reduction|pruning|merging)|serving|low-rank|low-bit|budget"
    ),
    "mixture-of-experts": BroadSearch(
        r"expert|\bmoe\b|routing|router|gating|sparse(ly)? activat|conditional computation"
    ),
    "continual-learning": BroadSearch(
        r"continual|lifelong|incremental|forgetting|catastrophic|stream|online learning"
        r"|rehearsal|replay|plasticity|non-stationary|new tasks|sequential tasks"
    ),
    "graph-learning": BroadSearch(
        r"graph|\bgnns?\b|node|link prediction|knowledge graph|molecul|relational|network"
        r" embedding|topolog|hypergraph"
    ),
    "graph-neural-networks": BroadSearch(
        r"graph neural|\bgnns?\b|\bgcns?\b|\bgat\b|message[- ]passing|graph transformer"
        r"|graph convolution|equivariant|node|graph"
    ),
    "speech-recognition": BroadSearch(
        r"speech|\basr\b|audio|spoken|voice|transcri|whisper|acoustic|phonem|word error"
        r"|\bwer\b|keyword spotting|speaker|utterance",
        categories=("eess.AS", "cs.SD"),
    ),
    # Robots, driving and diffusion
    "robotics": BroadSearch(
        r"robot|manipulat|locomot|humanoid|grasp|drone|\buavs?\b|aerial vehicle|quadruped"
        r"|quadrotor|navigation|\bslam\b|odometr|locali[sz]ation|\bvlas?\b|embodied"
        r"|autonomous vehicle|driving|motion planning|legged|dexter|teleop|place recognition"
        r"|calibration|lidar|actuat|gripper|end-effector|exoskeleton|prosthe|surgical",
        categories=("cs.RO",),
    ),
    "robot-learning": BroadSearch(
        r"robot|imitation|demonstration|sim-to-real|sim2real|visuomotor|\bvlas?\b|embodied"
        r"|manipulat|locomot|grasp|humanoid|dexter|policy",
        categories=("cs.RO",),
    ),
    "autonomous-driving": BroadSearch(
        r"driv(ing|er)|autonomous vehicle|self-driving|traffic|\bbev\b|bird'?s[- ]eye"
        r"|lidar|nuscenes|carla|trajectory prediction|motion forecast|pedestrian|vehicle"
        r"|waymo|occupancy|\bcar\b|cars\b|road|lane"
    ),
    "diffusion-models": BroadSearch(
        r"diffusion|denois|score-based|score matching|flow matching|\bddpm|\bddim|rectified"
        r" flow|consistency model|text-to-image|text-to-video|stable diffusion|\bdit\b"
        r"|noise|generative prior|image generation|video generation|sampler"
    ),
}


# The words a reader would search first, much narrower than the broad search: papers found by
# them are sampled more densely, as more of them are about the topic.
CORE: dict[str, str] = {
    "reinforcement-learning": r"reinforcement learning|\brl\b|policy gradient|q-learning|bandit",
    "rl-for-language-models": r"reinforcement learning|\brl\b|rlhf|rlvr|\bgrpo\b|\bppo\b",
    "rl-for-language-model-reasoning": r"rlvr|verifiable reward|reinforcement learning|\bgrpo\b",
    "rl-for-llm-agents": r"agentic rl|multi-turn rl|agentic reinforcement|reinforcement learning"
    r" for (llm |language )?agents|\brl\b.{0,60}agent|agent.{0,60}\brl\b",
    "agentic-rl": r"agentic rl|agentic reinforcement|multi-turn rl|\brl\b.{0,60}agent",
    "rl-for-tool-use": r"tool[- ]integrated|search-r1|tool.{0,60}(\brl\b|reinforcement)"
    r"|(\brl\b|reinforcement).{0,60}tool",
    "group-relative-policy-optimization": r"grpo|group[- ]relative|\bdapo\b|\bgspo\b",
    "credit-assignment-in-rl": r"credit assignment|process reward|turn-level|step-level reward",
    "llm-agents": r"\bllm agents?|language agents?|agentic|ai agents?|autonomous agents?",
    "llm-agent-memory": r"agent memory|memory (module|bank|system|mechanism)|long-term memory",
    "deep-research-agents": r"deep research|research agent|search agent|deep search|browsecomp",
    "computer-use-agents": r"\bgui\b|computer[- ]use|web agent|mobile agent|os agent|browser",
    "language-modeling": r"language model|\bllms?\b",
    "large-language-models": r"large language model|\bllms?\b",
    "llm-reasoning": r"reasoning|chain[- ]of[- ]thought",
    "llm-training": r"pre-?training|scaling law|training data|data mixture|post-?training",
    "llm-post-training": r"post-?training|rlhf|instruction tuning|\bsft\b|\bdpo\b|rlvr",
    "llm-fine-tuning": r"fine-?tuning|\blora\b|\bpeft\b|parameter[- ]efficient",
    "benchmarks-and-evaluation": r"benchmark|evaluation (suite|framework|protocol)",
    "computer-vision": r"image|video|visual|3d|point cloud",
    "image-segmentation": r"segmentation|\bsam\b|matting",
    "object-detection": r"object detection|detector|bounding box|yolo|detr|tracking",
    "medical-image-analysis": r"medical imag|\bmri\b|\bct\b|x-ray|patholog|radiolog|lesion",
    "vision-language-models": r"vision[- ]language|\bvlms?\b|\bmllms?\b|multimodal large",
    "generative-models": r"generative|diffusion|\bgans?\b|text-to-image|image generation",
    "information-retrieval": r"retrieval|retriever|reranking|search engine|recommend",
    "retrieval-augmented-generation": r"retrieval[- ]augmented|\brag\b|graphrag|retriev",
    "question-answering": r"question answering|\bqa\b|\bvqa\b|answer questions",
    "hallucination": r"hallucinat|factuality|faithfulness|fact-check",
    "code-generation": r"code generation|\bcoding|software engineering|program synthesis"
    r"|swe-bench|text-to-sql|\bcode llm",
    "multi-agent-systems": r"multi-?agent",
    "multi-agent-llm-systems": r"multi-?agent",
    "multi-agent-collaboration": r"multi-?agent|collaborat|debate",
    "tool-using-agents": r"tool use|tool[- ]using|tool calling|tool-augmented|function calling"
    r"|\bmcp\b",
    "llm-agent-training": r"agent.{0,40}(train|fine-tun|reinforcement|\brl\b)"
    r"|(train|fine-tun|reinforcement|\brl\b).{0,40}agent",
    "persistent-memory-for-language-models": r"long-term memory|memory (module|bank|system)"
    r"|personali[sz]",
    "memory-augmented-neural-networks": r"memory[- ]augmented|external memory|memory module"
    r"|memory bank|long-term memory",
    "policy-optimization": r"policy optimi[sz]ation|\bppo\b|\bgrpo\b|policy gradient",
    "reward-modeling": r"reward model|process reward|\bprms?\b|verifier|reward hacking",
    "preference-optimization": r"preference optimi[sz]ation|\bdpo\b|preference (learning|data)",
    "supervised-fine-tuning": r"supervised fine-?tuning|\bsft\b|instruction tuning",
    "knowledge-distillation": r"distillation|distill|teacher|student",
    "llm-evaluation": r"benchmark|llm-as-a-judge|evaluat",
    "ai-safety": r"safety|jailbreak|red[- ]team|guardrail|harmful|refusal|unlearning|decepti"
    r"|misalign|scheming|prompt injection|misuse",
    "ai-alignment": r"alignment|aligned|rlhf|misalign|reward hacking|sycophan|human values",
    "interpretability": r"interpretab|explainab|mechanistic|sparse autoencoder|probing"
    r"|saliency|attribution|circuit",
    "model-efficiency": r"quanti[sz]|pruning|kv[- ]cache|speculative decoding|compression"
    r"|efficient inference|token (pruning|reduction|merging)|low-bit|sparsity",
    "mixture-of-experts": r"mixture[- ]of[- ]experts|\bmoe\b|experts",
    "continual-learning": r"continual|lifelong|incremental learning|catastrophic forgetting",
    "graph-learning": r"graph neural|\bgnns?\b|graph learning|knowledge graph|link prediction"
    r"|node classification|graph representation",
    "graph-neural-networks": r"graph neural|\bgnns?\b|message[- ]passing|graph convolution"
    r"|graph transformer",
    "speech-recognition": r"speech recognition|\basr\b|speech|spoken|whisper",
    "robotics": r"robot|manipulation|locomotion|humanoid|\bslam\b|drone|\buavs?\b|\bvlas?\b",
    "robot-learning": r"robot|visuomotor|\bvlas?\b|sim-to-real|imitation learning",
    "autonomous-driving": r"autonomous driving|self-driving|autonomous vehicle|driving|\bbev\b",
    "diffusion-models": r"diffusion|flow matching|score-based|denoising",
}
