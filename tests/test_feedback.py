"""Reader feedback in the core, on SQLite and PostgreSQL: votes hide off-topic papers from
the channel that cast them, rank its next digest once there are enough, and export as
gold-set lines."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from bot.app import App
from bot.cli import main
from bot.platforms.telegram import build_telegram
from digests.delivery.due import Occurrence
from digests.health import STORE_TROUBLE
from digests.messages.plain_text import render_text
from digests.messages.vote_keys import DOWN, UP, vote_data, vote_key
from digests.store import channels
from digests.store.models import VoteOffer
from digests.topics.catalog import Catalog
from digests.topics.evaluation import load_gold
from digests.topics.tagger import Tagger
from digests.usecases import votes as feedback
from digests.usecases.alert_planning import without_off_topic
from digests.usecases.app import UseCases, digest_offers
from digests.usecases.commands import Caller
from digests.usecases.digest_planning import plan_digests
from digests.usecases.ingest import ingest_records, sync_catalog
from digests.usecases.votes import MIN_VOTED_PAPERS, Voter
from tests.fakes.store_faults import read_only
from tests.messages import spike
from tests.papers import paper_record

NOW = datetime(2026, 9, 28, 12, 0, tzinfo=UTC)
RL = "rl-for-llm-agents"
GROUP = Caller(platform="telegram", chat_id="-100", chat_kind="group", can_manage=True)
OTHER = Caller(platform="telegram", chat_id="-200", chat_kind="group", can_manage=True)
THIRD = Caller(platform="telegram", chat_id="-300", chat_kind="group", can_manage=True)
MEMORY = "Episodic memory retrieval for agents, study {n}"
TOOLS = "Tool calling with web browsers for agents, study {n}"


def seed(engine: Engine, catalog: Catalog, titles: list[str]) -> list[str]:
    """Papers on RL for LLM Agents with these titles; their arXiv ids."""
    records = [
        paper_record(
            n,
            NOW - timedelta(days=1 + n % 3),
            title=title,
            abstract=f"{title}. We train agents with reinforcement learning.",
            categories=("cs.LG",),
            upstream_topics=("RL for LLM Agents",),
        )
        for n, title in enumerate(titles, start=1)
    ]
    tagger = Tagger(catalog)
    with Session(engine) as session:
        sync_catalog(session, catalog=catalog, tagger=tagger, now=NOW)
        ingest_records(session, records, tagger=tagger, catalog=catalog, now=NOW)
        session.commit()
    return [record.arxiv_id for record in records]


@pytest.fixture
def services(make_app: Callable[..., App], engine: Engine) -> UseCases:
    app = make_app(engine, clock=lambda: NOW)
    app.usecases.commands.per_topic_cap = 60
    return app.usecases


def follow(services: UseCases, caller: Caller = GROUP) -> None:
    assert services.commands.handle(caller, "follow", "rl for llm agents").ok


def digest(services: UseCases, caller: Caller = GROUP, *, offer: bool = True):
    """The chat's digest now, its papers offered for votes as when it is sent."""
    with services.session_factory() as session:
        channel = channels.find_channel(session, caller.platform, caller.chat_id)
        made = services.commands.digest_for(session, channel.id, now=NOW)
        if offer:
            feedback.offer_many(session, [(channel.id, digest_offers(made))], now=NOW)
            session.commit()
    return made


def shown(made) -> list[str]:
    return [entry.paper.arxiv_id for section in made.sections for entry in section.entries]


def vote(services: UseCases, arxiv_id: str, value: int, user: int, caller: Caller = GROUP):
    voter = Voter(caller.platform, caller.chat_id, str(user))
    return services.vote(voter, vote_data(vote_key(arxiv_id, RL), value))


def test_a_paper_voted_off_topic_leaves_that_channels_next_digest_only(
    services: UseCases, engine: Engine, catalog: Catalog
) -> None:
    ids = seed(engine, catalog, [f"Agent study {n}" for n in range(4)])
    follow(services)
    follow(services, OTHER)
    digest(services)
    digest(services, OTHER)

    assert vote(services, ids[0], DOWN, user=1).ok  # 1 👎: off-topic here
    vote(services, ids[1], DOWN, user=1)
    vote(services, ids[1], UP, user=2)  # 1 👍, 1 👎: a tie keeps it
    assert vote(services, ids[2], DOWN, user=1).ok
    vote(services, ids[2], DOWN, user=1)  # pressed again: withdrawn, so it stays

    assert sorted(shown(digest(services))) == sorted(ids[1:])
    assert sorted(shown(digest(services, OTHER))) == sorted(ids)  # its own view is untouched


