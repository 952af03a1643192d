"""Reading arXiv documents and import files into paper records."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from digests.papers.feeds import (
    FeedError,
    Skip,
    parse_api_atom,
    parse_document,
    parse_jsonl,
    parse_listing,
)
from tests.fakes.arxiv_docs import (
    api_entry,
    api_error_feed,
    api_feed,
    atom_listing,
    atom_listing_entry,
    jsonl,
    jsonl_line,
    paper,
    rss_item,
    rss_listing,
)

ANNOUNCED = datetime(2026, 5, 5, 0, 0, tzinfo=UTC)


def test_api_entry_becomes_a_record_with_every_field() -> None:
    doc = api_feed(
        [
            paper(
                7,
                version=3,
                categories=["cs.LG", "cs.AI", "stat.ML"],
                published=datetime(2026, 5, 1, 17, 59, 30, tzinfo=UTC),
                updated=datetime(2026, 5, 9, 8, 0, tzinfo=UTC),
                comment="12 pages,\n  4 figures",
                doi="10.1000/xyz.7",
                journal_ref="J. Mach. Learn. 7 (2026)",
            )
        ],
        total=41,
        start=20,
    )

    feed = parse_api_atom(doc)

    assert (feed.kind, feed.total_results, feed.read) == ("api-atom", 41, 1)
    [record] = feed.records
    assert (record.arxiv_id, record.version) == ("2605.00007", 3)
    assert record.title == "Paper number 7 on sparse attention"
    assert record.abstract == "We study problem 7. It matters a lot."
    assert record.authors == ("Ada Lovelace", "Alan Turing")
    assert record.affiliations == ("Analytical Engines Ltd",)
    # The builder lists categories alphabetically, as arXiv does; the primary one comes first.
    assert record.categories == ("cs.LG", "cs.AI", "stat.ML")
    assert record.published == datetime(2026, 5, 1, 17, 59, 30, tzinfo=UTC)
    assert record.updated == datetime(2026, 5, 9, 8, 0, tzinfo=UTC)
    assert record.comment == "12 pages, 4 figures"
    assert record.doi == "10.1000/xyz.7"
    assert record.journal_ref == "J. Mach. Learn. 7 (2026)"
    assert record.links == {
        "abs": "https://arxiv.org/abs/2605.00007v3",
        "pdf": "https://arxiv.org/pdf/2605.00007v3",
        "doi": "https://doi.org/10.1000/xyz.7",
    }
    assert (record.announce_type, record.announced) == ("", None)


def test_api_error_feed_raises_with_arxivs_message() -> None:
    with pytest.raises(FeedError, match="incorrect id format for 1234"):
        parse_api_atom(api_error_feed("incorrect id format for 1234"))


@pytest.mark.parametrize("build", [rss_listing, atom_listing], ids=["rss", "atom"])
def test_listing_items_keep_how_and_when_they_were_announced(build) -> None:
    papers = [
        paper(1, announce_type="new"),
        paper(2, announce_type="cross", categories=["stat.ML", "cs.LG"]),
        paper(3, announce_type="replace", version=2),
        paper(4, announce_type="replace-cross", version=4),
    ]

    feed = parse_listing(build(papers, announced=ANNOUNCED))

    assert feed.kind == ("rss-listing" if build is rss_listing else "atom-listing")
    assert [(r.arxiv_id, r.version, r.announce_type) for r in feed.records] == [
        ("2605.00001", 1, "new"),
        ("2605.00002", 1, "cross"),
        ("2605.00003", 2, "replace"),
        ("2605.00004", 4, "replace-cross"),
    ]
    assert {r.announced for r in feed.records} == {ANNOUNCED}
    first, cross = feed.records[:2]
    assert first.abstract == "We study problem 1. It matters a lot."
    assert first.authors == ("Ada Lovelace", "Alan Turing")
    assert first.published == ANNOUNCED  # listings carry the announcement date only
    assert cross.categories == ("stat.ML", "cs.LG")
    assert first.abs_url == "https://arxiv.org/abs/2605.00001"


@pytest.mark.parametrize("build", [rss_listing, atom_listing], ids=["rss", "atom"])
def test_listing_items_carry_their_doi_and_journal_reference(build) -> None:
    published = paper(1, doi="10.1103/PhysRevD.111.032004", journal_ref="Phys. Rev. D 111")

    [record] = parse_listing(build([published], announced=ANNOUNCED)).records

    assert (record.doi, record.journal_ref) == ("10.1103/PhysRevD.111.032004", "Phys. Rev. D 111")


def test_msc_and_acm_class_terms_are_not_categories() -> None:
    entry = api_entry(paper(1, categories=["math.DG", "hep-th"])).replace(
        "</entry>",
        '<category term="53D10, 53D15" scheme="http://arxiv.org/schemas/atom"/>'
        '<category term="I.2.7; F.4.1" scheme="http://arxiv.org/schemas/atom"/></entry>',
    )

    [record] = parse_api_atom(api_feed(entries=[entry])).records

    assert record.categories == ("math.DG", "hep-th")


def test_empty_listing_on_a_day_without_announcements_is_not_an_error() -> None:
    feed = parse_document(rss_listing([]))

    assert (feed.kind, feed.records, feed.skipped, feed.read) == ("rss-listing", [], [], 0)


@pytest.mark.parametrize(
    "document",
    [
        b'<?xml version="1.0"?><rss version="2.0"><channel><title>Cat pictures</title>'
        b"<link>https://cats.example/</link></channel></rss>",
        b'<feed xmlns="http://www.w3.org/2005/Atom"><title>A blog</title></feed>',
    ],
    ids=["rss", "atom"],
)
def test_an_empty_feed_that_is_not_arxivs_is_still_an_error(document: bytes) -> None:
    with pytest.raises(FeedError, match="not an arXiv feed"):
        parse_document(document)


def test_jsonl_import_keeps_upstream_topics() -> None:
    lines = [
        jsonl_line(paper(1, topics=["LLM agents", "rl-from-feedback"], version=2)),
        "",
        '{"id": "2605.00002", "title": "Dated only", "abstract": "", "authors": [],'
        ' "categories": ["cs.CL"], "published": "2026-05-03"}',
    ]

    feed = parse_document(jsonl(lines=lines), name="export.jsonl")

    assert (feed.kind, feed.read, feed.skipped) == ("jsonl", 2, [])
    tagged, dated = feed.records
    assert tagged.upstream_topics == ("LLM agents", "rl-from-feedback")
    assert tagged.version == 2
    assert tagged.categories == ("cs.LG", "cs.AI")
    assert dated.published == datetime(2026, 5, 3, tzinfo=UTC)
    assert dated.upstream_topics == ()


def test_broken_json_line_is_reported_by_line_number_and_the_rest_kept() -> None:
    lines = [
        jsonl_line(paper(1)),
        jsonl_line(paper(2)),
        '{"id": "2605.00003" "title": "missing comma"}',
        jsonl_line(paper(4, id="not-an-id")),
        jsonl_line(paper(5)),
    ]

    feed = parse_jsonl(jsonl(lines=lines))

    assert [r.arxiv_id for r in feed.records] == ["2605.00001", "2605.00002", "2605.00005"]
    assert feed.skipped == [
        Skip("line 3", "invalid JSON: Expecting ',' delimiter (col 21)"),
        Skip("line 4", "not an arXiv id: 'not-an-id'"),
    ]
    assert feed.read == 5


def test_jsonl_file_whose_first_line_is_broken_is_still_read() -> None:
    doc = jsonl(lines=["oops, a stray line", jsonl_line(paper(1))])

    feed = parse_document(doc, name="export.jsonl")

    assert [r.arxiv_id for r in feed.records] == ["2605.00001"]
    assert feed.skipped == [Skip("line 1", "invalid JSON: Expecting value (col 1)")]


def _break_entry_two(entries: list[str]) -> list[str]:
    # An unescaped ampersand and an unclosed tag: not well-formed XML.
    return [entries[0], entries[1].replace("<title>", "<title>Fish & <b>chips", 1), *entries[2:]]


@pytest.mark.parametrize(
    ("entry", "build"),
    [
        (api_entry, lambda entries: api_feed(entries=entries)),
        (lambda p: rss_item(p, ANNOUNCED), lambda entries: rss_listing(entries=entries)),
        (lambda p: atom_listing_entry(p, ANNOUNCED), lambda entries: atom_listing(entries=entries)),
    ],
    ids=["api", "rss", "atom"],
)
def test_malformed_entry_costs_only_itself(entry, build) -> None:
    entries = [entry(paper(n)) for n in (1, 2, 3, 4)]

    feed = parse_document(build(_break_entry_two(entries)))

    assert [r.arxiv_id for r in feed.records] == ["2605.00001", "2605.00003", "2605.00004"]
    [skip] = feed.skipped
    assert skip.where == "entry 2"
    assert skip.reason.startswith("not well-formed XML")
    assert (feed.read, feed.malformed) == (4, True)


def test_document_cut_short_keeps_complete_entries_and_reports_the_cut_one() -> None:
    doc = api_feed([paper(n) for n in (1, 2, 3)], total=3)
    cut = doc[: doc.rindex(b"<entry>") + 200]  # halfway into the third entry

    feed = parse_api_atom(cut)

    assert [r.arxiv_id for r in feed.records] == ["2605.00001", "2605.00002"]
    assert feed.skipped[0].where == "entry 3"
    assert "cut off where the document ends" in feed.skipped[0].reason
    assert feed.total_results == 3
    assert (feed.cut_short, feed.cut_entry, feed.whole().read, feed.whole().skipped) == (
        True,
        True,
        2,
        [],
    )


def test_a_document_cut_between_entries_is_cut_short_with_no_entry_cut() -> None:
    doc = api_feed([paper(n) for n in (1, 2, 3)], total=3)

    feed = parse_api_atom(doc[: doc.rindex(b"<entry>")])

    assert (feed.read, feed.cut_short, feed.cut_entry) == (2, True, False)


@pytest.mark.parametrize(
    "garbage",
    [
        b"",
        b"\x89PNG\r\n\x1a\n\x00\x00binary",
        b"Just some words, not a feed at all.",
        b"<html><body>Service temporarily unavailable</body></html>",
        b"<feed><<<<not xml at all",
        b"{{{ not json\n}}} nor this\n",
    ],
    ids=["empty", "binary", "text", "html", "broken-xml", "broken-json"],
)
def test_a_file_of_garbage_is_a_feed_error(garbage: bytes) -> None:
    with pytest.raises(FeedError) as raised:
        parse_document(garbage, name="upload.bin")

    assert "\n" not in str(raised.value)


HOSTILE_TITLES = [
    "<script>alert('x')</script> Attention",
    "Fish &amp; Chips & Transformers",
    "@everyone @here check <@123456> this",
    r"$\mathcal{O}(n^2)$ attention with \textbf{bold} claims",
    "🚀 Rocket-fuelled diffusion 🧪 — ünïcödé",
    "A" * 10_000,
]


@pytest.mark.parametrize("title", HOSTILE_TITLES, ids=range(len(HOSTILE_TITLES)))
@pytest.mark.parametrize("fmt", ["api", "rss", "jsonl"])
def test_hostile_titles_are_stored_unchanged(title: str, fmt: str) -> None:
    p = paper(1, title=title, abstract=f"Abstract quoting the title: {title}")
    doc = {
        "api": lambda: api_feed([p]),
        "rss": lambda: rss_listing([p]),
        "jsonl": lambda: jsonl([p]),
    }[fmt]()

    [record] = parse_document(doc).records

    assert record.title == title
    assert record.abstract == f"Abstract quoting the title: {title}"


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"title": "  "}, "missing title"),
        ({"categories": []}, "no category"),
        ({"id": "foo"}, "not an arXiv id: 'http://arxiv.org/abs/foov1'"),
    ],
)
def test_entries_missing_required_fields_are_skipped_with_the_reason(change, reason) -> None:
    broken = paper(2, **change)
    entries = [api_entry(paper(1)), api_entry(broken)]

    feed = parse_api_atom(api_feed(entries=entries))

    assert [r.arxiv_id for r in feed.records] == ["2605.00001"]
    assert feed.skipped == [Skip("entry 2", reason)]


def test_entry_without_published_date_is_skipped() -> None:
    entry = (
        api_entry(paper(1))
        .replace("<published>", "<ignored>")
        .replace("</published>", "</ignored>")
    )

    feed = parse_api_atom(api_feed(entries=[entry]))

    assert feed.skipped == [Skip("entry 1", "missing published date")]
