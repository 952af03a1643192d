"""/ask on Telegram: the real python-telegram-bot against the fake Bot API."""

from __future__ import annotations

import pytest

from digests.topics.catalog import Catalog
from tests.ask_papers import ANSWER_SENTENCE, ANSWER_TITLE, QUESTION, seed_ask_papers
from tests.fakes.telegram_bot import NOW, PRIVATE, Bot, visible

pytestmark = pytest.mark.usefixtures("ptb_timedelta")


async def test_ask_answers_with_the_paper_that_answers_first(
    telegram_bot: Bot, catalog: Catalog
) -> None:
    seed_ask_papers(telegram_bot.engine, catalog, now=NOW, filler=6)
    answer = visible(
        await telegram_bot.say(PRIVATE, PRIVATE, f"/ask RL for LLM Agents: {QUESTION}")
    )
    lines = answer.splitlines()
    assert lines[0].startswith("RL for LLM Agents: 8 papers match")
    assert lines[1].startswith(f"1. {ANSWER_TITLE} https://arxiv.org/abs/")
    assert lines[2].strip() == f"“{ANSWER_SENTENCE}”"


async def test_ask_without_a_question_says_how_to_ask(telegram_bot: Bot, catalog: Catalog) -> None:
    answer = visible(await telegram_bot.say(PRIVATE, PRIVATE, "/ask RL for LLM Agents"))
    assert "Name a topic, a colon, then your question" in answer
    assert "/ask RL for LLM Agents: which papers use a world model" in answer
