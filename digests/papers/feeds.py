"""Reading arXiv documents: API Atom pages, RSS/Atom listings and JSON Lines files.

Pure functions, bytes in and records out. A bad entry never costs the good ones: it is
reported as a `Skip` with where it was and why, and the rest of the document is kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import BinaryIO

from lxml import etree

from digests.errors import UsageError
from digests.papers.records import BadArxivId, PaperRecord, as_utc, is_category_id, parse_arxiv_id

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
DC = "{http://purl.org/dc/elements/1.1/}"

# Namespaced tag names, built once: comparing against them is the hot loop of parsing.
A_ENTRY = ATOM + "entry"
A_FEED = ATOM + "feed"
A_ID = ATOM + "id"
A_TITLE = ATOM + "title"
A_SUMMARY = ATOM + "summary"
A_PUBLISHED = ATOM + "published"
A_UPDATED = ATOM + "updated"
A_AUTHOR = ATOM + "author"
A_NAME = ATOM + "name"
A_CATEGORY = ATOM + "category"
A_LINK = ATOM + "link"
X_AFFILIATION = ARXIV + "affiliation"
X_PRIMARY_CATEGORY = ARXIV + "primary_category"
X_COMMENT = ARXIV + "comment"
X_DOI = ARXIV + "doi"
X_JOURNAL_REF = ARXIV + "journal_ref"
X_ANNOUNCE_TYPE = ARXIV + "announce_type"
# Listings spell these differently from the API.
X_LISTING_DOI = ARXIV + "DOI"
X_LISTING_JOURNAL_REF = ARXIV + "journal_reference"
DC_CREATOR = DC + "creator"
OS_TOTAL_RESULTS = OPENSEARCH + "totalResults"

# A paper's dates lie between arXiv's first day and now (plus a day or two: an announcement is
# dated ahead in zones west of New York); anything else is a broken entry, not a paper.
ARXIV_BEGAN = datetime(1991, 8, 1, tzinfo=UTC)
FUTURE_SLACK = timedelta(days=2)
# Text PostgreSQL refuses to store (SQLite would take it): NUL, and halves of surrogate pairs,
# which JSON can spell (\ud800) but UTF-8 cannot.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")

LISTING_UPDATE_TYPES = frozenset({"replace", "replace-cross"})
LISTING_TYPES = frozenset({"new", "cross"}) | LISTING_UPDATE_TYPES
CURRENT_LISTINGS = "https://rss.arxiv.org/rss/cs.LG"


class FeedError(UsageError, ValueError):
    """Nothing could be read from a document; the message is one line."""


class ArxivApiError(FeedError):
    """The arXiv API answered with its error feed (a bad query, not a transient failure)."""


@dataclass(frozen=True)
class Skip:
    where: str  # "entry 3", "line 7"
    reason: str  # one line


@dataclass
class ParsedFeed:
    kind: str  # "api-atom" | "rss-listing" | "atom-listing" | "jsonl"
    records: list[PaperRecord]
    skipped: list[Skip]
    read: int  # entries or lines seen: records + skipped
    total_results: int | None = None  # API: opensearch:totalResults
    # The XML was not well-formed, so entries were read one by one (some may be lost).
    malformed: bool = False
    # The document ends before its root element closes: entries after the cut are missing,
    # and the last one read (then the last of `skipped`) may be cut in half (`cut_entry`).
    cut_short: bool = False
    cut_entry: bool = False

    def whole(self) -> ParsedFeed:
        """This feed without an entry the end of the document cut in half, which is not a
        broken entry but one still to be fetched."""
        if not self.cut_entry:
            return self
        return replace(self, skipped=self.skipped[:-1], read=self.read - 1, cut_entry=False)

    def batches(self, size: int) -> Iterator[ParsedFeed]:
        """This feed as feeds of at most `size` records each, to store one at a time; the
        first carries the skipped entries, and their `read` add up to this one's."""
        for start in range(0, max(len(self.records), 1), size):
            records = self.records[start : start + size]
            skipped = self.skipped if start == 0 else []
            yield replace(self, records=records, skipped=skipped, read=len(records) + len(skipped))

    def set_aside_implausible(self, *, now: datetime) -> None:
        """Move records dated before arXiv began or after `now` to the skipped ones."""
        kept = []
        for record in self.records:
            if reason := implausible_dates(record, now=now):
                self.skipped.append(Skip(record.arxiv_id, reason))
            else:
                kept.append(record)
        self.records = kept


