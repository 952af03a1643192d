"""/ask's optional written answer: from an OpenAI-compatible endpoint (a fake on 127.0.0.1),
grounded only in the five papers found, each sentence citing them; without the settings, no
network call at all."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError
from sqlmodel import Session

from bot.ask_llm import ask_writer
from bot.settings import Settings
from digests.ask.answering import grounded
from digests.usecases.commands import Caller, CommandService
from tests.ask_papers import ANSWER_SENTENCE, ANSWER_TITLE, QUESTION, seed_ask_papers
from tests.fakes.openai_server import fake_chat_model

NOW = datetime(2026, 9, 28, 12, 0, tzinfo=UTC)
CHAT = Caller(platform="telegram", chat_id="42", chat_kind="private")
ASKED = f"RL for LLM Agents: {QUESTION}"
WRITTEN = "The world model of the environment supplies the reward for each rollout [1]."


@pytest.fixture
def model():
    with fake_chat_model() as model:
        yield model


def service_with(engine, catalog, **settings) -> CommandService:
    seed_ask_papers(engine, catalog, now=NOW, filler=6)
    writer = ask_writer(Settings(_env_file=None, **settings))
    sessions = lambda: Session(engine, expire_on_commit=False)  # noqa: E731
    return CommandService(sessions, catalog, clock=lambda: NOW, answer_writer=writer)


def test_a_grounded_answer_comes_first_and_only_the_five_papers_are_sent(
    sqlite_engine, catalog, model
):
    model.reply = WRITTEN
    service = service_with(
        sqlite_engine, catalog, ask_llm_url=model.url, ask_llm_model="m-1", ask_llm_api_key="k"
    )
    lines = service.handle(CHAT, "ask", ASKED).text.splitlines()
    assert lines[1] == f"In short (written by a language model from these papers): {WRITTEN}"
    assert lines[2].startswith(f"1. {ANSWER_TITLE} ")
    (request,) = model.requests
    assert request["authorization"] == "Bearer k" and request["body"]["model"] == "m-1"
    sent = request["body"]["messages"][-1]["content"]
    assert sent.count("\n[") == 5 and "[6]" not in sent  # the five papers shown, no more
    assert f"[1] {ANSWER_TITLE}" in sent and ANSWER_SENTENCE in sent
    assert sent.endswith(f"Question: {QUESTION}")


@pytest.mark.parametrize(
    "reply",
    [
        "World models give rewards.",  # cites nothing
        "World models give rewards [7].",  # cites a paper it was not given
        "One [1]. Two [1]. Three [1]. Four [1].",  # longer than three sentences
    ],
)
def test_an_answer_that_is_not_grounded_is_dropped(sqlite_engine, catalog, model, reply):
    model.reply = reply
    service = service_with(sqlite_engine, catalog, ask_llm_url=model.url, ask_llm_model="m")
    text = service.handle(CHAT, "ask", ASKED).text
    assert "In short" not in text and f"1. {ANSWER_TITLE}" in text and model.requests


def test_an_endpoint_that_fails_leaves_the_papers(sqlite_engine, catalog, model):
    model.status = 503
    service = service_with(sqlite_engine, catalog, ask_llm_url=model.url, ask_llm_model="m")
    reply = service.handle(CHAT, "ask", ASKED)
    assert reply.ok and "In short" not in reply.text and f"1. {ANSWER_TITLE}" in reply.text


def test_without_the_settings_nothing_is_sent(sqlite_engine, catalog, model):
    service = service_with(sqlite_engine, catalog)
    assert service.answer_writer is None
    assert "In short" not in service.handle(CHAT, "ask", ASKED).text
    assert model.requests == []


def test_an_endpoint_without_a_model_is_refused_at_start():
    with pytest.raises(ValidationError, match="ASK_LLM_URL and ASK_LLM_MODEL go together"):
        Settings(_env_file=None, ask_llm_url="http://127.0.0.1:9/v1")


def test_every_sentence_must_cite_a_given_paper():
    assert grounded("A does B [1, 2]. C holds [3].", 3) == "A does B [1, 2]. C holds [3]."
    assert grounded("A does B [1, 4].", 3) is None
    assert grounded("", 3) is None
