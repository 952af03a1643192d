"""👍/👎 on Telegram: the real python-telegram-bot against the fake Bot API (inline keyboards,
callback queries, answerCallbackQuery)."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Callable

import pytest
from sqlalchemy import Engine, select
from sqlmodel import Session

from bot.app import App
from digests.store.models import InstallSecret, Vote
from digests.topics.catalog import Catalog
from digests.usecases.votes import SECRET_NAME, voter_hash
from tests.fakes.telegram_bot import (
    ADMIN,
    GROUP,
    MEMBER,
    WAIT,
    Bot,
    seed_papers,
    start_bot,
    visible,
)
from tests.fakes.telegram_server import FakeTelegram, FloodLimits


@pytest.fixture
async def bot(make_app: Callable[..., App], sqlite_engine: Engine) -> AsyncIterator[Bot]:
    async with FakeTelegram(flood=FloodLimits().scaled(50)) as tg:
        tg.add_chat(GROUP, "supergroup", "ML reading group", admins={ADMIN: "administrator"})
        adapter, services = await start_bot(make_app, tg, sqlite_engine)
        try:
            yield Bot(tg, adapter, services, sqlite_engine)
        finally:
            await asyncio.wait_for(adapter.stop(), 3 * WAIT)


async def digest_buttons(bot: Bot, catalog: Catalog, papers: int = 12) -> list[dict]:
    """Follow, ask for the digest, and return its messages that carry buttons."""
    seed_papers(bot.engine, catalog, count=papers)
    await bot.say(GROUP, ADMIN, "/follow rl for llm agents")
    await bot.say(GROUP, ADMIN, "/digest")
    sent = await bot.tg.wait_for_sent(GROUP, 3, WAIT, "sendMessage")  # 2 answers + a part
    return [part for part in sent if part["reply_markup"]]


async def press(bot: Bot, user: int, data: str, message_id: int) -> dict:
    before = len(bot.tg.callback_answers)
    bot.tg.inject_callback_query(GROUP, user, data, message_id)
    await bot.handled_all(GROUP)
    assert len(bot.tg.callback_answers) == before + 1
    return bot.tg.callback_answers[-1]


def stored_votes(bot: Bot) -> list[Vote]:
    with Session(bot.engine) as session:
        return list(session.exec(select(Vote)).scalars())


async def test_every_paper_of_a_digest_has_a_row_of_thumbs_labelled_with_its_number(
    bot: Bot, catalog: Catalog
) -> None:
    (part,) = await digest_buttons(bot, catalog, papers=12)
    rows = part["reply_markup"]["inline_keyboard"]
    assert [[b["text"] for b in row] for row in rows] == [
        [f"👍 {n}", f"👎 {n}"] for n in range(1, 13)
    ]
    assert all(len(b["callback_data"].encode()) <= 64 for row in rows for b in row)
    for n in (1, 12):  # the labels name the papers numbered so in the message
        assert f"\n{n}. <a href=" in "\n" + part["text"]


async def test_anyone_votes_once_and_pressing_again_changes_or_withdraws(
    bot: Bot, catalog: Catalog
) -> None:
    (part,) = await digest_buttons(bot, catalog)
    up, down = part["reply_markup"]["inline_keyboard"][0]
    message_id = part["message_id"]

    first = await press(bot, MEMBER, up["callback_data"], message_id)
    assert first["text"].startswith("👍 counted") and "Here: 1 👍, 0 👎" in first["text"]
    again = await press(bot, MEMBER, up["callback_data"], message_id)
    assert again["text"].startswith("Your 👍 is withdrawn") and stored_votes(bot) == []

    await press(bot, MEMBER, up["callback_data"], message_id)
    changed = await press(bot, MEMBER, down["callback_data"], message_id)
    assert changed["text"].startswith("Changed to 👎")
    assert "leaves this topic in this chat's next digests" in changed["text"]
    await press(bot, ADMIN, up["callback_data"], message_id)
    (member_vote, admin_vote) = sorted(stored_votes(bot), key=lambda v: v.value)
    assert (member_vote.value, admin_vote.value) == (-1, 1)
    # Voters are stored as an HMAC under the install's secret: not the id, nor its plain hash.
    with Session(bot.engine) as session:
        secret = session.get(InstallSecret, SECRET_NAME).value
    assert member_vote.voter == voter_hash(secret, "telegram", str(MEMBER))
    plain = {str(MEMBER), hashlib.sha256(str(MEMBER).encode()).hexdigest()}
    plain.add(hashlib.sha256(f"telegram:{MEMBER}".encode()).hexdigest())
    assert member_vote.voter not in plain


async def test_forged_malformed_and_foreign_buttons_count_nothing(
    bot: Bot, catalog: Catalog
) -> None:
    (part,) = await digest_buttons(bot, catalog)
    tried = [
        "v:AAAAAAAAAAAA:+",  # well formed, but no paper of this chat
        "v:garbage",
        "v:" + "A" * 12 + ":x",
        "v:" + "A" * 60,
        "v:<script>alert(1)</script>:+",
    ]
    answers = [await press(bot, MEMBER, data, part["message_id"]) for data in tried]
    assert "not sent to this chat" in answers[0]["text"]
    assert all("not one of mine" in a["text"] for a in answers[1:])
    assert all(a["show_alert"] in (True, "true") for a in answers)
    assert stored_votes(bot) == []


async def test_forget_is_for_admins_and_old_buttons_stop_counting(
    bot: Bot, catalog: Catalog
) -> None:
    (part,) = await digest_buttons(bot, catalog)
    up, _ = part["reply_markup"]["inline_keyboard"][0]
    await press(bot, MEMBER, up["callback_data"], part["message_id"])

    refused = await bot.say(GROUP, MEMBER, "/forget")
    assert "Only chat administrators" in visible(refused) and len(stored_votes(bot)) == 1
    done = await bot.say(GROUP, ADMIN, "/forget")
    assert visible(done).startswith("Forgot this chat's 1 vote")
    assert stored_votes(bot) == []

    after = await press(bot, MEMBER, up["callback_data"], part["message_id"])
    assert "forgotten with /forget" in after["text"] and stored_votes(bot) == []