def implausible_dates(record: PaperRecord, *, now: datetime) -> str:
    """Why the record's dates cannot be a paper's ("" when they can)."""
    for what, moment in (("published", record.published), ("updated", record.updated)):
        if moment is None:
            continue
        if moment < ARXIV_BEGAN:
            return f"implausible {what} date {moment.date().isoformat()}: before arXiv began"
        if moment > now + FUTURE_SLACK:
            return f"implausible {what} date {moment.date().isoformat()}: in the future"
    return ""


class _BadEntry(Exception):
    """One entry cannot become a record; the message is the skip reason."""


def _collapse(text: str | None) -> str:
    """Runs of spaces, tabs and newlines become one space; nothing else is touched."""
    if not text:
        return ""
    # str.replace scans in C; a regex over every abstract was the slowest part of parsing.
    for control in "\n\r\t":
        if control in text:
            text = text.replace(control, " ")
    while "  " in text:
        text = text.replace("  ", " ")
    return text.strip(" ")


def _one_line(text: str, limit: int = 200) -> str:
    line = _collapse(str(text))
    return line if len(line) <= limit else line[: limit - 1] + "…"


# --- sniffing ------------------------------------------------------------------------------

_ROOT_TAG = re.compile(rb"<([A-Za-z_][\w.\-]*:)?(feed|rss)\b[^>]*>")
_OPENSEARCH_URI = b"a9.com/-/spec/opensearch"


def parse_document(data: bytes, *, name: str = "") -> ParsedFeed:
    """Read any supported document, telling the format from its content.

    A `name` ending in .jsonl/.ndjson is read as JSON Lines whatever its first line holds.
    """
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if not head:
        raise FeedError("the document is empty")
    if head == b"<" and not name.lower().endswith(_JSONL_SUFFIXES):
        return _parse_xml(data)
    try:
        return parse_jsonl(data)
    except FeedError:
        if head == b"{" or name.lower().endswith(_JSONL_SUFFIXES):
            raise
        raise FeedError(
            f"not an arXiv feed or JSON Lines file (it starts with {data[:20]!r})"
        ) from None


_JSONL_SUFFIXES = (".jsonl", ".ndjson")
# Entries per batch of a document read as it comes: enough to amortise each batch's queries
# when stored, few enough that memory stays flat and an interrupted ingest loses little.
BATCH_SIZE = 1_000
_SNIFF_BYTES = 65536


def read_batches(
    stream: BinaryIO, *, name: str = "", batch_size: int = BATCH_SIZE
) -> Iterator[ParsedFeed]:
    """`parse_document` for a stream, in batches of `batch_size` entries: JSON Lines are read
    as they come, so memory stays flat however long the file; an XML document (a listing, an
    API page) is read whole, as the format requires, and its records come in batches.
    Raises `FeedError` before the first batch when the document is none of these."""
    head = stream.read(_SNIFF_BYTES)
    first = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    named_jsonl = name.lower().endswith(_JSONL_SUFFIXES)
    if (first == b"<" and not named_jsonl) or not first:
        yield from parse_document(head + stream.read(), name=name).batches(batch_size)
        return
    try:
        yield from read_jsonl(_lines(head, stream), batch_size=batch_size)
    except FeedError:
        if first == b"{" or named_jsonl:
            raise
        raise FeedError(
            f"not an arXiv feed or JSON Lines file (it starts with {head[:20]!r})"
        ) from None


def _lines(head: bytes, stream: BinaryIO) -> Iterator[bytes]:
    """The stream's lines, `head` being its first bytes, already read."""
    yield from (head + stream.readline()).splitlines(keepends=True)
    yield from stream


