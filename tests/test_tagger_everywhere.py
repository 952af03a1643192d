"""The learned tier decides its topics on every paper of their field, not only where the rules
find one of their phrases: on independently drawn pools most missed papers had never become
candidates (SLAM and drone papers for Robotics, deception and refusal papers for AI Safety).

The catalog and the model are built here: robotics' only phrase is "robot", its model reads the
word "odometry"; the category gate keeps the topic to cs papers.
"""

from __future__ import annotations

import numpy as np

from digests.topics.catalog import Catalog, TopicDef
from digests.topics.tagger import Tagger
from digests.topics.topic_model import TopicCalibration, TopicModel

VOCABULARY = ["odometry", "robot"]
ODOMETRY = "Visual-inertial odometry for aerial vehicles in forests"


def tagger(everywhere: bool) -> Tagger:
    robotics = TopicDef("robotics", "Robotics", "Robots.", phrases=("robot",), categories=("cs",))
    vision = TopicDef("vision", "Vision", "Seeing.", phrases=("image",))
    catalog = Catalog([robotics, vision])
    calibration = TopicCalibration("robotics", robotics.rules_hash(), -4.0, (1.0, 0.0), 0.5, ())
    weights = np.zeros((len(VOCABULARY), 1), dtype=np.float32)
    weights[VOCABULARY.index("odometry"), 0] = 12.0
    weights[VOCABULARY.index("robot"), 0] = 12.0
    model = TopicModel(VOCABULARY, np.ones(len(VOCABULARY)), weights, [calibration])
    return Tagger(catalog, model=model, everywhere=everywhere)


def tags(tagger: Tagger, title: str, categories: list[str]) -> set[str]:
    return {tag.slug for tag in tagger.tag(title, "", categories)}


def test_a_paper_in_none_of_a_topics_phrases_is_still_decided_by_its_model() -> None:
    assert tags(tagger(everywhere=True), ODOMETRY, ["cs.RO"]) == {"robotics"}


def test_behind_the_rules_alone_the_same_paper_never_reached_the_model() -> None:
    assert tags(tagger(everywhere=False), ODOMETRY, ["cs.RO"]) == set()


def test_a_paper_the_model_turns_down_gets_nothing_though_it_is_scored() -> None:
    assert tags(tagger(everywhere=True), "Image statistics of forests", ["cs.CV"]) == {"vision"}


def test_the_category_gate_still_keeps_the_topic_out_of_other_fields() -> None:
    # Scored everywhere means every paper of the topic's field, not of every field.
    assert tags(tagger(everywhere=True), ODOMETRY, ["astro-ph.IM"]) == set()


def test_explain_shows_the_models_probability_for_a_paper_without_evidence() -> None:
    seen = tagger(everywhere=True).explain(ODOMETRY, "", ["cs.RO"], "robotics")
    assert seen.evidence == []
    assert seen.probability is not None and seen.probability > 0.9


def test_the_two_decisions_are_different_tagger_versions() -> None:
    # Stored tags of one are stale under the other, so a running bot re-tags its papers.
    assert tagger(everywhere=True).version != tagger(everywhere=False).version
