from datetime import date, timedelta

import pytest

from digests.messages.digest import (
    TopicRef,
    authors_line,
    compose_digest,
    gist,
)
from digests.signals.momentum import compute_momentum
from tests.papers import digest_paper

AS_OF = date(2026, 9, 27)
PERIOD_START = AS_OF - timedelta(days=6)
RL = TopicRef("agentic-rl", "Agentic RL")
REASONING = TopicRef("reasoning", "LLM Reasoning")
EVALS = TopicRef("evals", "Evaluation")


def momenta(*topics: TopicRef):
    return {t.slug: compute_momentum(t.name, {AS_OF: 1}, {AS_OF: 10}, AS_OF) for t in topics}


def digest(followed, papers, cap: int = 5):
    return compose_digest(followed, papers, momenta(*followed), PERIOD_START, AS_OF, cap)


def ids(section) -> list[str]:
    return [entry.paper.arxiv_id for entry in section.entries]


def test_paper_in_several_followed_topics_appears_once_under_its_strongest():
    p = digest_paper(1, scores={"agentic-rl": 0.6, "reasoning": 0.9})
    d = digest([RL, REASONING, EVALS], [p])
    rl, reasoning, evals = d.sections
    assert ids(rl) == [] and ids(evals) == []
    assert ids(reasoning) == ["2609.00001"]
    assert reasoning.entries[0].also_in == ("Agentic RL",)
    assert d.paper_count == 1


def test_equal_scores_go_to_the_topic_followed_first():
    p = digest_paper(1, scores={"agentic-rl": 0.7, "reasoning": 0.7})
    first = digest([REASONING, RL], [p])
    assert ids(first.sections[0]) == ["2609.00001"]
    assert first.sections[0].entries[0].also_in == ("Agentic RL",)
    assert ids(digest([RL, REASONING], [p]).sections[0]) == ["2609.00001"]


def test_unfollowed_topics_neither_claim_nor_list_a_paper():
    papers = [
        digest_paper(1, scores={"agentic-rl": 0.5, "robotics": 0.99}),
        digest_paper(2, scores={"robotics": 0.9}),
    ]
    d = digest([RL], papers)
    assert ids(d.sections[0]) == ["2609.00001"]
    assert d.sections[0].entries[0].also_in == ()
    assert d.paper_count == 1


def test_papers_rank_by_score_then_newer_then_id():
    papers = [
        digest_paper(4, scores={"agentic-rl": 0.5}, published=AS_OF - timedelta(days=3)),
        digest_paper(3, scores={"agentic-rl": 0.5}, published=AS_OF - timedelta(days=1)),
        digest_paper(2, scores={"agentic-rl": 0.9}, published=AS_OF - timedelta(days=6)),
        digest_paper(9, scores={"agentic-rl": 0.5}, published=AS_OF - timedelta(days=3)),
    ]
    assert ids(digest([RL], papers).sections[0]) == [
        "2609.00002",
        "2609.00003",
        "2609.00004",
        "2609.00009",
    ]


def test_cap_shows_the_best_and_counts_the_rest():
    papers = [digest_paper(i, scores={"agentic-rl": i / 10}) for i in range(1, 8)]
    d = digest([RL], papers, cap=5)
    section = d.sections[0]
    assert ids(section) == ["2609.00007", "2609.00006", "2609.00005", "2609.00004", "2609.00003"]
    assert section.more == 2
    assert d.paper_count == 7


def test_followed_topic_without_new_papers_keeps_its_section():
    d = digest([RL, EVALS], [digest_paper(1, scores={"agentic-rl": 0.5})])
    assert [s.topic for s in d.sections] == [RL, EVALS]
    assert d.sections[1].entries == () and d.sections[1].more == 0
    assert d.sections[1].momentum.topic == "Evaluation"
    assert not d.is_empty


def test_digest_without_papers_is_empty_but_lists_every_topic():
    d = digest([RL, EVALS], [])
    assert d.is_empty and d.paper_count == 0
    assert len(d.sections) == 2


def test_section_sparkline_follows_the_weekly_counts():
    m = compute_momentum("Agentic RL", {AS_OF: 4, AS_OF - timedelta(days=7): 2}, {}, AS_OF)
    d = compose_digest([RL], [], {RL.slug: m}, PERIOD_START, AS_OF)
    assert d.sections[0].sparkline.endswith("▅█")
    assert len(d.sections[0].sparkline) == 12


def test_the_same_paper_sent_twice_is_merged():
    papers = [
        digest_paper(1, scores={"agentic-rl": 0.4}),
        digest_paper(1, scores={"reasoning": 0.8}),
    ]
    d = digest([RL, REASONING], papers)
    assert d.paper_count == 1
    assert ids(d.sections[1]) == ["2609.00001"]
    assert d.sections[1].entries[0].also_in == ("Agentic RL",)


def test_missing_momentum_is_an_error_not_a_silent_zero():
    with pytest.raises(ValueError, match="evals"):
        compose_digest([RL, EVALS], [], momenta(RL), PERIOD_START, AS_OF)


def test_entry_carries_authors_line_and_gist():
    p = digest_paper(
        1,
        scores={"agentic-rl": 0.5},
        authors=("Ada One", "Bo Two", "Cy Three", "Di Four"),
        abstract="We train agents with self-play on tool use and report large gains. More text.",
    )
    entry = digest([RL], [p]).sections[0].entries[0]
    assert entry.authors_line == "Ada One, Bo Two, Cy Three et al."
    assert entry.gist == "We train agents with self-play on tool use and report large gains."


@pytest.mark.parametrize(
    ("authors", "expected"),
    [
        (("A", "B", "C", "D"), "A, B, C et al."),
        (("A", "B", "C"), "A, B, C"),
        (("Ada  Lovelace ",), "Ada Lovelace"),
        ((), ""),
    ],
)
def test_authors_line(authors, expected):
    assert authors_line(authors) == expected


def test_authors_line_respects_shown():
    assert authors_line(["A", "B", "C"], shown=1) == "A et al."


def test_gist_is_the_first_sentence():
    abstract = (
        "Large language models can act as agents when trained with reinforcement learning. "
        "We show this on twelve benchmarks."
    )
    assert gist(abstract) == (
        "Large language models can act as agents when trained with reinforcement learning."
    )


def test_gist_does_not_stop_at_abbreviations():
    abstract = (
        "Agents that call external tools are studied in a growing body of work by Smith et al. "
        "We extend it to search, e.g. Web queries. A third sentence."
    )
    assert gist(abstract) == (
        "Agents that call external tools are studied in a growing body of work by Smith et al. "
        "We extend it to search, e.g. Web queries."
    )


def test_gist_cuts_a_long_sentence_at_a_word_boundary():
    words = [f"word{i}" for i in range(100)]
    result = gist(" ".join(words) + ".")
    assert len(result) <= 200
    assert result.endswith("…")
    assert result[:-1].split()[-1] in words  # no half word before the ellipsis


def test_gist_collapses_whitespace_and_keeps_latex():
    abstract = "We bound the error by\n  $O(\\sqrt{n})$ and\tshow $\\pi$-stability in the limit."
    assert gist(abstract) == (
        "We bound the error by $O(\\sqrt{n})$ and show $\\pi$-stability in the limit."
    )


def test_gist_reads_past_a_very_short_first_sentence():
    assert gist("Short. We propose a verifier-guided search.") == (
        "Short. We propose a verifier-guided search."
    )
