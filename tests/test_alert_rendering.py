"""Spike alerts as each platform shows them: the chart, the headline, safe paper text."""

from __future__ import annotations

import io

from PIL import Image
from telegram import Bot

from bot.platforms import telegram_render
from bot.platforms.telegram import TelegramSender
from bot.platforms.terminal import TerminalAdapter
from digests.delivery.sending import Address
from digests.messages.chart_spec import CHART_KEY, chart_panels
from tests.fakes.telegram_html import validate_telegram_html
from tests.fakes.telegram_server import FakeTelegram
from tests.messages import spike_alert


def test_a_telegram_alert_is_the_chart_with_the_headline_then_valid_html():
    parts = telegram_render.render_alert(spike_alert())
    photo, *messages = parts
    assert chart_panels(photo[CHART_KEY])[0][0] == "RL for LLM Agents · papers per week"
    assert "RL for LLM Agents is up" in photo["text"] and len(photo["text"]) <= 1024
    assert validate_telegram_html(photo["text"]) is None
    for message in messages:
        assert validate_telegram_html(message["text"]) is None
        assert len(message["text"]) <= 4096
    text = "".join(message["text"] for message in messages)
    assert "&lt;script&gt;" in text and "<script>" not in text


def test_the_terminal_alert_reads_like_the_topic_page():
    (part,) = TerminalAdapter().render_alert(spike_alert())
    assert "RL for LLM Agents is up" in part["text"]
    assert "papers in the last four weeks" in part["text"]


async def test_the_chart_reaches_telegram_as_a_photo_upload():
    parts = telegram_render.render_alert(spike_alert())
    async with FakeTelegram() as fake:
        fake.add_chat(4242, type="private")
        bot = Bot(fake.token, base_url=fake.api_url, base_file_url=fake.file_url)
        async with bot:
            await TelegramSender(bot).send(Address("telegram", "4242"), parts[0])
        (sent,) = fake.sent(4242, method="sendPhoto")
    image = Image.open(io.BytesIO(sent["photo"]))
    assert image.format == "PNG" and image.width > image.height
    assert "RL for LLM Agents is up" in sent["caption"]


def test_a_discord_alert_carries_the_chart_and_pings_only_the_chosen_role():
    from bot.platforms import discord_render

    first, *_ = discord_render.render_alert(spike_alert(), mention_role_id="123")
    assert chart_panels(first[CHART_KEY])[0][0] == "RL for LLM Agents · papers per week"
    assert first["content"].startswith("<@&123> **Spike:**")
