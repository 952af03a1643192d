"""/ask TOPIC: QUESTION — a topic's papers ranked by relevance through the full-text index, the
five best each with its best-matching sentence; clear words for every mistake."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session

from digests.ask.questions import AskError, best_sentence, question_words, split_ask
from digests.usecases.commands import Caller, CommandService
from tests.ask_papers import ANSWER_SENTENCE, ANSWER_TITLE, QUESTION, seed_ask_papers

NOW = datetime(2026, 9, 28, 12, 0, tzinfo=UTC)
CHAT = Caller(platform="telegram", chat_id="42", chat_kind="private")
OTHER_CHAT = Caller(platform="telegram", chat_id="43", chat_kind="private")


@pytest.fixture
def service(engine, catalog) -> CommandService:
    seed_ask_papers(engine, catalog, now=NOW, filler=6)
    ticks = itertools.count()
    return CommandService(
        lambda: Session(engine, expire_on_commit=False),
        catalog,
        clock=lambda: NOW + timedelta(seconds=next(ticks)),
        public_url="https://digests.example.org",
    )


def test_the_paper_that_answers_comes_first_quoting_its_matching_sentence(service):
    reply = service.handle(CHAT, "ask", f"RL for LLM Agents: {QUESTION}")
    assert reply.ok, reply.text
    lines = reply.text.splitlines()
    # The answer, the reward-shaping paper and six fillers speak of a reward; planning does not.
    assert lines[0] == f"RL for LLM Agents: 8 papers match “{QUESTION}”; the best 5:"
    assert lines[1].startswith(f"1. {ANSWER_TITLE} https://arxiv.org/abs/")
    assert lines[2] == f"   “{ANSWER_SENTENCE}”"
    assert sum(line[:1].isdigit() for line in lines) == 5
    assert lines[-1] == (
        "All results: https://digests.example.org/topics/rl-for-llm-agents?q="
        "which+papers+use+a+world+model+as+the+reward%3F"
    )


def test_a_topic_as_one_word_as_discord_sends_it_is_asked_alike(service):
    by_name = service.handle(CHAT, "ask", f"RL for LLM Agents: {QUESTION}").text
    by_slug = service.handle(OTHER_CHAT, "ask", f"rl-for-llm-agents {QUESTION}").text
    third = Caller(platform="discord", chat_id="44", chat_kind="group")
    typed = service.handle(third, "ask", f"RL_for_LLM_Agents {QUESTION}").text
    assert by_slug == by_name == typed
    fourth = Caller(platform="telegram", chat_id="45", chat_kind="private")
    assert service.handle(fourth, "ask", f"RL for LLM Agents {QUESTION}").text == by_name


def test_no_match_says_so(service):
    reply = service.handle(CHAT, "ask", "RL for LLM Agents: quantum chromodynamics lattice")
    assert reply.ok and reply.text == (
        "No paper of RL for LLM Agents matches “quantum chromodynamics lattice”. Try other words."
    )


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("RL for LLM Agents:", "Name a topic, a colon, then your question"),
        ("RL for LLM Agents", "Name a topic, a colon, then your question"),
        ("RL for LLM Agents: what is the and of it?", "no word to search for"),
        (": which use world models?", "Name a topic before the colon"),
        ("Quantum Basket Weaving: which use world models?", "I don't know the topic"),
    ],
)
def test_a_mistake_gets_a_clear_answer_and_costs_no_cooldown(service, typed, said):
    refused = service.handle(CHAT, "ask", typed)
    assert not refused.ok and said in refused.text and "/ask RL for LLM Agents:" in refused.text
    assert service.handle(CHAT, "ask", f"RL for LLM Agents: {QUESTION}").ok


def test_a_chat_asks_once_a_minute_other_chats_are_not_held_up(service):
    first = service.handle(CHAT, "ask", f"RL for LLM Agents: {QUESTION}")
    again = service.handle(CHAT, "ask", "RL for LLM Agents: reward shaping")
    elsewhere = service.handle(OTHER_CHAT, "ask", "RL for LLM Agents: reward shaping")
    assert first.ok and elsewhere.ok
    assert not again.ok and "/ask was used here" in again.text


def test_question_words_leave_out_common_words_and_keep_each_once():
    assert question_words("Which papers use a World-Model as the reward, the world?") == [
        "world",
        "model",
        "reward",
    ]


def test_the_best_sentence_has_the_most_question_words():
    abstract = "Agents act. The world model gives a reward. A reward is given, e.g. by a critic."
    assert best_sentence(abstract, ["world", "model", "reward"]) == (
        "The world model gives a reward."
    )


def test_a_colon_inside_the_question_stays_in_the_question():
    assert split_ask("RL for LLM Agents: why: reward?", bool) == (
        "RL for LLM Agents",
        "why: reward?",
    )
    with pytest.raises(AskError):
        split_ask("   ", bool)
