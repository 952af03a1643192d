"""A channel's 👍/👎 votes rank its digests: a model learnt from them, or none."""

from __future__ import annotations

from digests.feedback.ranking import ChannelFeedback, train
from tests.core.papers import paper

RL = {"agents": 1.0}
LIKED = [
    "reinforcement learning agents reward shaping for language models",
    "reinforcement learning agents with tool use and reward models",
    "reward models guide reinforcement learning agents in web tasks",
]
DISLIKED = [
    "protein structure prediction with diffusion over residues",
    "diffusion over protein residues for structure design",
    "protein structure design from residues with diffusion",
]


def voted(likes: list[str], dislikes: list[str]) -> list:
    papers = [(text, True) for text in likes] + [(text, False) for text in dislikes]
    return [
        (paper(f"2609.{n:05d}", RL, title=text), liked) for n, (text, liked) in enumerate(papers)
    ]


def test_without_both_likes_and_dislikes_nothing_is_learnt():
    assert train(voted(LIKED, [])) is None
    assert train(voted([], DISLIKED)) is None
    assert ChannelFeedback(votes=3).note == ""  # and the digest does not claim to be ranked


def test_a_new_paper_like_the_liked_ones_ranks_above_one_like_the_disliked_ones():
    model = train(voted(LIKED, DISLIKED))
    assert model is not None
    like = paper("2609.10001", RL, title="reward models for reinforcement learning agents")
    unlike = paper("2609.10002", RL, title="diffusion for protein structure residues")
    assert model.score(like) > 0 > model.score(unlike)
    assert ChannelFeedback(model=model, votes=6).note == "Ranked by this channel's 6 votes"