def _parse_xml(data: bytes) -> ParsedFeed:
    root = _ROOT_TAG.search(data, 0, 65536)
    if root is None and _RSS_1_0.search(data, 0, 65536) and _names_arxiv(data):
        raise FeedError(
            "this is arXiv's retired RSS 1.0 (RDF) listing format; "
            f"use the current feeds, such as {CURRENT_LISTINGS}"
        )
    if root is None:
        raise FeedError("not an arXiv feed: no <feed> or <rss> root element")
    if root.group(2) == b"rss":
        feed = parse_listing(data)
    elif _OPENSEARCH_URI in root.group(0) or b"announce_type" not in data:
        feed = parse_api_atom(data)
    else:
        feed = parse_listing(data)
    if feed.read == 0 and not _names_arxiv(data):
        raise FeedError("not an arXiv feed: it has no entries and does not name arxiv.org")
    return feed


_RSS_1_0 = re.compile(rb"<rdf:RDF\b[^>]*purl\.org/rss/1\.0/")


def _names_arxiv(data: bytes) -> bool:
    """An empty listing or result page is arXiv's only if it says so (its links or namespace)."""
    return b"arxiv.org" in data[:65536].lower()


# --- XML plumbing --------------------------------------------------------------------------

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
_NAMESPACE_DECL = re.compile(rb"""\sxmlns(?::[\w.\-]+)?\s*=\s*(?:"[^"]*"|'[^']*')""")


def _strict_root(data: bytes) -> tuple[etree._Element | None, str]:
    """The parsed root, or None and why the document is not well-formed."""
    try:
        return etree.fromstring(data, _PARSER), ""
    except etree.XMLSyntaxError as exc:
        return None, _one_line(exc.msg or str(exc))


def _entry_chunks(data: bytes, tag: bytes) -> Iterator[bytes | str]:
    """Cut a broken document into its `<tag>…</tag>` pieces, one per entry.

    Each piece runs from one opening tag to the next, trimmed after its last closing tag, so
    a missing end tag costs only that entry. A str in place of bytes is the skip reason.
    """
    starts = [m.start() for m in re.finditer(rb"<" + tag + rb"[\s>]", data)]
    closing = b"</" + tag + b">"
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(data)
        piece = data[start:end]
        close_at = piece.rfind(closing)
        if close_at >= 0:
            yield piece[: close_at + len(closing)]
        elif end == len(data) and _cut_short(data):
            yield CUT_ENTRY
        else:
            yield f"no closing </{tag.decode()}>"


CUT_ENTRY = "cut off where the document ends (cut short in transit?)"
_ROOT_END = re.compile(rb"</(?:[\w.\-]+:)?(?:feed|rss)>\s*$")


def _cut_short(data: bytes) -> bool:
    """The document ends before its root element is closed."""
    return _ROOT_END.search(data[-256:]) is None


def _recover_entries(
    data: bytes, tag: bytes, root_name: bytes
) -> Iterator[tuple[int, etree._Element | None, str]]:
    """Parse each entry of a document that is not well-formed on its own."""
    root = re.search(rb"<" + root_name + rb"\b[^>]*>", data)
    declarations = b"".join(_NAMESPACE_DECL.findall(root.group(0))) if root else b""
    for number, piece in enumerate(_entry_chunks(data, tag), start=1):
        if isinstance(piece, str):
            yield number, None, piece
            continue
        wrapped = b"<recovered" + declarations + b">" + piece + b"</recovered>"
        try:
            element = etree.fromstring(wrapped, _PARSER)
        except etree.XMLSyntaxError as exc:
            yield number, None, f"not well-formed XML: {_one_line(exc.msg)}"
            continue
        yield number, element[0], ""


def _read_entries(
    data: bytes,
    *,
    root_name: bytes,
    root_tag: str,
    entry_tag: bytes,
    find_entries: Callable[[etree._Element], Iterable[etree._Element]],
    to_record: Callable[[etree._Element], PaperRecord],
) -> tuple[etree._Element | None, ParsedFeed]:
    """Turn every entry into a record or a skip; falls back to entry-by-entry reading."""
    feed = ParsedFeed(kind="", records=[], skipped=[], read=0)
    root, syntax_error = _strict_root(data)
    if root is not None and root.tag != root_tag:
        raise FeedError(f"not an arXiv feed: the root element is {_one_line(str(root.tag), 80)}")
    if root is not None:
        numbered = ((n, e, "") for n, e in enumerate(find_entries(root), start=1))
    else:
        feed.malformed = True
        numbered = _recover_entries(data, entry_tag, root_name)
    for number, element, problem in numbered:
        feed.read += 1
        if element is None:
            feed.skipped.append(Skip(f"entry {number}", problem))
            continue
        try:
            feed.records.append(to_record(element))
        except _BadEntry as exc:
            feed.skipped.append(Skip(f"entry {number}", str(exc)))
    if root is None and feed.read == 0:
        raise FeedError(f"not well-formed XML and no entries could be read: {syntax_error}")
    if root is None:
        feed.cut_short = _cut_short(data)
        feed.cut_entry = bool(feed.skipped) and feed.skipped[-1].reason == CUT_ENTRY
    return root, feed


