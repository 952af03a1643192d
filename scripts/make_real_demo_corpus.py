"""Cut `digestbot demo`'s corpus from the shared real arXiv metadata: the last 16 weeks of 2025.

Reads `ai-2025.jsonl.gz` (real arXiv listings; see its README) and keeps the papers first listed
from START to END, with the fields `digestbot ingest --file` reads and nothing else: id, title,
abstract, authors, categories, published. arXiv's metadata is CC0; the provenance note shipped
beside the slice (`digests/data/real_corpus.md`) says where it comes from.

The output is deterministic (the papers in the order read, keys sorted) and compressed with xz
(4.6 MB, where gzip takes 7.0 MB), so cutting again changes no byte.

Usage:
    python scripts/make_real_demo_corpus.py --source ../shared/data/arxiv-real/ai-2025.jsonl.gz
    python scripts/make_real_demo_corpus.py --source FILE --out OUT.jsonl.xz
"""

from __future__ import annotations

import argparse
import gzip
import json
import lzma
from datetime import date, timedelta
from pathlib import Path

END = date(2025, 12, 31)
START = END - timedelta(weeks=16) + timedelta(days=1)
FIELDS = ("id", "title", "abstract", "authors", "categories", "published")
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "digests" / "data" / "real_corpus.jsonl.xz"


def cut(source: Path) -> list[dict]:
    """The papers of `source` first listed START..END, with FIELDS only."""
    kept = []
    with gzip.open(source, "rt", encoding="utf-8") as lines:
        for line in lines:
            paper = json.loads(line)
            if START <= date.fromisoformat(paper["published"][:10]) <= END:
                kept.append({field: paper[field] for field in FIELDS})
    return kept


def write(papers: list[dict], out: Path) -> None:
    text = "".join(json.dumps(p, ensure_ascii=False, sort_keys=True) + "\n" for p in papers)
    out.write_bytes(lzma.compress(text.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, required=True, help="ai-2025.jsonl.gz")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    papers = cut(args.source)
    write(papers, args.out)
    print(f"{len(papers):,} papers first listed {START} – {END} → {args.out}")


if __name__ == "__main__":
    main()
