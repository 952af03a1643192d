"""Momentum on the real 2025 corpus: what `digestbot momentum` shows for a few topics, and
what the spike scan decides about them, as the Markdown of docs/momentum.md's last section.

    .venv/bin/python bench/real_momentum.py [--as-of 2025-12-28] [--topics SLUG ...]
                                            [--charts DIR]

The corpus store comes from `real_corpus.py` (tagged by the current tagger, rebuilt when the
tagger changes). `--charts DIR` also writes each topic's 12-week chart as the chats show it.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import UTC, date, datetime, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_corpus import corpus_store
from sqlmodel import Session

from digests.messages.chart import chart_png
from digests.messages.chart_spec import topic_chart
from digests.messages.plain_text import render_momentum
from digests.signals.spikes import SpikeSettings
from digests.topics.catalog import Catalog
from digests.usecases.reports import topic_momenta
from digests.usecases.spike_scan import scan

DOCS = Path(__file__).resolve().parents[1] / "docs"
TOPICS = (
    "rl-for-llm-agents",
    "diffusion-models",
    "vision-language-models",
    "llm-agent-orchestration",
    "test-time-scaling",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--as-of", type=date.fromisoformat, default=date(2025, 12, 28))
    parser.add_argument("--topics", nargs="+", default=list(TOPICS), metavar="SLUG")
    parser.add_argument("--charts", type=Path, metavar="DIR", help="also write PNG charts here")
    args = parser.parse_args(argv)

    catalog = Catalog.load()
    topics = [catalog.resolve(slug) for slug in args.topics]
    engine = corpus_store(say=lambda line: print(line, file=sys.stderr))
    now = datetime.combine(args.as_of, time(23, 59), tzinfo=UTC)
    with Session(engine) as session:
        momenta = topic_momenta(session, topics, as_of=args.as_of)
        # The whole catalog is scanned, as the scheduler does: the correction needs all of it.
        settings = SpikeSettings()
        decisions = scan(session, catalog.topics, as_of=args.as_of, settings=settings, now=now)
    engine.dispose()
    reasons = {decision.slug: decision.reason for decision in decisions}
    for topic in topics:
        momentum = momenta[topic.slug]
        print(f"### {topic.name}\n\n```\n{render_momentum(momentum)}```\n")
        print(f"Spike scan: {reasons[topic.slug]}\n")
        if args.charts:
            args.charts.mkdir(parents=True, exist_ok=True)
            path = args.charts / f"{topic.slug}.png"
            path.write_bytes(chart_png(topic_chart(topic.name, momentum.weekly)))
            print(f"![{topic.name}: papers per week]({os.path.relpath(path, DOCS)})\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
