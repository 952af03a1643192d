"""Gates of the learned tier: a narrow topic needs its broader modelled topics, and a broader
topic that another tag rolls up into counts as there.

The catalog and the model are built here, so each probability is set by hand: agent-rl (0.8,
threshold 0.5) is gated on agents at 0.5; agent-training (no gate) is tagged when the paper
says "trained"; agents' own model gives it `agents_probability`.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from digests.topics.catalog import Catalog, TopicDef
from digests.topics.tagger import Tagger
from digests.topics.topic_model import TopicCalibration, TopicModel

VOCABULARY = ["agent", "trained"]


def logit(probability: float) -> float:
    return math.log(probability / (1 - probability))


def tagger(agents_probability: float) -> Tagger:
    agents = TopicDef("agents", "Agents", "Agents.", phrases=("agent",))
    training = TopicDef("agent-training", "Agent Training", "T.", ("agents",), phrases=("agent",))
    rl = TopicDef("agent-rl", "Agent RL", "RL.", ("agents",), phrases=("agent",))
    catalog = Catalog([agents, training, rl])

    def calibration(topic: TopicDef, bias: float, gates=()) -> TopicCalibration:
        return TopicCalibration(topic.slug, topic.rules_hash(), bias, (1.0, 0.0), 0.5, gates)

    topics = [
        calibration(agents, logit(agents_probability)),
        calibration(training, -3.0),  # "trained" adds 10 / sqrt(2): 0.98
        calibration(rl, logit(0.8), (("agents", 0.5),)),
    ]
    weights = np.zeros((len(VOCABULARY), len(topics)), dtype=np.float32)
    weights[VOCABULARY.index("trained"), 1] = 10.0
    model = TopicModel(VOCABULARY, np.ones(len(VOCABULARY)), weights, topics)
    return Tagger(catalog, model=model)


def tags(tagger: Tagger, title: str) -> set[str]:
    return {tag.slug for tag in tagger.tag(title, "", ["cs.AI"])}


def test_a_gate_holds_a_narrow_topic_when_the_broader_model_says_too_little() -> None:
    assert tags(tagger(0.3), "An agent") == set()


def test_a_broader_topic_another_tag_rolls_up_into_opens_the_gate() -> None:
    # agent-training is tagged and rolls up into agents, so agents is tagged: agent-rl's gate
    # on agents reads that, not agents' own 0.3 alone.
    assert tags(tagger(0.3), "An agent trained") == {"agents", "agent-training", "agent-rl"}


@pytest.mark.parametrize("agents_probability", [0.1, 0.19])
def test_a_broader_model_below_the_rollup_floor_still_holds_the_gate(agents_probability) -> None:
    # Under 0.2 the roll-up itself stops: agents is not tagged, so agent-rl stays out.
    assert tags(tagger(agents_probability), "An agent trained") == {"agent-training"}