def test_the_off_topic_paper_leaves_the_channels_spike_alert_too(
    services: UseCases, engine: Engine, catalog: Catalog
) -> None:
    ids = seed(engine, catalog, ["Agent study"])
    follow(services)
    digest(services)
    vote(services, ids[0], DOWN, user=1)
    with Session(engine) as session:
        channel = channels.find_channel(session, "telegram", GROUP.chat_id)
        seen = feedback.channel_feedback(session, channel.id)
    alert = spike(titles=("Kept", "Voted off"))  # papers 2609.00000 and 2609.00001
    assert [e.paper.arxiv_id for e in alert.papers] == ["2609.00000", ids[0]]
    assert [e.paper.title for e in without_off_topic(alert, seen).papers] == ["Kept"]
    assert without_off_topic(alert, None) == alert


def test_enough_votes_rank_the_next_digest_by_the_channels_taste_and_it_says_so(
    services: UseCases, engine: Engine, catalog: Catalog
) -> None:
    titles = [MEMORY.format(n=n) for n in range(8)] + [TOOLS.format(n=n) for n in range(8)]
    ids = seed(engine, catalog, titles)
    memory, tools = ids[:8], ids[8:]
    follow(services)
    before = digest(services)
    assert before.note == ""
    half = MIN_VOTED_PAPERS // 2 + 1
    for user, arxiv_id in enumerate(memory[:half]):
        vote(services, arxiv_id, UP, user=user)
    for user, arxiv_id in enumerate(tools[:half]):
        vote(services, arxiv_id, UP, user=user)
        vote(services, arxiv_id, DOWN, user=100 + user)
        vote(services, arxiv_id, DOWN, user=200 + user)

    after = digest(services)
    order = shown(after)
    unvoted_memory, unvoted_tools = memory[half:], tools[half:]
    unranked = shown(before)  # by tag score and date, the two kinds mixed
    assert max(map(unranked.index, unvoted_memory)) > min(map(unranked.index, unvoted_tools))
    assert not set(tools[:half]) & set(order)  # voted off-topic
    assert max(map(order.index, unvoted_memory)) < min(map(order.index, unvoted_tools))
    votes = half + 3 * half
    assert after.note == f"Ranked by this channel's {votes} votes"
    assert f"Ranked by this channel's {votes} votes" in render_text(after, title="Digest")


def test_forget_deletes_the_channels_votes_and_the_digest_is_as_before(
    services: UseCases, engine: Engine, catalog: Catalog
) -> None:
    ids = seed(engine, catalog, ["Agent study 1", "Agent study 2"])
    follow(services)
    digest(services)
    vote(services, ids[0], DOWN, user=1)
    assert ids[0] not in shown(digest(services, offer=False))

    member = Caller(platform="telegram", chat_id=GROUP.chat_id, chat_kind="group")
    assert not services.commands.handle(member, "forget").ok
    reply = services.commands.handle(GROUP, "forget")
    assert reply.ok and reply.text.startswith("Forgot this chat's 1 vote")
    assert sorted(shown(digest(services, offer=False))) == sorted(ids)
    late = vote(services, ids[0], DOWN, user=1)  # a button of the message before /forget
    assert not late.ok and "forgotten with /forget" in late.text
    assert services.commands.handle(GROUP, "forget").text.startswith("This chat has no votes")


def test_a_vote_on_a_paper_the_chat_never_saw_is_refused(
    services: UseCases, engine: Engine, catalog: Catalog
) -> None:
    ids = seed(engine, catalog, ["Agent study 1"])
    follow(services)
    follow(services, OTHER)
    digest(services, OTHER)  # shown in the other chat only
    refused = vote(services, ids[0], UP, user=1)
    assert not refused.ok and "not sent to this chat" in refused.text
    stranger = services.vote(Voter("telegram", "-999", "1"), vote_data(vote_key(ids[0], RL), UP))
    assert not stranger.ok  # a chat the bot never saw
    assert services.export_votes(RL) == []


