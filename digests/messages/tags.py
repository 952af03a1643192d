"""Which of a paper's tags are worth showing beside it.

A paper tagged "RL for LLM Agents" also carries every ancestor of it ("LLM Agents", "Large
Language Models", …) as roll-up tags, which momentum counts. Beside the paper they say nothing:
a reader learns why the paper is there from its most specific tags. So a paper shows the tags
no other shown tag descends from, best score first, at most `SHOWN_TAGS`; the topic the paper is
listed under (a topic page's, a digest section's) is always among them. Stored tags and counts
are untouched: this decides what is shown only.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from digests.topics.catalog import Catalog

SHOWN_TAGS = 4

Lineage = Mapping[str, Collection[str]]  # slug -> every transitive ancestor's slug


@functools.lru_cache(maxsize=8)
def lineage(catalog: Catalog) -> Mapping[str, frozenset[str]]:
    """Every catalog topic's ancestors, for `shown_tags` (computed once per catalog)."""
    return {topic.slug: frozenset(catalog.ancestors(topic.slug)) for topic in catalog.topics}


def shown_tags(
    scores: Mapping[str, float],
    ancestors: Lineage,
    *,
    home: str | None = None,
    limit: int = SHOWN_TAGS,
) -> list[str]:
    """The slugs of `scores` (slug -> tag score) to show, best first: none an ancestor of
    another tag of the paper, at most `limit`. `home`, the topic the paper is listed under,
    is always shown (its ancestors then never are); it need not be in `scores`."""
    covered = {parent for slug in scores for parent in ancestors.get(slug, ())}
    if home is not None:
        covered |= set(ancestors.get(home, ()))
    specific = [slug for slug in scores if slug not in covered and slug != home]
    specific.sort(key=lambda slug: (-scores[slug], slug))
    if home is None:
        return specific[: max(limit, 0)]
    chosen = specific[: max(limit - 1, 0)]
    best = scores.get(home, float("inf"))
    # The home topic takes its place by score among the chosen ones.
    at = next((i for i, slug in enumerate(chosen) if scores[slug] < best), len(chosen))
    return [*chosen[:at], home, *chosen[at:]]
