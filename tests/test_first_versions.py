"""Listing items count on their paper's first-version date, whatever announced them."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from sqlalchemy import select
from sqlmodel import Session

from digests.papers.feeds import parse_listing
from digests.papers.first_versions import FROM_API, FROM_ID, date_listed, ids_to_look_up
from digests.store.models import Paper, PaperTopic
from digests.topics.tagger import Tagger
from digests.usecases.ingest import ingest_parsed, sync_catalog
from digests.usecases.reports import topic_momenta
from tests.fakes.arxiv_docs import paper, rss_listing

ANNOUNCED = datetime(2026, 9, 24, 4, 0, tzinfo=UTC)  # the listing of Thursday 24 September
LISTING_DAY = ANNOUNCED.date()
AGENT_RL_TITLE = "Agentic reinforcement learning for LLM agents"
AGENT_RL = (
    "We train large language model agents with reinforcement learning over multi-turn tool "
    "use, with rewards for every step."
)


def listed(*papers: dict) -> list:
    return parse_listing(rss_listing(list(papers), announced=ANNOUNCED)).records


def cross(arxiv_id: str, version: int = 1) -> dict:
    return paper(1, id=arxiv_id, version=version, announce_type="cross")


def replacement(arxiv_id: str, version: int = 2, kind: str = "replace") -> dict:
    return paper(1, id=arxiv_id, version=version, announce_type=kind)


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


@pytest.mark.parametrize(
    ("item", "from_api", "first_version", "earlier"),
    [
        (paper(1, id="2609.26811"), None, LISTING_DAY, None),
        # A 2022 paper cross-listed today, and older ones replaced: dated by their ids.
        (cross("2205.06398", version=2), None, date(2022, 5, 1), FROM_ID),
        (replacement("2009.13987", version=3), None, date(2020, 9, 1), FROM_ID),
        (replacement("2401.08875", kind="replace-cross"), None, date(2024, 1, 1), FROM_ID),
        # A first version cross-listed in its own month: a new submission, new today...
        (cross("2609.26900"), None, LISTING_DAY, None),
        (cross("2609.26901"), utc(2026, 9, 22, 17), LISTING_DAY, None),
        # ...unless the API says it came out weeks before.
        (cross("2609.00102"), utc(2026, 9, 2, 9), date(2026, 9, 2), FROM_API),
        (cross("2607.01234"), None, date(2026, 7, 1), FROM_ID),
        (replacement("2608.04321"), utc(2026, 8, 11), date(2026, 8, 11), FROM_API),
    ],
    ids=[
        "new",
        "old-cross",
        "replace",
        "replace-cross",
        "fresh-cross",
        "fresh-cross-api",
        "cross-api",
        "cross-2-months",
        "replace-api",
    ],
)
def test_each_listing_item_is_dated_by_its_first_version(item, from_api, first_version, earlier):
    [record] = listed(item)
    looked_up = {record.arxiv_id: from_api} if from_api else {}

    dated = date_listed([record], held=set(), looked_up=looked_up)

    assert dated.records[0].first_version_date == first_version
    assert dated.earlier.get(record.arxiv_id) == earlier


def test_a_held_paper_is_left_to_the_store_which_keeps_its_date():
    [record] = listed(replacement("2607.01234"))

    dated = date_listed([record], held={"2607.01234"}, looked_up={})

    assert dated.records == [record] and dated.earlier == {}


def test_only_papers_not_held_whose_day_could_show_in_a_histogram_are_looked_up():
    records = listed(
        paper(1, id="2609.26811"),  # new: dated by the listing
        cross("2205.06398", version=2),  # 2022: the id will do
        replacement("2607.00001"),  # July: inside the 12 weeks before the listing
        replacement("2606.00001"),  # June: before them
        replacement("2609.00005"),  # held
    )

    assert ids_to_look_up(records, held={"2609.00005"}) == ["2607.00001"]


def ingest_listing_doc(engine, catalog, papers: list[dict], announced: datetime = ANNOUNCED):
    tagger = Tagger(catalog)
    with Session(engine) as session:
        sync_catalog(session, catalog=catalog, tagger=tagger, now=announced)
        doc = parse_listing(rss_listing(papers, announced=announced))
        report = ingest_parsed(session, doc, tagger=tagger, catalog=catalog, now=announced)
        session.commit()
    return report


def test_tags_earned_by_a_new_version_are_dated_by_the_first_version(engine, catalog):
    first = paper(1, id="2608.00001", title="Sparse attention kernels", abstract="Faster kernels.")
    ingest_listing_doc(engine, catalog, [first], announced=utc(2026, 8, 3, 4))
    revised = {**replacement("2608.00001"), "title": AGENT_RL_TITLE, "abstract": AGENT_RL}

    report = ingest_listing_doc(engine, catalog, [revised])

    assert (report.updated, report.tags_added > 0) == (1, True)
    with Session(engine) as session:
        days = set(session.execute(select(PaperTopic.published_on)).scalars())
        assert days == {date(2026, 8, 3)}
        assert session.execute(select(Paper.published_on)).scalar_one() == date(2026, 8, 3)


def test_two_new_papers_an_old_cross_list_and_a_replacement_add_exactly_two(engine, catalog):
    ingest_listing_doc(engine, catalog, [paper(9, id="2607.00009")], announced=utc(2026, 7, 2))
    listing = [
        {**paper(1, id="2609.26811"), "title": AGENT_RL_TITLE, "abstract": AGENT_RL},
        paper(2, id="2609.26820"),
        {**cross("2205.06398", version=2), "title": AGENT_RL_TITLE, "abstract": AGENT_RL},
        {**replacement("2607.00009"), "title": AGENT_RL_TITLE, "abstract": AGENT_RL},
    ]

    report = ingest_listing_doc(engine, catalog, listing)

    assert (report.read, report.new, report.earlier, report.updated) == (4, 2, 1, 1)
    with Session(engine) as session:
        momenta = topic_momenta(session, catalog.topics, as_of=LISTING_DAY)
    assert {m.total for m in momenta.values()} == {2}
    assert momenta["rl-for-llm-agents"].count == 1