def _arxiv_id(raw: str | None) -> tuple[str, int]:
    if not raw or not raw.strip():
        raise _BadEntry("missing id")
    try:
        base, version = parse_arxiv_id(raw)
    except BadArxivId as exc:
        raise _BadEntry(str(exc)) from None
    return base, version or 1


def _require(title: str, published: datetime | None, categories: list[str]) -> None:
    if not title:
        raise _BadEntry("missing title")
    if published is None:
        raise _BadEntry("missing published date")
    if not categories:
        raise _BadEntry("no category")


def _iso_datetime(text: str | None, what: str) -> datetime | None:
    if not text or not text.strip():
        return None
    try:
        return as_utc(datetime.fromisoformat(text.strip()))
    except (ValueError, OverflowError):  # overflow: year 1 or 9999 moved across a zone
        raise _BadEntry(f"bad {what} date: {_one_line(text, 60)!r}") from None


# --- the arXiv query API -------------------------------------------------------------------

_API_ERROR_ID = "/api/errors"


def parse_api_atom(data: bytes) -> ParsedFeed:
    """Read one page of the arXiv query API (Atom with opensearch and arxiv extensions)."""
    root, feed = _read_entries(
        data,
        root_name=b"feed",
        root_tag=A_FEED,
        entry_tag=b"entry",
        find_entries=lambda root: root.iterchildren(A_ENTRY),
        to_record=_api_record,
    )
    feed.kind = "api-atom"
    if root is not None:
        _raise_on_error_feed(root)
        feed.total_results = _int_or_none(root.findtext(OS_TOTAL_RESULTS))
    else:
        feed.total_results = _int_or_none(_regex_field(data, b"totalResults"))
    return feed


def _raise_on_error_feed(root: etree._Element) -> None:
    entries = list(root.iterchildren(A_ENTRY))
    if len(entries) == 1 and _API_ERROR_ID in (entries[0].findtext(A_ID) or ""):
        message = _collapse(entries[0].findtext(A_SUMMARY)) or "unknown error"
        raise ArxivApiError(f"arXiv API error: {_one_line(message)}")


def _regex_field(data: bytes, name: bytes) -> str | None:
    found = re.search(rb"<(?:[\w.\-]+:)?" + name + rb"\b[^>]*>\s*(\d+)\s*<", data[:65536])
    return found.group(1).decode() if found else None


def _int_or_none(text: str | None) -> int | None:
    try:
        return int(text.strip()) if text else None
    except ValueError:
        return None


def _api_record(entry: etree._Element) -> PaperRecord:
    fields: dict[str, str] = {}
    authors: list[str] = []
    affiliations: list[str] = []
    categories: list[str] = []
    primary = ""
    links: dict[str, str] = {}
    for child in entry:
        tag = child.tag
        if tag == A_AUTHOR:
            _add_author(child, authors, affiliations)
        elif tag == A_CATEGORY:
            _add_category(categories, child.get("term"))
        elif tag == X_PRIMARY_CATEGORY:
            primary = child.get("term", "").strip()
            primary = primary if is_category_id(primary) else ""
        elif tag == A_LINK:
            _add_link(links, child)
        elif isinstance(tag, str):
            fields[tag] = child.text or ""
    if primary:
        categories = [primary, *(c for c in categories if c != primary)]
    arxiv_id, version = _arxiv_id(fields.get(A_ID))
    title = _collapse(fields.get(A_TITLE))
    published = _iso_datetime(fields.get(A_PUBLISHED), "published")
    _require(title, published, categories)
    return PaperRecord(
        arxiv_id=arxiv_id,
        version=version,
        title=title,
        abstract=_collapse(fields.get(A_SUMMARY)),
        authors=tuple(authors),
        categories=tuple(categories),
        published=published,
        updated=_iso_datetime(fields.get(A_UPDATED), "updated"),
        affiliations=tuple(affiliations),
        comment=_collapse(fields.get(X_COMMENT)) or None,
        doi=_collapse(fields.get(X_DOI)) or None,
        journal_ref=_collapse(fields.get(X_JOURNAL_REF)) or None,
        links=links,
    )