def test_votes_export_as_gold_lines_that_eval_reads(
    services: UseCases,
    engine: Engine,
    catalog: Catalog,
    env: str,
    tmp_path,
    capsys: pytest.CaptureFixture,
) -> None:
    ids = seed(engine, catalog, ["Liked", "Disliked", "Split"])
    follow(services)
    follow(services, OTHER)
    digest(services)
    digest(services, OTHER)
    vote(services, ids[0], UP, user=1)
    vote(services, ids[0], UP, user=1, caller=OTHER)
    vote(services, ids[1], DOWN, user=1)
    vote(services, ids[2], DOWN, user=1)
    vote(services, ids[2], UP, user=2)

    out = tmp_path / "votes.jsonl"
    assert main(["feedback", "export", "--topic", "RL for LLM Agents", "--output", str(out)]) == 0
    assert "3 papers voted on under RL for LLM Agents" in capsys.readouterr().err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["labels"]) for r in rows] == [
        (ids[0], {RL: "yes"}),
        (ids[1], {RL: "no"}),
        (ids[2], {RL: "borderline"}),
    ]
    assert rows[0]["votes"] == {"up": 2, "down": 0, "channels": 2}
    assert "voter" not in out.read_text()
    assert [paper.arxiv_id for paper in load_gold(out)] == ids


def test_the_scheduled_digest_of_a_channel_that_voted_is_its_own(
    services: UseCases, engine: Engine, catalog: Catalog
) -> None:
    ids = seed(engine, catalog, ["Agent study 1", "Agent study 2"])
    follow(services)
    follow(services, OTHER)
    digest(services)
    vote(services, ids[0], DOWN, user=1)
    week = Occurrence("weekly", "2026-W40", NOW, NOW.date() - timedelta(days=6), NOW.date())
    with services.session_factory() as session:
        due = [
            (channels.find_channel(session, "telegram", caller.chat_id).id, week)
            for caller in (GROUP, OTHER)
        ]
        voted, other = plan_digests(session, catalog, due, per_topic_cap=60)
    assert shown(voted.digest) == [ids[1]]
    assert sorted(shown(other.digest)) == sorted(ids)


@pytest.mark.parametrize("batch", [1_000, 2], ids=["one-batch", "batches-of-two"])
def test_a_broadcast_offers_every_channel_its_papers_once_so_votes_count_in_each(
    make_app: Callable[..., App],
    engine: Engine,
    catalog: Catalog,
    batch: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # With batches of two, the three chats are read, stored and offered in two batches.
    monkeypatch.setattr("digests.usecases.app.STORE_BATCH", batch)
    monkeypatch.setattr("digests.usecases.digest_planning.PLAN_BATCH", batch)
    ids = seed(engine, catalog, ["Agent study 1", "Agent study 2", "Agent study 3"])
    now = [NOW]
    app = make_app(engine, clock=lambda: now[0], settings={"telegram_token": "1:test"})
    services = app.usecases
    services.add_platform(build_telegram(app.settings, services))  # renders; never started
    for caller in (GROUP, OTHER, THIRD):
        follow(services, caller)
    digest(services, GROUP)  # asked for now: GROUP was offered these papers already

    now[0] = NOW + timedelta(days=7)  # next Monday: every chat's weekly digest is due
    assert services.plan_digests("weekly", every_schedule=True) == (3, 0)

    for caller in (GROUP, OTHER, THIRD):
        assert vote(services, ids[0], UP, user=1, caller=caller).ok
    with Session(engine) as session:
        offers = session.exec(select(VoteOffer.channel_id, VoteOffer.offered_at)).all()
        group = channels.find_channel(session, "telegram", GROUP.chat_id).id
    assert len(offers) == 3 * len(ids)  # each paper once per chat
    assert {at for channel_id, at in offers if channel_id == group} == {NOW}  # the first offer


def test_export_names_what_went_wrong_and_writes_nothing_half(
    env: str, tmp_path, capsys: pytest.CaptureFixture
) -> None:
    unknown = main(["feedback", "export", "--topic", "<script>no such topic</script>"])
    assert unknown != 0 and "no such topic" in capsys.readouterr().err
    a_directory = main(["feedback", "export", "--topic", "RL for LLM Agents", "--output", "."])
    assert a_directory == 1 and "cannot write" in capsys.readouterr().err
    assert main(["feedback", "export", "--topic", "rl-for-llm-agents"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "0 papers voted on" in captured.err


def test_a_vote_the_store_cannot_write_gets_the_trouble_reply_and_counts_nothing(
    services: UseCases, engine: Engine, catalog: Catalog
) -> None:
    ids = seed(engine, catalog, ["Agent study"])
    follow(services)
    digest(services)
    with read_only(services.session_factory().get_bind()):
        refused = vote(services, ids[0], UP, user=1)
    assert not refused.ok and refused.text == f"Sorry: {STORE_TROUBLE}."
    assert vote(services, ids[0], UP, user=1).text.startswith("👍 counted")
