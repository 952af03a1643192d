"""Messages as data, for the tests of how each platform renders them."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from digests.messages.alert import SpikeAlert
from digests.messages.digest import DigestEntry, TopicRef
from digests.signals.momentum import compute_momentum
from digests.signals.spikes import SpikeSettings, TopicCounts, evaluate
from tests.papers import digest_paper

AS_OF = date(2026, 9, 27)
# A Markdown link of a Discord embed: [text](url), brackets escaped inside the text.
LINK = re.compile(r"\[((?:\\.|[^\[\]\\])*)\]\(([^()\s]*)\)")


def spike(name: str = "RL for LLM Agents", titles: tuple[str, ...] = ()) -> SpikeAlert:
    """A topic with 70 papers in the last four weeks after 29 in the four before."""
    ref = TopicRef("rl-for-llm-agents", name)
    daily = {AS_OF - timedelta(days=n % 28): 1 for n in range(28)}
    daily |= {AS_OF: 43}
    momentum = compute_momentum(name, daily, {AS_OF: 10_000}, AS_OF)
    counts = TopicCounts(ref.slug, name, 70, 29, 10_000, 10_000)
    decision = evaluate([counts], {}, SpikeSettings(), now=datetime(2026, 9, 28, 6, tzinfo=UTC))
    papers = tuple(
        DigestEntry(digest_paper(n, title=title), (), "Ada Lovelace", "We study it.")
        for n, title in enumerate(titles)
    )
    return SpikeAlert(ref, momentum, decision[0], papers)