def _add_author(author: etree._Element, names: list[str], affiliations: list[str]) -> None:
    for part in author:
        text = _collapse(part.text)
        if not text:
            continue
        if part.tag == A_NAME:
            names.append(text)
        elif part.tag == X_AFFILIATION and text not in affiliations:
            affiliations.append(text)


def _add_link(links: dict[str, str], link: etree._Element) -> None:
    href = (link.get("href") or "").strip()
    if not href:
        return
    title, rel = link.get("title"), link.get("rel", "alternate")
    if title in ("pdf", "doi"):
        links[title] = href
    elif rel == "alternate":
        links.setdefault("abs", href)


# --- listings from rss.arxiv.org -----------------------------------------------------------

_ANNOUNCEMENT = re.compile(
    r"^\s*arXiv:(?P<id>\S+)\s+Announce Type:\s*(?P<type>[\w\-]+)\s*"
    r"(?:Abstract:\s*)?(?P<abstract>.*)$",
    re.DOTALL,
)


def parse_listing(data: bytes) -> ParsedFeed:
    """Read a daily listing, RSS 2.0 or Atom; `replace` announcements become update-only."""
    root_tag = _ROOT_TAG.search(data, 0, 65536)
    if root_tag is not None and root_tag.group(2) == b"rss":
        _root, feed = _read_entries(
            data,
            root_name=b"rss",
            root_tag="rss",
            entry_tag=b"item",
            find_entries=lambda root: root.iter("item"),
            to_record=_rss_record,
        )
        feed.kind = "rss-listing"
    else:
        _root, feed = _read_entries(
            data,
            root_name=b"feed",
            root_tag=A_FEED,
            entry_tag=b"entry",
            find_entries=lambda root: root.iterchildren(A_ENTRY),
            to_record=_atom_listing_record,
        )
        feed.kind = "atom-listing"
    return feed


def _rss_record(item: etree._Element) -> PaperRecord:
    fields: dict[str, str] = {}
    categories: list[str] = []
    creators: list[str] = []
    for child in item:
        if child.tag == "category":
            _add_category(categories, child.text)
        elif child.tag == DC_CREATOR:
            creators.append(child.text or "")
        elif isinstance(child.tag, str):
            fields[child.tag] = child.text or ""
    return _listing_record(
        fields,
        raw_id=fields.get("guid") or fields.get("link"),
        title=fields.get("title"),
        description=fields.get("description"),
        authors=_split_creators(creators),
        categories=categories,
        announced=_rfc822_datetime(fields.get("pubDate")),
        link=fields.get("link"),
    )


def _atom_listing_record(entry: etree._Element) -> PaperRecord:
    fields: dict[str, str] = {}
    categories: list[str] = []
    creators: list[str] = []
    link = None
    for child in entry:
        tag = child.tag
        if tag == A_CATEGORY:
            _add_category(categories, child.get("term"))
        elif tag == DC_CREATOR:
            creators.append(child.text or "")
        elif tag == A_AUTHOR:
            creators.append(child.findtext(A_NAME) or "")
        elif tag == A_LINK and child.get("rel", "alternate") == "alternate":
            link = link or child.get("href")
        elif isinstance(tag, str):
            fields[tag] = child.text or ""
    raw_date = fields.get(A_PUBLISHED) or fields.get(A_UPDATED)
    return _listing_record(
        fields,
        raw_id=fields.get(A_ID),
        title=fields.get(A_TITLE),
        description=fields.get(A_SUMMARY),
        authors=_split_creators(creators),
        categories=categories,
        announced=_iso_datetime(raw_date, "published"),
        link=link,
    )


