"""The real 2025 corpus, tagged by the current tagger, in a SQLite store the bench scripts share.

    from real_corpus import corpus_store
    engine = corpus_store()          # built on first use, then reused

`../shared/data/arxiv-real/ai-2025.jsonl.gz` (40,717 papers listed 2025-03-18 – 2025-12-31)
is parsed and ingested 2,000 papers per transaction, as `digestbot ingest --file` does, into
a SQLite file under $TMPDIR/digestbot-bench/. The file's name carries a hash of the corpus and
of the code that decides tags (tagger, catalog, topics), so a changed tagger builds a new store
and every figure computed from it follows the tagger. Building takes a minute or two.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sqlalchemy import Engine  # noqa: E402
from sqlmodel import Session  # noqa: E402

from digests.papers.feeds import parse_jsonl  # noqa: E402
from digests.store.engine import open_engine, upgrade_schema  # noqa: E402
from digests.topics.catalog import Catalog  # noqa: E402
from digests.topics.tagger import Tagger  # noqa: E402
from digests.usecases.ingest import ingest_records, sync_catalog  # noqa: E402

CORPUS = REPO.parent / "shared" / "data" / "arxiv-real" / "ai-2025.jsonl.gz"
# What decides a paper's tags: a change to any of these builds a new store.
TAGGING_CODE = (
    "digests/topics/tagger.py",
    "digests/topics/catalog.py",
    "digests/data/topics.toml",
    "digests/topics/topic_model.py",
    "digests/topics/text_features.py",
    "digests/data/topic_model.json.gz",
)
BATCH = 2_000
BUILT_AT = datetime(2026, 1, 1, tzinfo=UTC)  # `now` of the ingest: the tagging time stored


def store_path(corpus: Path = CORPUS) -> Path:
    digest = hashlib.sha256(corpus.read_bytes())
    for name in TAGGING_CODE:
        digest.update((REPO / name).read_bytes())
    cache = Path(os.environ.get("TMPDIR", tempfile.gettempdir())) / "digestbot-bench"
    return cache / f"real-corpus-{digest.hexdigest()[:16]}.db"


def corpus_store(corpus: Path = CORPUS, *, say=print) -> Engine:
    """A migrated SQLite store holding the tagged corpus; built when missing."""
    if not corpus.is_file():
        raise SystemExit(f"the real corpus is missing: {corpus}")
    path = store_path(corpus)
    if path.is_file():
        say(f"real corpus store: {path} (reused)")
        return open_engine(f"sqlite:///{path}")
    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    started = time.perf_counter()
    engine = open_engine(f"sqlite:///{partial}")
    count = ingest_corpus(engine, corpus)
    engine.dispose()
    partial.rename(path)
    seconds = time.perf_counter() - started
    say(f"real corpus store: {count:,} papers tagged into {path} in {seconds:.0f} s")
    return open_engine(f"sqlite:///{path}")


def ingest_corpus(engine: Engine, corpus: Path = CORPUS) -> int:
    """Migrate the store of `engine` and ingest the corpus into it; returns the papers read."""
    upgrade_schema(engine)
    catalog = Catalog.load()
    tagger = Tagger(catalog)
    feed = parse_jsonl(gzip.decompress(corpus.read_bytes()))
    with Session(engine) as session:
        sync_catalog(session, catalog=catalog, tagger=tagger, now=BUILT_AT)
        for start in range(0, len(feed.records), BATCH):
            batch = feed.records[start : start + BATCH]
            ingest_records(session, batch, tagger=tagger, catalog=catalog, now=BUILT_AT)
            session.commit()
    return len(feed.records)
