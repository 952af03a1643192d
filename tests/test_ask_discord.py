"""/ask on Discord: the real discord.py against the fake Discord (gateway and REST)."""

from __future__ import annotations

from digests.topics.catalog import Catalog
from tests.ask_papers import ANSWER_SENTENCE, ANSWER_TITLE, QUESTION, seed_ask_papers
from tests.fakes.discord_bot import NOW, RL, Bot, is_private


async def test_ask_picks_the_topic_from_the_list_and_answers_the_asker(
    discord_bot: Bot, catalog: Catalog
) -> None:
    seed_ask_papers(discord_bot.engine, catalog, now=NOW, filler=6)
    offered = await discord_bot.choices("ask", "topic", {"topic": "rl for llm"})
    assert {"name": "RL for LLM Agents", "value": RL} in offered
    answer = await discord_bot.command("ask", {"topic": RL, "question": QUESTION})
    lines = answer["content"].splitlines()
    assert is_private(answer)  # like /trending: a view for the asker alone
    assert lines[0].startswith("RL for LLM Agents: 8 papers match")
    assert lines[1].startswith(f"1. {ANSWER_TITLE} ")
    assert lines[2].strip() == f"“{ANSWER_SENTENCE}”"


async def test_ask_about_an_unknown_topic_is_answered_privately(discord_bot: Bot) -> None:
    answer = await discord_bot.command(
        "ask", {"topic": "Quantum Basket Weaving", "question": QUESTION}
    )
    assert is_private(answer)
    assert "I don't know the topic “Quantum Basket Weaving”" in answer["content"]
