"""The Slack adapter, end to end: the real slack-bolt and slack-sdk against the fake Slack.

Each test starts a fresh fake workspace, database and adapter, receiving over Socket Mode
unless it says otherwise; every wait is bounded. Posts to one channel are paced 20 times
faster than Slack's one a second, and the fake's limit runs as fast.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from bot.app import App
from bot.cli import main
from bot.platforms import slack_render
from bot.platforms.slack import SlackAdapter
from bot.runner import build_adapters
from bot.settings import Settings, SettingsError
from digests.delivery.pacing import RequestPace
from digests.delivery.sending import Address, Transient
from digests.store import channels, deliveries
from digests.usecases.app import UseCases
from tests.fakes.slack_server import FakeSlack, Rate, button, visible
from tests.messages import spike_alert
from tests.papers import seed_agent_papers
from tests.waiting import wait_until

NOW = datetime(2026, 9, 28, 12, 0, tzinfo=UTC)  # a Monday
WAIT = 5.0
SPEED = 20.0
PAPERS, DM = "C0PAPERS", "D0DIRECT"
CREATOR, ADMIN, MEMBER = "UCREATOR", "UADMIN", "UMEMBER"
RL = "rl-for-llm-agents"
HOSTILE = "<!channel> <@U999> @here & <https://evil.example|click> *bold*"


@dataclass
class Bot:
    slack: FakeSlack
    adapter: SlackAdapter
    services: UseCases
    engine: Engine
    now: list[datetime]

    def follows(self, channel_id: str) -> list[str]:
        with Session(self.engine) as session:
            channel = channels.find_channel(session, "slack", channel_id)
            return channels.followed_slugs(session, channel.id) if channel else []

    def channel(self, channel_id: str):
        with Session(self.engine) as session:
            return channels.find_channel(session, "slack", channel_id)

    def digest(self, channel_id: str):
        with Session(self.engine) as session:
            channel = channels.find_channel(session, "slack", channel_id)
            return self.services.commands.digest_for(session, channel.id, now=self.now[0])

    async def say(self, channel_id: str, user: str, command: str, text: str = "") -> dict:
        """Type a slash command; the answer the app sends through its response_url."""
        before = len(self.slack.responses[channel_id])
        ack = await self.slack.slash(channel_id, user, command, text)
        assert ack.get("status", 200) == 200, ack
        answers = await self.slack.wait_for_responses(channel_id, before + 1, WAIT)
        return answers[before]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def workspace(slack: FakeSlack) -> None:
    slack.add_user(CREATOR)
    slack.add_user(ADMIN, admin=True)
    slack.add_user(MEMBER)
    slack.add_channel(PAPERS, "papers", creator=CREATOR, members={CREATOR, ADMIN, MEMBER})
    slack.add_channel(DM, "directmessage", im=True, members={MEMBER})


async def start(
    make_app: Callable[..., App], slack: FakeSlack, engine: Engine, *, http: bool = False
) -> Bot:
    now = [NOW]
    settings = {"slack_bot_token": slack.bot_token, "slack_api_url": slack.api_url}
    if http:
        port = free_port()
        settings |= {"slack_signing_secret": slack.signing_secret,
                     "slack_events_listen": f"127.0.0.1:{port}"}  # fmt: skip
        slack.events_url = f"http://127.0.0.1:{port}/slack/events"
    else:
        settings["slack_app_token"] = slack.app_token
    app = make_app(engine, settings=settings, clock=lambda: now[0])
    app.usecases.per_topic_cap = app.usecases.commands.per_topic_cap = 60
    adapter = SlackAdapter(app.settings, app.usecases, channel_gap=1 / SPEED)
    app.usecases.add_platform(adapter)
    await asyncio.wait_for(adapter.start(), WAIT)
    return Bot(slack, adapter, app.usecases, engine, now)


@pytest.fixture
async def bot(make_app: Callable[..., App], engine: Engine) -> AsyncIterator[Bot]:
    """On both databases, over Socket Mode."""
    async with FakeSlack(rate=Rate().scaled(SPEED), retry_unit=1 / SPEED) as slack:
        workspace(slack)
        started = await start(make_app, slack, engine)
        try:
            yield started
        finally:
            await asyncio.wait_for(started.adapter.stop(), WAIT)


@pytest.fixture
async def http_bot(make_app: Callable[..., App], sqlite_engine: Engine) -> AsyncIterator[Bot]:
    """Over the Events API: signed HTTP requests to /slack/events."""
    async with FakeSlack(rate=Rate().scaled(SPEED), retry_unit=1 / SPEED) as slack:
        workspace(slack)
        started = await start(make_app, slack, sqlite_engine, http=True)
        try:
            yield started
        finally:
            await asyncio.wait_for(started.adapter.stop(), WAIT)


async def weekly_digest(bot: Bot, catalog, papers: int = 8) -> list[dict]:
    """A week after following, the scheduled digest goes out; what the channel received."""
    await bot.say(PAPERS, CREATOR, "/follow", "RL for LLM Agents")
    ingested = NOW + timedelta(days=6)  # arXiv's Sunday listing, before Monday's digest
    seed_agent_papers(bot.engine, catalog, hostile=HOSTILE, now=ingested, count=papers)
    bot.now[0] = NOW + timedelta(days=7)
    assert bot.services.plan_digests("weekly", every_schedule=True) == (1, 0)
    report = await asyncio.wait_for(bot.services.dispatcher.drain(), WAIT)
    assert report.delivered == 1
    return bot.slack.sent[PAPERS]


# --- the "done when", on both databases ---------------------------------------------


async def test_a_channel_follows_a_topic_with_a_slash_command(bot: Bot) -> None:
    answer = await bot.say(PAPERS, CREATOR, "/follow", "RL for LLM Agents")
    assert visible(answer).startswith("Following RL for LLM Agents.")
    assert answer["response_type"] == "in_channel"  # the channel sees what it now follows
    assert bot.follows(PAPERS) == [RL]


async def test_the_weekly_digest_arrives_as_block_kit_with_the_chart(bot: Bot, catalog) -> None:
    sent = await weekly_digest(bot, catalog)
    chart, *messages = sent
    assert chart["method"] == "file" and chart["bytes"].startswith(b"\x89PNG")
    assert "Weekly digest" in chart["initial_comment"]
    assert messages and all(m["method"] == "post" for m in messages)
    text = "\n".join(visible(m) for m in messages)
    assert "*RL for LLM Agents*" in text
    assert "&lt;!channel&gt; &lt;@\u2060U999&gt; @\u2060here &amp;" in text  # shown, never a ping
    assert "<!channel>" not in text and "<@U999>" not in text
    assert button(messages[0], "👎 1")["value"].startswith("v:")


async def test_a_thumbs_down_takes_the_paper_out_of_the_channels_view(bot: Bot, catalog) -> None:
    sent = await weekly_digest(bot, catalog)
    first = bot.digest(PAPERS).sections[0].entries[0].paper.arxiv_id

    await bot.slack.press(PAPERS, MEMBER, button(sent[1], "👎 1"), sent[1]["ts"])
    (answer,) = (await bot.slack.wait_for_responses(PAPERS, 2, WAIT))[1:]
    assert "👎" in answer["text"] or "vote" in answer["text"].lower(), answer
    assert answer["response_type"] == "ephemeral" and answer["replace_original"] is False
    shown = [e.paper.arxiv_id for s in bot.digest(PAPERS).sections for e in s.entries]
    assert first not in shown


async def test_a_channel_the_app_is_removed_from_shows_as_paused_in_status(
    bot: Bot, monkeypatch: pytest.MonkeyPatch, tmp_path, capsys
) -> None:
    await bot.say(PAPERS, CREATOR, "/follow", "RL for LLM Agents")
    await bot.slack.remove_bot(PAPERS, by=CREATOR)
    assert await wait_until(lambda: bot.channel(PAPERS).paused_reason is not None, WAIT)
    assert bot.channel(PAPERS).paused_reason == "the app was removed from this channel"

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", bot.engine.url.render_as_string(hide_password=False))
    assert await asyncio.to_thread(main, ["status"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert f"  paused slack {PAPERS}: the app was removed from this channel" in printed
    assert bot.follows(PAPERS) == [RL]  # kept for its return

    await bot.slack.invite_bot(PAPERS, by=CREATOR)
    (welcome,) = await bot.slack.wait_for_sent(PAPERS, 1, WAIT)
    assert "this chat follows RL for LLM Agents" in visible(welcome)
    assert bot.channel(PAPERS).paused_reason is None


# --- who may change what a channel follows --------------------------------------------------


async def test_a_member_who_is_neither_admin_nor_creator_is_refused_privately(bot: Bot) -> None:
    refused = await bot.say(PAPERS, MEMBER, "/follow", "RL for LLM Agents")
    assert "Only members who can manage this channel" in visible(refused)
    assert refused["response_type"] == "ephemeral"
    assert bot.follows(PAPERS) == []


async def test_a_workspace_admin_may_change_a_channel_they_did_not_create(bot: Bot) -> None:
    answer = await bot.say(PAPERS, ADMIN, "/follow", "RL for LLM Agents")
    assert visible(answer).startswith("Following RL for LLM Agents.")
    assert bot.follows(PAPERS) == [RL]


async def test_anyone_follows_in_their_direct_messages_with_the_app(bot: Bot) -> None:
    answer = await bot.say(DM, MEMBER, "/follow", "RL for LLM Agents")
    assert visible(answer).startswith("Following RL for LLM Agents.")


async def test_every_command_of_the_table_is_a_slash_command_answered_to_the_asker(
    bot: Bot,
) -> None:
    for name in ("following", "topics", "trending", "help"):
        answer = await bot.say(PAPERS, MEMBER, f"/{name}")
        assert answer["response_type"] == "ephemeral" and visible(answer), name
    assert "/follow" in visible(await bot.say(PAPERS, MEMBER, "/help"))


async def test_topics_offers_follow_buttons_and_a_press_follows(bot: Bot) -> None:
    offer = await bot.say(PAPERS, CREATOR, "/topics")
    (choices,) = [b for b in offer["blocks"] if b["type"] == "actions"]
    pressed = choices["elements"][0]
    await bot.slack.press(PAPERS, CREATOR, {**pressed, "block_id": "choices"})
    (done,) = (await bot.slack.wait_for_responses(PAPERS, 2, WAIT))[1:]
    assert visible(done).startswith(f"Following {pressed['text']['text']}.")
    assert done["replace_original"] is True and len(bot.follows(PAPERS)) == 1


# --- the Events API over HTTP: signed requests only ----------------------------------------


async def test_the_events_api_takes_a_signed_slash_command(http_bot: Bot) -> None:
    answer = await http_bot.say(PAPERS, CREATOR, "/follow", "RL for LLM Agents")
    assert visible(answer).startswith("Following RL for LLM Agents.")


def follow_payload(slack: FakeSlack) -> dict:
    return {"team_id": "T0001", "channel_id": PAPERS, "channel_name": "papers",
            "user_id": CREATOR, "command": "/follow", "text": "RL for LLM Agents",
            "response_url": f"{slack.base_url}/respond/{PAPERS}/{CREATOR}"}  # fmt: skip


async def test_a_request_signed_with_another_secret_is_refused(http_bot: Bot) -> None:
    slack = http_bot.slack
    answer = await slack.post_signed("slash_commands", follow_payload(slack), secret="forged")
    assert answer["status"] == 401
    assert http_bot.follows(PAPERS) == [] and slack.responses[PAPERS] == []


async def test_a_correctly_signed_request_ten_minutes_old_is_refused(http_bot: Bot) -> None:
    slack = http_bot.slack
    old = int(time.time()) - 600  # a replay of a captured request
    answer = await slack.post_signed("slash_commands", follow_payload(slack), timestamp=old)
    assert answer["status"] == 401
    assert http_bot.follows(PAPERS) == []


async def test_an_event_delivered_twice_is_acted_on_once(http_bot: Bot) -> None:
    bot = http_bot
    await bot.say(PAPERS, CREATOR, "/follow", "RL for LLM Agents")
    bot.slack.channels[PAPERS].members.discard("UBOT")
    left = {"type": "channel_left", "channel": PAPERS, "actor_id": CREATOR}
    assert (await bot.slack.event(left, event_id="Ev0LEFT"))["status"] == 200
    assert await wait_until(lambda: bot.channel(PAPERS).paused_reason is not None, WAIT)
    await bot.slack.invite_bot(PAPERS, by=CREATOR)
    await bot.slack.wait_for_sent(PAPERS, 1, WAIT)  # welcomed back: resumed

    replay = await bot.slack.event(left, event_id="Ev0LEFT")  # Slack's retry, or a replay
    assert replay["status"] == 200
    await bot.say(PAPERS, MEMBER, "/following")  # handled after the replay
    assert bot.channel(PAPERS).paused_reason is None


# --- sending: Slack's errors, rate limits and limits ----------------------------------------


def enqueue(bot: Bot, channel_id: str, parts: list[dict]) -> None:
    with Session(bot.engine, expire_on_commit=False) as session:
        channel = channels.get_or_create_channel(
            session, platform="slack", chat_id=channel_id, now=NOW
        )
        deliveries.enqueue(session, channel_id=channel.id, kind="weekly",
                           period_key="2026-W40", parts=parts, now=NOW)  # fmt: skip
        session.commit()


PART = {"text": "weekly digest", "blocks": [{"type": "section",
        "text": {"type": "mrkdwn", "text": "weekly digest"}}]}  # fmt: skip


@pytest.mark.parametrize(
    ("break_it", "error"),
    [
        (lambda slack: slack.channels[PAPERS].members.discard("UBOT"), "not_in_channel"),
        (lambda slack: slack.channels.pop(PAPERS), "channel_not_found"),
        (lambda slack: setattr(slack, "revoked", "account_inactive"), "account_inactive"),
        (lambda slack: setattr(slack, "revoked", "token_revoked"), "token_revoked"),
    ],
    ids=["not_in_channel", "channel_not_found", "account_inactive", "token_revoked"],
)
async def test_a_channel_slack_refuses_is_paused_with_the_reason(
    bot: Bot, break_it: Callable, error: str
) -> None:
    enqueue(bot, PAPERS, [PART])
    break_it(bot.slack)
    report = await asyncio.wait_for(bot.services.dispatcher.drain(), WAIT)
    assert report.paused == 1
    assert bot.channel(PAPERS).paused_reason.startswith(f"Slack: {error} (")
    assert any(f"paused slack {PAPERS}: Slack: {error}" in line
               for line in bot.services.status().lines())  # fmt: skip


async def test_a_burst_to_one_channel_goes_at_slacks_pace_without_a_429(bot: Bot) -> None:
    enqueue(bot, PAPERS, [PART] * 6)
    report = await asyncio.wait_for(bot.services.dispatcher.drain(), WAIT)
    assert report.parts_sent == 6 and len(bot.slack.posts(PAPERS)) == 6
    assert bot.slack.flood_count == 0


async def test_a_429_is_waited_out_as_told_and_nothing_is_lost(bot: Bot) -> None:
    bot.slack.throttle(PAPERS, posts=2, retry_after=0.3)
    enqueue(bot, PAPERS, [PART] * 3)
    report = await asyncio.wait_for(bot.services.dispatcher.drain(), WAIT)
    assert report.parts_sent == 3 and len(bot.slack.posts(PAPERS)) == 3
    (_, first_refused), (_, second_refused) = bot.slack.refusals
    assert second_refused - first_refused >= 0.3  # Retry-After honoured each time
    assert bot.slack.posts(PAPERS)[0]["at"] - second_refused >= 0.3


async def test_a_long_digest_is_split_within_block_kits_limits(bot: Bot, catalog) -> None:
    sent = await weekly_digest(bot, catalog, papers=60)
    posts = [record for record in sent if record["method"] == "post"]
    assert len(posts) >= 3  # 60 papers of two blocks each
    assert all(len(post["blocks"]) <= 50 for post in posts)  # the fake refuses more anyway
    assert "(continued)" in visible(posts[1])
    numbers = [b["elements"][0]["text"]["text"] for p in posts for b in p["blocks"]
               if b["type"] == "actions"]  # fmt: skip
    assert numbers == [f"👍 {n}" for n in range(1, 61)]


async def test_a_refused_bot_token_stops_the_start_in_one_line_without_quoting_it(
    make_app: Callable[..., App], sqlite_engine: Engine
) -> None:
    async with FakeSlack() as slack:
        settings = {"slack_bot_token": "xoxb-wrong", "slack_app_token": slack.app_token,
                    "slack_api_url": slack.api_url}  # fmt: skip
        app = make_app(sqlite_engine, settings=settings)
        adapter = SlackAdapter(app.settings, app.usecases)
        with pytest.raises(SettingsError) as refused:
            await asyncio.wait_for(adapter.start(), WAIT)
        assert str(refused.value) == "SLACK_BOT_TOKEN was refused: invalid_auth"
        await adapter.stop()


async def test_slack_unreachable_at_start_is_a_transient_failure_tried_again(
    make_app: Callable[..., App], sqlite_engine: Engine
) -> None:
    closed = f"http://127.0.0.1:{free_port()}/api/"  # nothing listens there
    settings = {"slack_bot_token": "xoxb-any", "slack_api_url": closed}
    app = make_app(sqlite_engine, settings=settings)
    adapter = SlackAdapter(app.settings, app.usecases)
    with pytest.raises(Transient, match="Slack cannot be reached"):
        await asyncio.wait_for(adapter.start(), WAIT)


def test_digestbot_run_adds_slack_when_its_bot_token_is_set(
    make_app: Callable[..., App], sqlite_engine: Engine
) -> None:
    app = make_app(sqlite_engine, settings={"slack_bot_token": "xoxb-any"})
    assert [adapter.platform for adapter in build_adapters(app.settings, app.usecases)] == ["slack"]
    without = make_app(sqlite_engine)
    assert [a.platform for a in build_adapters(without.settings, without.usecases)] == ["terminal"]


async def test_follow_alone_opens_a_modal_whose_topic_list_completes_what_is_typed(
    bot: Bot,
) -> None:
    await bot.slack.slash(PAPERS, CREATOR, "/follow")
    await bot.slack.wait_for(lambda: bool(bot.slack.views), WAIT)
    (modal,) = bot.slack.views
    options = (await bot.slack.suggest(CREATOR, modal, "topic", "rl for llm ag"))["options"]
    assert options[0] == {"text": {"type": "plain_text", "text": "RL for LLM Agents"}, "value": RL}

    await bot.slack.submit(CREATOR, modal, {"topic": options[0], "how_often": {"value": "daily"}})
    (answer,) = await bot.slack.wait_for_sent(PAPERS, 1, WAIT)
    assert answer["method"] == "post"  # the channel sees what it now follows
    assert visible(answer).startswith("Following RL for LLM Agents. New papers come daily")
    assert bot.follows(PAPERS) == [RL] and bot.slack.responses[PAPERS] == []


async def test_a_member_typing_follow_alone_is_refused_without_a_modal(bot: Bot) -> None:
    refused = await bot.say(PAPERS, MEMBER, "/follow")
    assert "Only members who can manage this channel" in visible(refused)
    assert bot.slack.views == []


async def test_members_of_the_configured_user_group_may_change_any_channel(
    make_app: Callable[..., App], sqlite_engine: Engine
) -> None:
    async with FakeSlack() as slack:
        workspace(slack)
        slack.groups["S0EDITORS"] = {MEMBER}
        app = make_app(sqlite_engine, settings={
            "slack_bot_token": slack.bot_token, "slack_app_token": slack.app_token,
            "slack_api_url": slack.api_url, "slack_manager_group": "S0EDITORS"})  # fmt: skip
        adapter = SlackAdapter(app.settings, app.usecases)
        app.usecases.add_platform(adapter)
        await asyncio.wait_for(adapter.start(), WAIT)
        bot = Bot(slack, adapter, app.usecases, sqlite_engine, [NOW])
        try:
            answer = await bot.say(PAPERS, MEMBER, "/follow", "RL for LLM Agents")
            assert visible(answer).startswith("Following RL for LLM Agents.")
            slack.add_user("UOTHER")
            refused = await bot.say(PAPERS, "UOTHER", "/unfollow", "RL for LLM Agents")
            assert "Only members who can manage" in visible(refused)
        finally:
            await asyncio.wait_for(adapter.stop(), WAIT)


# --- alerts and Slack's three seconds -------------------------------------------------------


async def test_a_spike_alert_reaches_slack_as_the_chart_then_block_kit(bot: Bot) -> None:
    parts = slack_render.render_alert(spike_alert())  # its paper's title is hostile
    for part in parts:
        await bot.adapter.sender.send(Address("slack", PAPERS), part)
    chart, *posts = bot.slack.sent[PAPERS]
    assert (
        chart["bytes"].startswith(b"\x89PNG")
        and "RL for LLM Agents is up" in (chart["initial_comment"])
    )
    text = "\n".join(visible(post) for post in posts)
    assert "&lt;script&gt;" in text and "@\u2060everyone" in text and "<script>" not in text
    assert button(posts[-1], "👎 1")["value"].startswith("v:")


async def test_a_slash_command_is_acknowledged_before_a_slow_answer_is_ready(
    bot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    handle = bot.services.commands.handle

    def slow_database(*args):
        release.wait(WAIT)
        return handle(*args)

    monkeypatch.setattr(bot.services.commands, "handle", slow_database)
    await asyncio.wait_for(bot.slack.slash(PAPERS, MEMBER, "/following"), 1.0)
    assert bot.slack.responses[PAPERS] == []  # acknowledged; the answer is still being made
    release.set()
    (answer,) = await bot.slack.wait_for_responses(PAPERS, 1, WAIT)
    assert "follows no topics yet" in visible(answer)


async def test_where_files_are_refused_the_digest_comes_without_its_chart(
    bot: Bot, catalog
) -> None:
    bot.slack.files_refused = "missing_scope"  # installed without files:write
    sent = await weekly_digest(bot, catalog)
    assert [record["method"] for record in sent] == ["post"] * len(sent)
    assert "*Weekly digest" in visible(sent[0]) and button(sent[1], "👍 1")


async def test_digest_posts_the_digest_into_the_channel_as_the_scheduled_one_goes(
    bot: Bot, catalog
) -> None:
    seed_agent_papers(bot.engine, catalog, hostile=HOSTILE, now=NOW, count=5)
    await bot.say(PAPERS, CREATOR, "/follow", "RL for LLM Agents")
    told = await bot.say(PAPERS, MEMBER, "/digest")
    assert visible(told) == "Your digest: 5 new papers." and told["response_type"] == "ephemeral"
    chart, first, *_ = await bot.slack.wait_for_sent(PAPERS, 2, WAIT)
    assert chart["method"] == "file" and "Your digest" in chart["initial_comment"]
    assert first["method"] == "post" and button(first, "👎 5")


def test_slack_tokens_and_the_signing_secret_are_redacted_like_every_secret() -> None:
    settings = Settings(_env_file=None, slack_bot_token="xoxb-1", slack_app_token="xapp-2",
                        slack_signing_secret="s3cret")  # fmt: skip
    assert {"xoxb-1", "xapp-2", "s3cret"} <= set(settings.secrets())


async def test_slacks_url_check_is_answered_when_the_events_url_is_saved(http_bot: Bot) -> None:
    check = {"token": "legacy", "challenge": "3eZbrw1aBm2rZgRNFdxV", "type": "url_verification"}
    answer = await http_bot.slack.post_signed("events_api", check)
    assert answer["status"] == 200 and "3eZbrw1aBm2rZgRNFdxV" in answer["body"]


async def test_a_broadcast_of_charts_stays_within_the_upload_tier_without_a_429(
    bot: Bot,
) -> None:
    # The workspace's upload allowance as five a second, to see it bite with few channels.
    bot.slack.uploads_rate = Rate(5, 1.0, burst=5)
    bot.adapter.sender.uploads = RequestPace(5.0)
    chart_part = slack_render.render_alert(spike_alert())[0]
    targets = [f"C0TIER{n:02d}" for n in range(12)]
    for channel_id in targets:
        bot.slack.add_channel(channel_id, channel_id.lower())
        enqueue(bot, channel_id, [chart_part])
    report = await asyncio.wait_for(bot.services.dispatcher.drain(), 3 * WAIT)
    assert report.parts_sent == 12 and bot.slack.flood_count == 0
    assert all(len(bot.slack.files(channel_id)) == 1 for channel_id in targets)


async def test_a_member_pressing_a_follow_button_is_told_alone_and_the_buttons_stay(
    bot: Bot,
) -> None:
    offer = await bot.say(PAPERS, MEMBER, "/topics")
    (choices,) = [b for b in offer["blocks"] if b["type"] == "actions"]
    await bot.slack.press(PAPERS, MEMBER, {**choices["elements"][0], "block_id": "choices"})
    (refused,) = (await bot.slack.wait_for_responses(PAPERS, 2, WAIT))[1:]
    assert "Only members who can manage" in visible(refused)
    assert refused["response_type"] == "ephemeral" and refused["replace_original"] is False
    assert bot.follows(PAPERS) == []


async def test_what_a_user_typed_cannot_mention_anyone_even_in_the_notification_text(
    bot: Bot,
) -> None:
    answer = await bot.say(PAPERS, CREATOR, "/follow", "<!channel> hello @here")
    assert "<!channel>" not in answer["text"] and "&lt;!channel&gt;" in answer["text"]
    assert "<!channel>" not in visible(answer) and "@\u2060here" in visible(answer)


async def test_slack_answering_500_is_retried_and_the_part_arrives_once(bot: Bot) -> None:
    bot.services.dispatcher.backoff_base = 0.01  # retries a hundredth as far apart
    enqueue(bot, PAPERS, [PART])
    bot.slack.outages = 2
    report = await asyncio.wait_for(bot.services.dispatcher.drain(), WAIT)
    assert report.parts_sent == 1 and len(bot.slack.posts(PAPERS)) == 1
    assert bot.channel(PAPERS).paused_reason is None


async def test_uninstalling_the_app_pauses_every_channel_of_the_workspace(bot: Bot) -> None:
    bot.slack.add_channel("C0SECOND", "agents", creator=CREATOR)
    await bot.say(PAPERS, CREATOR, "/follow", "RL for LLM Agents")
    await bot.say("C0SECOND", CREATOR, "/follow", "RL for LLM Agents")
    await bot.slack.event({"type": "app_uninstalled"})

    def both_paused() -> bool:
        return all(bot.channel(c).paused_reason for c in (PAPERS, "C0SECOND"))

    assert await wait_until(both_paused, WAIT)
    assert bot.channel(PAPERS).paused_reason == "the app was uninstalled from this workspace"
