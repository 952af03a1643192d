"""Messages as data, for the tests of how each platform renders them."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

from digests.messages.alert import SpikeAlert
from digests.messages.digest import DigestEntry, DigestPaper, TopicRef, compose_digest
from digests.signals.momentum import compute_momentum
from digests.signals.spikes import SpikeMemory, SpikeSettings, TopicCounts, evaluate
from tests.fakes.telegram_html import parse_telegram_html
from tests.papers import digest_paper

AS_OF = date(2026, 9, 27)
EVALS = TopicRef("evals", "Evaluation")
RL = TopicRef("agentic-rl", "Agentic RL")
# A Markdown link of a Discord embed: [text](url), brackets escaped inside the text.
LINK = re.compile(r"\[((?:\\.|[^\[\]\\])*)\]\(([^()\s]*)\)")
HOSTILE_TITLE = "<script>alert(1)</script> & @everyone /start@digest_test_bot"


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


def spike_alert() -> SpikeAlert:
    """A spike of RL for LLM Agents on 28 September (69 papers in four weeks after 29), its
    paper's title hostile to every platform's markup."""
    as_of = date(2026, 9, 28)
    daily = {as_of - timedelta(days=d): 3 for d in range(0, 23)}  # 69 in the last four weeks
    daily.update({as_of - timedelta(days=d): 1 for d in range(28, 57)})
    totals = {as_of - timedelta(days=d): 400 for d in range(0, 84)}
    momentum = compute_momentum("RL for LLM Agents", daily, totals, as_of)
    counts = TopicCounts(
        "rl-for-llm-agents", "RL for LLM Agents", momentum.count, momentum.previous, 11_200, 11_200
    )
    decision = evaluate(
        [counts],
        {"rl-for-llm-agents": SpikeMemory()},
        SpikeSettings(),
        now=datetime(2026, 9, 28, 21, tzinfo=UTC),
    )[0]
    entry = DigestEntry(digest_paper(title=HOSTILE_TITLE), (), "Ada Lovelace", "An abstract.")
    return SpikeAlert(
        TopicRef("rl-for-llm-agents", "RL for LLM Agents"), momentum, decision, (entry,)
    )


def numbered(n: int, topic: TopicRef = RL, **changes: Any) -> DigestPaper:
    """Paper `n` on `topic`, ranked by `n`, titled "Paper number `n`", with the details and gist
    that BLOCK of test_telegram_render.py and the patterns of test_render.py recognise;
    `changes` set any other field."""
    fields = {
        "title": f"Paper number {n}",
        "authors": ("Ada One", "Bo Two", "Cy Three", "Di Four"),
        "published": AS_OF,
        "primary_category": "cs.LG",
        "abstract": f"We study agents, case {n}. " * 6,
        "scores": {topic.slug: 1.0 - n / 1000},
    }
    return digest_paper(n, **(fields | changes))


def digest_of(papers, followed=(RL, EVALS), cap: int = 100):
    counts = {AS_OF - timedelta(days=n): 3 for n in range(0, 84, 7)}
    momenta = {t.slug: compute_momentum(t.name, counts, {AS_OF: 1_000}, AS_OF) for t in followed}
    return compose_digest(followed, papers, momenta, AS_OF - timedelta(days=6), AS_OF, cap)


def visible(part: dict) -> str:
    return parse_telegram_html(part["text"])[0]
