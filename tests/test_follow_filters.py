"""Following a search, an author or a category: it behaves like a topic in every command."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session

from bot.cli import main
from digests.follows.filters import MAX_FOLLOWS
from digests.store import channels, follow_filters
from digests.store.engine import open_engine
from digests.topics.tagger import Tagger
from digests.usecases.commands import Caller, CommandService
from digests.usecases.ingest import ingest_records, sync_catalog
from tests.fakes.discord_bot import EPHEMERAL
from tests.fakes.discord_server import GENERAL_ID
from tests.fakes.telegram_bot import NOW as TG_NOW
from tests.fakes.telegram_bot import PRIVATE as TG_PRIVATE
from tests.papers import jsonl_line, paper_record, seed_agent_papers

pytestmark = pytest.mark.usefixtures("ptb_timedelta")  # for the Telegram bot
NOW = datetime(2026, 9, 28, 12, 0, tzinfo=UTC)
PRIVATE = Caller(platform="telegram", chat_id="42", chat_kind="private")
WORLD_MODELS = 'query: "world model" AND (agent OR agents) NOT survey'


@pytest.fixture(scope="module")
def tagger(catalog) -> Tagger:
    return Tagger(catalog)


@pytest.fixture
def service(engine, catalog) -> CommandService:
    ticks = itertools.count()
    return CommandService(
        lambda: Session(engine, expire_on_commit=False),
        catalog,
        clock=lambda: NOW + timedelta(seconds=next(ticks)),
        per_topic_cap=20,
    )


def ingest(engine, catalog, tagger, records, *, now=NOW) -> None:
    with Session(engine) as session:
        sync_catalog(session, catalog=catalog, tagger=tagger, now=now)
        ingest_records(session, records, tagger=tagger, catalog=catalog, now=now)
        session.commit()


def papers(start: int, now: datetime) -> list:
    """Three papers that match WORLD_MODELS (one by an accented author) and two that do not."""
    texts = [
        ("World models for embodied agents", "An agent learns a world model.", "Sérgey Lévine"),
        ("Planning with a World-Model", "Agents plan in latent space.", "S. Levine"),
        ("Learned world models", "We study one agent and its world model.", "Ada Lovelace"),
        ("A survey of world models", "World model agents, surveyed.", "Sergey Levine"),
        ("Diffusion policies", "Robots act with diffusion.", "Samuel Levine"),
    ]
    return [
        paper_record(
            start + n,
            now - timedelta(days=1),
            title=title,
            abstract=abstract,
            authors=(author, "Alan Turing"),
            categories=("cs.RO",) if n == 4 else ("cs.LG",),
        )
        for n, (title, abstract, author) in enumerate(texts)
    ]


def section(service: CommandService, caller: Caller, name: str) -> list[str]:
    with service.session_factory() as session:
        channel = channels.find_channel(session, caller.platform, caller.chat_id)
        digest = service.digest_for(session, channel.id, now=service.clock())
    (found,) = [s for s in digest.sections if s.topic.name == name]
    return [entry.paper.title for entry in found.entries]


def test_a_query_follow_gets_its_own_digest_section_with_old_and_new_matches(
    service, engine, catalog, tagger
):
    ingest(engine, catalog, tagger, papers(1, NOW - timedelta(days=2)), now=NOW - timedelta(days=2))
    reply = service.handle(PRIVATE, "follow", WORLD_MODELS)
    name = 'Search: "world model" AND (agent OR agents) NOT survey'
    assert reply.ok and reply.text.startswith(f"Following {name}.")

    ingest(engine, catalog, tagger, papers(10, NOW), now=NOW)  # new papers, matched on ingest
    shown = section(service, PRIVATE, name)
    assert sorted(shown) == sorted(
        ["World models for embodied agents", "Planning with a World-Model", "Learned world models"]
        * 2
    )
    assert f"{name}: 6 papers in the last four weeks" in service.handle(PRIVATE, "following").text


def test_a_revised_paper_leaves_a_search_it_matches_no_more_and_stays_in_one_it_still_matches(
    service, engine, catalog, tagger
):
    first = papers(1, NOW - timedelta(days=1))
    ingest(engine, catalog, tagger, first, now=NOW - timedelta(days=1))
    assert service.handle(PRIVATE, "follow", WORLD_MODELS).ok
    revised = [
        replace(first[0], version=2, title="Embodied agents", abstract="An agent acts."),
        replace(first[1], version=2, abstract="Agents plan in latent space; a world model helps."),
    ]
    ingest(engine, catalog, tagger, revised, now=NOW)
    name = 'Search: "world model" AND (agent OR agents) NOT survey'
    assert sorted(section(service, PRIVATE, name)) == [
        "Learned world models",
        "Planning with a World-Model",
    ]


def test_an_author_follow_finds_the_name_however_it_is_written(service, engine, catalog, tagger):
    ingest(engine, catalog, tagger, papers(1, NOW), now=NOW)
    assert service.handle(PRIVATE, "follow", 'author: "Levine, Sergey"').ok
    shown = section(service, PRIVATE, "Author: Sergey Levine")
    assert sorted(shown) == [
        "A survey of world models",
        "Planning with a World-Model",
        "World models for embodied agents",
    ]


def test_a_category_follow_and_a_catalog_topic_sit_side_by_side(service, engine, catalog, tagger):
    ingest(engine, catalog, tagger, papers(1, NOW), now=NOW)
    service.handle(PRIVATE, "follow", "category: CS.ro")
    service.handle(PRIVATE, "follow", "RL for LLM Agents")
    assert section(service, PRIVATE, "Category: cs.RO (Robotics)") == ["Diffusion policies"]
    listed = service.handle(PRIVATE, "following").text.splitlines()
    assert listed[0].startswith("Category: cs.RO (Robotics): 1 paper in the last four weeks")
    assert listed[1].startswith("RL for LLM Agents: ")


def test_unfollowing_a_search_by_what_was_typed_stops_it(service, engine, catalog, tagger):
    service.handle(PRIVATE, "follow", "query: world model")
    reply = service.handle(PRIVATE, "unfollow", "query: world   model")
    assert reply.text == "Stopped following Search: world model."
    assert "no topics yet" in service.handle(PRIVATE, "following").text


def test_a_malformed_query_gets_its_position_and_follows_nothing(service):
    reply = service.handle(PRIVATE, "follow", "query: agents AND (tools OR")
    assert not reply.ok and reply.text == "query: the query ends too early, at column 21."
    assert "no topics yet" in service.handle(PRIVATE, "following").text


def test_a_twenty_sixth_follow_of_any_kind_is_refused(service):
    for n in range(MAX_FOLLOWS - 1):
        assert service.handle(PRIVATE, "follow", f"query: word{n}").ok
    assert service.handle(PRIVATE, "follow", "RL for LLM Agents").ok
    refused = service.handle(PRIVATE, "follow", "author: S. Levine")
    assert not refused.ok and "follows 25 topics, searches, authors and categories" in refused.text
    assert service.handle(PRIVATE, "follow", "query: word3 daily").ok  # a change, not a 26th


def test_while_typing_follow_offers_a_search_when_no_topic_matches(service):
    offered = service.complete_topics("world model agents")
    assert offered[-1].label == "Search: “world model agents”"
    assert offered[-1].value == "query: world model agents"
    assert all(
        c.label.startswith("Search") is False for c in service.complete_topics("RL for LLM Agents")
    )
    categories = service.complete_topics("category: cs.r")
    assert categories[0].value == "category: cs.RO"


# --- the command line ------------------------------------------------------------------------


def test_the_cli_previews_a_search_and_counts_an_authors_momentum_storing_nothing(
    env, tmp_path, capsys
):
    yesterday = (datetime.now(UTC) - timedelta(days=1)).date().isoformat()
    path = tmp_path / "papers.jsonl"
    path.write_text(
        "\n".join(
            jsonl_line(f"2609.0000{n}", title, yesterday, authors=[author])
            for n, (title, author) in enumerate(
                [("World models for agents", "Sergey Levine"), ("Diffusion", "S. Levine")], 1
            )
        )
        + "\n"
    )
    main(["ingest", "--file", str(path)])
    capsys.readouterr()

    assert main(["preview", "--follow", 'query: "world model" OR "world models"']) == 0
    out = capsys.readouterr().out
    assert "World models for agents" in out and "Diffusion" not in out
    assert main(["momentum", "author: Levine, Sergey", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["count"] == 2
    assert main(["momentum", "query: agents AND (tools"]) == 2
    assert "never closed" in capsys.readouterr().err
    with Session(open_engine(env)) as session:
        assert follow_filters.all_filters(session) == []  # a preview follows nothing


# --- in the chats ----------------------------------------------------------------------------


async def test_in_telegram_a_query_follow_is_confirmed_listed_and_in_the_digest(
    telegram_bot,
    catalog,
) -> None:
    seed_agent_papers(telegram_bot.engine, catalog, hostile="<b>x</b>", now=TG_NOW, count=5)
    answer = await telegram_bot.say(TG_PRIVATE, TG_PRIVATE, '/follow query: "agent study" NOT long')
    assert answer["message"]["text"].startswith('Following Search: "agent study" NOT long.')
    listed = await telegram_bot.say(TG_PRIVATE, TG_PRIVATE, "/following")
    assert listed["message"]["text"].startswith('Search: "agent study" NOT long: 3 papers')
    digest = telegram_bot.digest(TG_PRIVATE)
    assert [s.topic.name for s in digest.sections] == ['Search: "agent study" NOT long']
    refused = await telegram_bot.say(TG_PRIVATE, TG_PRIVATE, "/follow query: agents AND (tools")
    assert "the parenthesis at column 12 is never closed" in refused["message"]["text"]


async def test_in_discord_follow_autocomplete_offers_a_search_and_category_ids(
    discord_bot,
) -> None:
    offered = await discord_bot.choices("follow", "topic", {"topic": "world model agents"})
    search = {"name": "Search: “world model agents”", "value": "query: world model agents"}
    assert offered[-1] == search
    categories = await discord_bot.choices("follow", "topic", {"topic": "category: cs.r"})
    assert categories[0] == {"name": "Category: cs.RO (Robotics)", "value": "category: cs.RO"}

    answer = await discord_bot.follow(search["value"])
    assert answer["content"].startswith("Following Search: world model agents.")
    answer = await discord_bot.follow(categories[0]["value"])
    assert answer["content"].startswith("Following Category: cs.RO (Robotics).")
    assert len(discord_bot.follows(GENERAL_ID)) == 2

    # Tried: a search too long for a Discord choice (100 characters) is not offered, a hostile
    # one is offered as typed (choices are never rendered as markdown), a malformed one is
    # refused on /follow with where it went wrong, privately, following nothing more.
    too_long = await discord_bot.choices("follow", "topic", {"topic": "agents " * 30})
    assert not [c for c in too_long if c["value"].startswith("query:")]
    hostile = await discord_bot.choices("follow", "topic", {"topic": "@everyone <script>"})
    assert hostile[-1]["value"] == "query: @everyone <script>"
    refused = await discord_bot.follow("query: agents AND (tools")
    assert refused["content"] == "query: the parenthesis at column 12 is never closed."
    assert refused["flags"] & EPHEMERAL and len(discord_bot.follows(GENERAL_ID)) == 2
