"""Read the seed pages in /work/shared/seeds: plain-text copies of a research site's topic page.

Two layouts occur. The list layout gives each paper as a title line followed by one line where
the date, the authors and the topic tags are glued together ("May 23, 2026Jane Doe, Li Wei
+1World Model Learning Computer-Use Agents"), optionally followed by an affiliation line; a
detail panel at the end may add one paper's abstract and full tag line. The block layout
starts each paper with "Sep 27, 2026cs.CL", then title, abstract (possibly broken up by
formula fragments), authors, affiliations and a line of tags separated by single spaces.

Tag names contain spaces themselves, so tag lines are split with the catalog's names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tests.shared_data import shared_dir

_DATE = r"[A-Z][a-z]{2} \d{1,2}, \d{4}"
_LIST_META = re.compile(rf"^{_DATE}(?!, )(?P<rest>.+)$")
_BLOCK_START = re.compile(rf"^{_DATE}(?P<category>[a-z\-]+\.[A-Za-z\-]+|[a-z\-]+)$", re.M)
_DETAIL_START = re.compile(rf"^{_DATE}, [a-z]")
# "Jane Doe, Li Wei, Ana Silva +3": capitalised, no digits or sentence punctuation.
_AUTHORS = re.compile(r"^[A-Z][^\d.:;!?]*(?:, [^\d.:;!?]+)+(?: \+\d+)?$|^[A-Z][^\d.:;!?,]* \+\d+$")
_MORE_AUTHORS = re.compile(r"\+\d+(?=\S)")


@dataclass(frozen=True)
class SeedPaper:
    title: str
    abstract: str  # "" when the page lists only the title
    category: str  # "" when the page does not say
    tag_line: str  # the tag names as printed, not yet split
    glued: bool = False  # tag_line still holds the date and authors in front of the tags


def seeds_dir() -> Path:
    """The seed folder; skips the calling test when it is missing, unless running in CI."""
    return shared_dir("seeds", pattern="*.txt")


def load_seed_papers(folder: Path) -> list[SeedPaper]:
    papers: list[SeedPaper] = []
    for path in sorted(folder.glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        papers += _block_layout(text) if _BLOCK_START.search(text) else _list_layout(text)
    return papers


def split_tags(text: str, names: Iterable[str]) -> list[str] | None:
    """`text` split into catalog names separated by spaces (fewest names), or None."""
    names = sorted(set(names), key=len, reverse=True)
    best: dict[int, list[str] | None] = {len(text): []}
    for start in range(len(text) - 1, -1, -1):
        options = []
        for name in names:
            end = start + len(name)
            if text.startswith(name, start) and (end == len(text) or text[end] == " "):
                rest = best.get(end + 1 if end < len(text) else end)
                if rest is not None:
                    options.append([name, *rest])
        best[start] = min(options, key=len) if options else None
    return best[0]


def seed_tags(paper: SeedPaper, names: Iterable[str]) -> list[str] | None:
    """The paper's tags as catalog names, or None when some part is no catalog name."""
    names = list(names)
    text = _glued_tags(paper.tag_line, names) if paper.glued else paper.tag_line
    return None if text is None else split_tags(text, names)


def _glued_tags(meta: str, names: list[str]) -> str | None:
    """The tag part of a list-layout line, which follows the authors without a separator."""
    rest = _LIST_META.match(meta).group("rest")
    more = list(_MORE_AUTHORS.finditer(rest))
    if more:
        return rest[more[-1].end() :]
    # The last author's name runs straight into the first tag: take the longest tail
    # that splits into catalog names.
    for start in range(len(rest)):
        if rest[start].isupper() and split_tags(rest[start:], names) is not None:
            return rest[start:]
    return None


def _list_layout(text: str) -> list[SeedPaper]:
    lines = [line.strip() for line in text.splitlines()]
    details = _detail_panel(lines)
    papers = []
    for number, line in enumerate(lines):
        if number and _LIST_META.match(line) and lines[number - 1]:
            title = lines[number - 1]
            abstract, tags = details.get(title, ("", ""))
            papers.append(SeedPaper(title, abstract, "", tags or line, glued=not tags))
    return papers


def _detail_panel(lines: list[str]) -> dict[str, tuple[str, str]]:
    """Title -> (abstract, tag line) from the detail panel at the end of a list page."""
    for number, line in enumerate(lines):
        if _DETAIL_START.match(line):
            body = [entry for entry in lines[number + 1 :] if entry]
            if len(body) >= 6 and body[4].startswith("Open paper"):
                return {body[0]: (body[5], body[3])}
            if len(body) >= 5 and body[3].startswith("Open paper"):
                return {body[0]: (body[4], body[2])}
    return {}


def _block_layout(text: str) -> list[SeedPaper]:
    starts = list(_BLOCK_START.finditer(text))
    papers = []
    for number, start in enumerate(starts):
        end = starts[number + 1].start() if number + 1 < len(starts) else len(text)
        lines = [line.strip() for line in text[start.end() : end].splitlines() if line.strip()]
        lines = [line for line in lines if line not in ("Momentum", "Related topics")]
        lines = [line for line in lines if not line.startswith("Latest papers")]
        title, tags = lines[0], lines[-1]
        authors = next(
            (i for i in range(2, len(lines) - 1) if _AUTHORS.match(lines[i])), len(lines) - 3
        )
        abstract = " ".join(lines[1:authors])
        papers.append(SeedPaper(title, abstract, start.group("category"), tags))
    return papers