def _listing_record(
    fields: dict[str, str],
    *,
    raw_id: str | None,
    title: str | None,
    description: str | None,
    authors: tuple[str, ...],
    categories: list[str],
    announced: datetime | None,
    link: str | None,
) -> PaperRecord:
    """A listing item; `fields` holds its other elements by tag (announce type, DOI, ...)."""
    arxiv_id, version = _arxiv_id(raw_id)
    abstract = _collapse(description)
    announce_type = fields.get(X_ANNOUNCE_TYPE)
    announcement = _ANNOUNCEMENT.match(abstract)
    if announcement:
        abstract = announcement.group("abstract").strip()
        announce_type = announce_type or announcement.group("type")
    announce_type = _collapse(announce_type).lower() or "new"
    if announce_type not in LISTING_TYPES:
        raise _BadEntry(f"unknown announce type: {_one_line(announce_type, 40)!r}")
    title = _collapse(title)
    _require(title, announced, categories)
    return PaperRecord(
        arxiv_id=arxiv_id,
        version=version,
        title=title,
        abstract=abstract,
        authors=authors,
        categories=tuple(categories),
        # The announcement; digests.papers.first_versions dates cross-lists and replacements.
        published=announced,
        # A replacement's announcement date is when this version appeared, not v1's date.
        updated=announced if announce_type in LISTING_UPDATE_TYPES else None,
        comment=_collapse(fields.get(X_COMMENT)) or None,
        doi=_collapse(fields.get(X_LISTING_DOI) or fields.get(X_DOI)) or None,
        journal_ref=_collapse(fields.get(X_LISTING_JOURNAL_REF) or fields.get(X_JOURNAL_REF))
        or None,
        links={"abs": link.strip()} if link and link.strip() else {},
        announce_type=announce_type,
        announced=announced,
    )


def _add_category(categories: list[str], raw: str | None) -> None:
    """Keep arXiv category ids only: MSC and ACM class terms share the element in the API."""
    term = (raw or "").strip()
    if is_category_id(term) and term not in categories:
        categories.append(term)


def _split_creators(creators: list[str]) -> tuple[str, ...]:
    names = (name.strip() for raw in creators for name in _collapse(raw).split(","))
    return tuple(name for name in names if name)


def _rfc822_datetime(text: str | None) -> datetime | None:
    if not text or not text.strip():
        return None
    try:
        return as_utc(parsedate_to_datetime(text.strip()))
    except (TypeError, ValueError, OverflowError):
        raise _BadEntry(f"bad pubDate: {_one_line(text, 60)!r}") from None


# --- JSON Lines ----------------------------------------------------------------------------


def parse_jsonl(data: bytes) -> ParsedFeed:
    """Read one paper per line; blank lines are ignored, broken lines skipped by number."""
    feed = ParsedFeed(kind="jsonl", records=[], skipped=[], read=0)
    for batch in read_jsonl(data.splitlines(), batch_size=BATCH_SIZE):
        feed.records += batch.records
        feed.skipped += batch.skipped
        feed.read += batch.read
    return feed


def read_jsonl(lines: Iterable[bytes], *, batch_size: int = BATCH_SIZE) -> Iterator[ParsedFeed]:
    """Read JSON Lines as they come (a file, a gzip stream), `batch_size` lines at a time:
    memory stays flat however long the file. Raises `FeedError` when not one line of the
    first batch is JSON: that is not a JSON Lines file, and nothing of it was used."""
    batch = ParsedFeed(kind="jsonl", records=[], skipped=[], read=0)
    any_json = False
    for number, line in enumerate(_stripped_lines(lines), start=1):
        if not line:
            continue
        batch.read += 1
        any_json = _read_json_line(line, number, batch) or any_json
        if batch.read == batch_size:
            _check_json_seen(batch, any_json)
            yield batch
            batch = ParsedFeed(kind="jsonl", records=[], skipped=[], read=0)
    if batch.read:
        _check_json_seen(batch, any_json)
        yield batch


def _stripped_lines(lines: Iterable[bytes]) -> Iterator[bytes]:
    """Each line without its surrounding space (and the first one without a byte order mark);
    a file's lines may still hold old-style `\\r` line ends, which count as line ends too."""
    first = True
    for raw in lines:
        for line in raw.splitlines() if b"\r" in raw else (raw,):
            if first:
                line, first = line.lstrip(b"\xef\xbb\xbf"), False
            yield line.strip()


