"""Every real arXiv document recorded in ../shared/data/arxiv-recorded/, ingested for real.

The expected counts were read off the documents themselves: entries per file, and for the
listings each item's announce type and id (a `cross` of 2205.06398v2 is a 2022 paper).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlmodel import Session

from bot.cli import main
from digests.papers.feeds import FeedError, parse_document
from digests.store.models import Paper
from digests.topics.tagger import Tagger
from digests.usecases.ingest import IngestReport, ingest_parsed, sync_catalog
from digests.usecases.reports import topic_momenta
from tests.shared_data import shared_dir

NOW = datetime(2026, 9, 28, 6, 0, tzinfo=UTC)
LAYA = "rss_new_laya_combined_2026-09-24.xml"  # 2 new, an old cross-list, a replacement
PAPERFORGE = "atom_listing_paperforge_cs_lg_2026-09-25.xml"  # new, old cross, replacement
SUNDAY = "rss_new_empty_cs_2026-03-29.xml"
RETIRED_RDF = "rss_old_rdf_hepex_2018.xml"
BAD_ID = "api2026_id_abc_s0_m100_b79c8dcf6bc3.xml"

# file: (read, new, earlier, updated, skipped); every paper is stored once, nothing skipped.
EXPECTED = {
    "api2026_brevio_cslg_ai_m20.xml": (20, 20, 0, 0, 0),
    "api2026_id_0000.0000_s0_m100_8b51d9633a68.xml": (0, 0, 0, 0, 0),  # no such paper
    "api2026_id_0808.05394_1707.08567_s0_m100_42e5aa0ec3af.xml": (1, 1, 0, 0, 0),
    "api2026_id_0808.05394_s0_m100_7b0c7d0a7cdd.xml": (0, 0, 0, 0, 0),
    "api2026_id_1605.08386_s0_m100_199195aa31ad.xml": (1, 1, 0, 0, 0),
    "api2026_id_1707.08567_s0_m100_6a1afebfc6a3.xml": (1, 1, 0, 0, 0),
    "api2026_id_2104.12255v1_s0_m100_6ae69987ffe1.xml": (1, 1, 0, 0, 0),
    "api2026_id_astro-ph_0601001_s0_m100_3150dca9dc76.xml": (1, 1, 0, 0, 0),
    "api2026_id_quant-ph_0201082v1_s0_m100_86989fe779ef.xml": (1, 1, 0, 0, 0),
    "api2026_q_testing_s0_m100_cfe7536492ca.xml": (100, 100, 0, 0, 0),
    "api2026_q_testing_s0_m10_bc5a6c384fe9.xml": (10, 10, 0, 0, 0),
    "api2026_q_testing_s0_m15_80c242b59d59.xml": (15, 15, 0, 0, 0),
    "api2026_q_testing_s10_m10_34e56e15aaac.xml": (10, 10, 0, 0, 0),
    "api2026_q_testing_s20_m10_348a237fecab.xml": (10, 10, 0, 0, 0),
    "api2026_q_testing_s30_m10_f2e39f0143dc.xml": (10, 10, 0, 0, 0),
    "api2026_q_testing_s40_m10_96dd32eb854c.xml": (10, 10, 0, 0, 0),
    "api2026_q_testing_s50_m10_7f488ab8598c.xml": (10, 10, 0, 0, 0),
    "api2026_q_testing_s5_m10_c0e94a259d4a.xml": (10, 10, 0, 0, 0),
    "api2026_q_testing_s5_m15_bbcf6b23085b.xml": (15, 15, 0, 0, 0),
    "api2026_q_testing_s9_m15_0b78d4b4d476.xml": (15, 15, 0, 0, 0),
    "api_delmaestro_2016.xml": (10, 10, 0, 0, 0),
    "api_delmaestro_andnot_2016.xml": (10, 10, 0, 0, 0),
    "api_delmaestro_checkerboard_2016.xml": (1, 1, 0, 0, 0),
    "api_diproposal_einstein_2018.xml": (10, 10, 0, 0, 0),
    "api_id_1111.2011v2_2016.xml": (1, 1, 0, 0, 0),
    "api_meriemnour_electron.xml": (10, 10, 0, 0, 0),
    PAPERFORGE: (3, 1, 2, 0, 0),
    "rss_new_cs_ai_2026-04.xml": (3, 3, 0, 0, 0),
    "rss_new_cs_cl_2026-04.xml": (3, 3, 0, 0, 0),
    "rss_new_cs_lg_2026-04.xml": (3, 3, 0, 0, 0),
    SUNDAY: (0, 0, 0, 0, 0),
    LAYA: (4, 2, 2, 0, 0),
}
REFUSED = {
    BAD_ID: "arXiv API error: incorrect id format for abc",
    RETIRED_RDF: "this is arXiv's retired RSS 1.0 (RDF) listing format; use the current feeds",
}


def recorded_dir() -> Path:
    return shared_dir("data", "arxiv-recorded", pattern="*.xml")


def recorded(name: str) -> Path:
    return recorded_dir() / name


def ingest(engine, catalog, *names: str) -> list[IngestReport]:
    tagger = Tagger(catalog)
    reports = []
    with Session(engine) as session:
        sync_catalog(session, catalog=catalog, tagger=tagger, now=NOW)
        for name in names:
            parsed = parse_document(recorded(name).read_bytes(), name=name)
            reports.append(ingest_parsed(session, parsed, tagger=tagger, catalog=catalog, now=NOW))
        session.commit()
    return reports


def counts(report: IngestReport) -> tuple[int, ...]:
    return report.read, report.new, report.earlier, report.updated, len(report.skipped)


def test_every_recorded_document_is_covered_here():
    names = sorted(p.name for p in recorded_dir().glob("*.xml"))
    assert names == sorted([*EXPECTED, *REFUSED])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_recorded_document_is_ingested_with_its_expected_counts(engine, catalog, name):
    [report] = ingest(engine, catalog, name)

    assert counts(report) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_recorded_document_digestbot_cannot_use_is_refused_in_one_line(name):
    with pytest.raises(FeedError, match=re.escape(REFUSED[name])):
        parse_document(recorded(name).read_bytes(), name=name)


def test_reading_every_recorded_document_twice_stores_each_paper_once(engine, catalog):
    names = sorted(EXPECTED)
    first = ingest(engine, catalog, *names)
    again = ingest(engine, catalog, *names)

    stored = sum(report.new + report.earlier for report in first)
    assert stored == 173  # distinct ids across the documents; overlapping pages add nothing
    assert all((r.new, r.earlier, r.updated, r.unchanged) == (0, 0, 0, r.read) for r in again)
    with Session(engine) as session:
        assert len(session.execute(select(Paper.id)).all()) == 173


def buckets(report: IngestReport) -> int:
    kept = report.new + report.earlier + report.updated + report.unchanged + report.superseded
    return kept + len(report.skipped)


def test_every_entry_read_counts_in_exactly_one_bucket_first_time_and_again(engine, catalog):
    names = sorted(EXPECTED)
    for report in ingest(engine, catalog, *names) + ingest(engine, catalog, *names):
        assert buckets(report) == report.read


def first_versions(engine) -> dict[str, tuple[date, str | None, str | None]]:
    with Session(engine) as session:
        columns = (Paper.arxiv_id, Paper.published_on, Paper.doi, Paper.journal_ref)
        return {row.arxiv_id: tuple(row[1:]) for row in session.execute(select(*columns))}


def test_listing_cross_lists_and_replacements_count_on_their_first_version(engine, catalog):
    ingest(engine, catalog, LAYA, PAPERFORGE)

    papers = first_versions(engine)
    assert papers["2609.26811"][0] == date(2026, 9, 24)  # new that day
    assert papers["2205.06398"] == (date(2022, 5, 1), "10.1093/bioinformatics/btac431", None)
    assert papers["2009.13987"][0] == date(2020, 9, 1)
    assert papers["2402.10149"][:2] == (date(2024, 2, 1), "10.1103/PhysRevD.111.032004")
    assert papers["2609.28553"] == (
        date(2026, 9, 25),
        "10.1109/MAPR72750.2026.11685822",
        "2026 International Conference on Multimedia Analysis and Pattern Recognition (MAPR)",
    )


def test_the_recorded_listing_of_two_new_papers_adds_exactly_two_to_total(engine, catalog):
    ingest(engine, catalog, LAYA)

    with Session(engine) as session:
        momenta = topic_momenta(session, catalog.topics, as_of=date(2026, 9, 24))
    assert {(m.total, m.previous_total) for m in momenta.values()} == {(2, 0)}


def test_msc_class_terms_of_recorded_papers_are_not_stored_as_categories(engine, catalog):
    ingest(engine, catalog, "api_diproposal_einstein_2018.xml")

    with Session(engine) as session:
        categories = {c for row in session.execute(select(Paper.categories)) for c in row[0]}
    assert categories and all(c[0].isalpha() and " " not in c for c in categories)
    assert "53D10, 53D15" not in categories


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, sqlite_url: str, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", sqlite_url)


def test_an_empty_listing_exits_0_with_no_new_announcements(cli_env, capsys):
    assert main(["ingest", "--file", str(recorded(SUNDAY))]) == 0
    out = capsys.readouterr().out
    assert out.startswith("no new announcements") and out.count("\n") == 1


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_refused_document_exits_1_with_one_line(cli_env, capsys, name):
    assert main(["ingest", "--file", str(recorded(name))]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and REFUSED[name] in err
