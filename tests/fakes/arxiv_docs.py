"""Builders of arXiv-format documents from plain paper dicts, for tests and the fake server.

A paper dict has `id`, `title`, `abstract`, `authors` (names, or dicts with `name` and
`affiliations`), `categories` (primary first), `published` and optionally `version`,
`updated`, `comment`, `doi`, `journal_ref`, `announce_type` and `topics`. `paper(n)` makes
one with sensible defaults. Builders that take `entries` accept ready-made XML strings, which
is how tests craft broken documents.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from xml.sax.saxutils import escape, quoteattr

BASE_DAY = datetime(2026, 5, 4, tzinfo=UTC)

API_ROOT = (
    '<feed xmlns="http://www.w3.org/2005/Atom" '
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    'xmlns:arxiv="http://arxiv.org/schemas/atom">'
)
LISTING_NAMESPACES = (
    'xmlns:arxiv="http://arxiv.org/schemas/atom" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/" '
    'xmlns:atom="http://www.w3.org/2005/Atom" '
    'xmlns:content="http://purl.org/rss/1.0/modules/content/"'
)


def paper(n: int, **overrides) -> dict:
    """Paper number `n`: ids 2605.00001 onwards, one every 10 minutes from BASE_DAY."""
    base = {
        "id": f"2605.{n:05d}",
        "version": 1,
        "title": f"Paper number {n} on sparse attention",
        "abstract": f"We study problem {n}.\n  It matters  a lot.",
        "authors": [
            {"name": "Ada Lovelace", "affiliations": ["Analytical Engines Ltd"]},
            "Alan Turing",
        ],
        "categories": ["cs.LG", "cs.AI"],
        "published": BASE_DAY + timedelta(minutes=10 * n),
    }
    base.update(overrides)
    return base


def _author_names(p: dict) -> list[str]:
    return [a if isinstance(a, str) else a["name"] for a in p.get("authors", [])]


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _versioned(p: dict) -> str:
    return f"{p['id']}v{p.get('version', 1)}"


# --- the query API -------------------------------------------------------------------------


def api_entry(p: dict) -> str:
    versioned = _versioned(p)
    parts = [
        "<entry>",
        f"<id>http://arxiv.org/abs/{versioned}</id>",
        f"<updated>{_iso(p.get('updated') or p['published'])}</updated>",
        f"<published>{_iso(p['published'])}</published>",
        f"<title>{escape(p['title'])}</title>",
        f"<summary>{escape(p.get('abstract', ''))}</summary>",
    ]
    for author in p.get("authors", []):
        if isinstance(author, str):
            author = {"name": author}
        parts.append(f"<author><name>{escape(author['name'])}</name>")
        parts += [
            f"<arxiv:affiliation>{escape(a)}</arxiv:affiliation>"
            for a in author.get("affiliations", [])
        ]
        parts.append("</author>")
    if p.get("doi"):
        parts.append(f"<arxiv:doi>{escape(p['doi'])}</arxiv:doi>")
        doi_href = quoteattr(f"https://doi.org/{p['doi']}")
        parts.append(f'<link title="doi" href={doi_href} rel="related"/>')
    if p.get("comment"):
        parts.append(f"<arxiv:comment>{escape(p['comment'])}</arxiv:comment>")
    if p.get("journal_ref"):
        parts.append(f"<arxiv:journal_ref>{escape(p['journal_ref'])}</arxiv:journal_ref>")
    parts += [
        f'<link href="https://arxiv.org/abs/{versioned}" rel="alternate" type="text/html"/>',
        f'<link title="pdf" href="https://arxiv.org/pdf/{versioned}" rel="related" '
        'type="application/pdf"/>',
    ]
    if p["categories"]:
        primary = quoteattr(p["categories"][0])
        parts.append(
            f'<arxiv:primary_category term={primary} scheme="http://arxiv.org/schemas/atom"/>'
        )
    # arXiv lists categories alphabetically, so the primary one is not always first.
    parts += [
        f'<category term={quoteattr(c)} scheme="http://arxiv.org/schemas/atom"/>'
        for c in sorted(p["categories"])
    ]
    parts.append("</entry>")
    return "\n".join(parts)


def api_feed(
    papers: Sequence[dict] = (),
    *,
    total: int | None = None,
    start: int = 0,
    per_page: int | None = None,
    entries: Iterable[str] | None = None,
    query: str = "",
) -> bytes:
    """One page of query results; `entries` replaces the entries built from `papers`."""
    entries = list(entries) if entries is not None else [api_entry(p) for p in papers]
    head = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        API_ROOT,
        '<link href="http://arxiv.org/api/query" rel="self" type="application/atom+xml"/>',
        f'<title type="html">ArXiv Query: {escape(query)}</title>',
        "<id>http://arxiv.org/api/fake</id>",
        f"<updated>{_iso(BASE_DAY)}</updated>",
        f"<opensearch:totalResults>{len(entries) if total is None else total}"
        "</opensearch:totalResults>",
        f"<opensearch:startIndex>{start}</opensearch:startIndex>",
        f"<opensearch:itemsPerPage>{per_page or len(entries)}</opensearch:itemsPerPage>",
    ]
    return "\n".join([*head, *entries, "</feed>", ""]).encode()


def api_error_feed(message: str) -> bytes:
    """What the API answers to a bad query (with HTTP 400)."""
    entry = (
        "<entry><id>http://arxiv.org/api/errors#incorrect_query</id>"
        "<title>Error</title>"
        f"<summary>{escape(message)}</summary>"
        f"<updated>{_iso(BASE_DAY)}</updated>"
        '<link href="http://arxiv.org/api/errors#incorrect_query" rel="alternate"/>'
        "<author><name>arXiv api core</name></author></entry>"
    )
    return api_feed(entries=[entry], total=1)


# --- listings ------------------------------------------------------------------------------


def _announcement(p: dict) -> str:
    announce_type = p.get("announce_type", "new")
    abstract = p.get("abstract", "")
    return f"arXiv:{_versioned(p)} Announce Type: {announce_type} \nAbstract: {abstract}"


def _listing_references(p: dict) -> list[str]:
    """Listings spell these `arxiv:DOI` and `arxiv:journal_reference`, unlike the API."""
    parts = []
    if p.get("journal_ref"):
        parts.append(f"<arxiv:journal_reference>{escape(p['journal_ref'])}</arxiv:journal_reference>")
    if p.get("doi"):
        parts.append(f"<arxiv:DOI>{escape(p['doi'])}</arxiv:DOI>")
    return parts


def rss_item(p: dict, announced: datetime) -> str:
    parts = [
        "<item>",
        f"<title>{escape(p['title'])}</title>",
        f"<link>https://arxiv.org/abs/{p['id']}</link>",
        f"<description>{escape(_announcement(p))}</description>",
        f'<guid isPermaLink="false">oai:arXiv.org:{_versioned(p)}</guid>',
        *(f"<category>{escape(c)}</category>" for c in p["categories"]),
        f"<pubDate>{format_datetime(announced)}</pubDate>",
        f"<arxiv:announce_type>{p.get('announce_type', 'new')}</arxiv:announce_type>",
        "<dc:rights>http://creativecommons.org/licenses/by/4.0/</dc:rights>",
        *_listing_references(p),
        f"<dc:creator>{escape(', '.join(_author_names(p)))}</dc:creator>",
        "</item>",
    ]
    return "\n".join(parts)


def rss_listing(
    papers: Sequence[dict] = (),
    *,
    categories: Sequence[str] = ("cs.LG",),
    announced: datetime = BASE_DAY,
    entries: Iterable[str] | None = None,
) -> bytes:
    items = list(entries) if entries is not None else [rss_item(p, announced) for p in papers]
    feed_name = "+".join(categories)
    head = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<rss {LISTING_NAMESPACES} version="2.0">',
        "<channel>",
        f"<title>{escape(feed_name)} updates on arXiv.org</title>",
        f"<link>http://rss.arxiv.org/rss/{escape(feed_name)}</link>",
        f"<description>{escape(feed_name)} updates on the arXiv.org e-print archive.</description>",
        f"<pubDate>{format_datetime(announced)}</pubDate>",
    ]
    return "\n".join([*head, *items, "</channel>", "</rss>", ""]).encode()


def atom_listing_entry(p: dict, announced: datetime) -> str:
    stamp = announced.isoformat()
    parts = [
        "<entry>",
        f"<id>oai:arXiv.org:{_versioned(p)}</id>",
        f"<title>{escape(p['title'])}</title>",
        f"<updated>{stamp}</updated>",
        f'<link href="https://arxiv.org/abs/{p["id"]}" rel="alternate" type="text/html"/>',
        f'<summary type="text">{escape(_announcement(p))}</summary>',
        *(
            f'<category term={quoteattr(c)} scheme="http://arxiv.org/schemas/atom"/>'
            for c in p["categories"]
        ),
        f"<published>{stamp}</published>",
        f"<arxiv:announce_type>{p.get('announce_type', 'new')}</arxiv:announce_type>",
        "<dc:rights>http://creativecommons.org/licenses/by/4.0/</dc:rights>",
        *_listing_references(p),
        f"<dc:creator>{escape(', '.join(_author_names(p)))}</dc:creator>",
        "</entry>",
    ]
    return "\n".join(parts)


def atom_listing(
    papers: Sequence[dict] = (),
    *,
    categories: Sequence[str] = ("cs.LG",),
    announced: datetime = BASE_DAY,
    entries: Iterable[str] | None = None,
) -> bytes:
    items = (
        list(entries) if entries is not None else [atom_listing_entry(p, announced) for p in papers]
    )
    feed_name = "+".join(categories)
    head = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<feed xmlns="http://www.w3.org/2005/Atom" {LISTING_NAMESPACES}>',
        f"<id>http://rss.arxiv.org/atom/{escape(feed_name)}</id>",
        f"<title>{escape(feed_name)} updates on arXiv.org</title>",
        f"<updated>{announced.isoformat()}</updated>",
    ]
    return "\n".join([*head, *items, "</feed>", ""]).encode()


# --- JSON Lines ----------------------------------------------------------------------------


def jsonl_line(p: dict) -> str:
    obj = {
        "id": p["id"],
        "title": p["title"],
        "abstract": p.get("abstract", ""),
        "authors": _author_names(p),
        "categories": list(p["categories"]),
        "published": p["published"].isoformat(),
    }
    for key in ("version", "comment", "doi", "topics", "affiliations"):
        if p.get(key) is not None:
            obj[key] = p[key]
    if p.get("updated"):
        obj["updated"] = p["updated"].isoformat()
    return json.dumps(obj, ensure_ascii=False)


def jsonl(papers: Sequence[dict] = (), *, lines: Iterable[str] | None = None) -> bytes:
    lines = list(lines) if lines is not None else [jsonl_line(p) for p in papers]
    return ("\n".join(lines) + "\n").encode()