def _read_json_line(line: bytes, number: int, batch: ParsedFeed) -> bool:
    """Add the line's record or skip to `batch`; whether the line was JSON at all."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        reason = f"invalid JSON: {exc.msg} (col {exc.colno})"
        batch.skipped.append(Skip(f"line {number}", reason))
        return False
    except UnicodeDecodeError:
        batch.skipped.append(Skip(f"line {number}", "not UTF-8 text"))
        return False
    try:
        if b"\\u" in line and isinstance(obj, dict):  # only an escape spells those
            _check_storable(obj)
        batch.records.append(_json_record(obj))
    except _BadEntry as exc:
        batch.skipped.append(Skip(f"line {number}", str(exc)))
    return True


def _check_json_seen(batch: ParsedFeed, any_json: bool) -> None:
    if not any_json:
        first = batch.skipped[0]
        raise FeedError(f"not a JSON Lines file: {first.where}: {first.reason}")


def _json_record(obj: object) -> PaperRecord:
    if not isinstance(obj, dict):
        raise _BadEntry(f"expected a JSON object, got {type(obj).__name__}")
    arxiv_id, version = _arxiv_id(_json_str(obj, "id"))
    if obj.get("version") is not None:
        version = _json_version(obj["version"])
    title = _collapse(_json_str(obj, "title"))
    categories: list[str] = []
    for term in _json_strings(obj, "categories"):
        _add_category(categories, term)
    published = _json_datetime(obj, "published")
    _require(title, published, categories)
    return PaperRecord(
        arxiv_id=arxiv_id,
        version=version,
        title=title,
        abstract=_collapse(_json_str(obj, "abstract")),
        authors=tuple(a.strip() for a in _json_strings(obj, "authors") if a.strip()),
        categories=tuple(categories),
        published=published,
        updated=_json_datetime(obj, "updated"),
        affiliations=tuple(_json_strings(obj, "affiliations")),
        comment=_collapse(_json_str(obj, "comment")) or None,
        doi=_collapse(_json_str(obj, "doi")) or None,
        journal_ref=_collapse(_json_str(obj, "journal_ref")) or None,
        upstream_topics=tuple(t.strip() for t in _json_strings(obj, "topics") if t.strip()),
    )


def _json_str(obj: dict, key: str) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise _BadEntry(f"{key} must be a string, got {type(value).__name__}")
    return value


def _json_strings(obj: dict, key: str) -> list[str]:
    value = obj.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _BadEntry(f"{key} must be a list of strings")
    return value


def _check_storable(obj: dict) -> None:
    """Refuse an entry whose stored text PostgreSQL cannot hold."""
    for key in _STORED_JSON_FIELDS:
        value = obj.get(key)
        for text in value if isinstance(value, list) else (value,):
            if isinstance(text, str) and (found := _UNSTORABLE.search(text)):
                character = found.group()
                what = "a NUL character" if character == "\x00" else "half a surrogate pair"
                raise _BadEntry(f"{key} holds {what} ({character!a}), which databases refuse")


_STORED_JSON_FIELDS = (
    "id", "title", "abstract", "authors", "affiliations", "categories", "comment", "doi",
    "journal_ref", "topics",
)  # fmt: skip


def _json_version(value: object) -> int:
    if isinstance(value, str) and value.lower().startswith("v"):
        value = value[1:]
    try:
        version = int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise _BadEntry(f"bad version: {_one_line(repr(value), 40)}") from None
    if version < 1:
        raise _BadEntry(f"bad version: {version}")
    return version


def _json_datetime(obj: dict, key: str) -> datetime | None:
    text = _json_str(obj, key)
    if not text or not text.strip():
        return None
    text = text.strip()
    try:
        if len(text) == 10:
            return datetime.combine(date.fromisoformat(text), datetime.min.time(), tzinfo=UTC)
        return as_utc(datetime.fromisoformat(text))
    except (ValueError, OverflowError):
        raise _BadEntry(f"bad {key} date: {_one_line(text, 60)!r}") from None


__all__ = [
    "ArxivApiError",
    "FeedError",
    "ParsedFeed",
    "Skip",
    "parse_api_atom",
    "parse_document",
    "parse_jsonl",
    "parse_listing",
    "read_batches",
    "read_jsonl",
]
