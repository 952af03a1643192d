"""An optional written answer to `/ask`, grounded only in the five papers found.

Off unless the operator names an OpenAI-compatible endpoint (ASK_LLM_URL, ASK_LLM_MODEL; the
runtime's `bot.ask_llm`). The model is given the question and the five abstracts, numbered, and
asked for at most three sentences, each ending with the numbers of the papers it rests on. What
comes back is kept only when it is so: one to three sentences, every one citing a paper by a
number that was given. Anything else is dropped, and the reader gets the papers alone, as
without an endpoint: an answer that cites nothing cannot be checked against the papers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from digests.messages.digest import sentences, shorten

SENTENCES = 3
ANSWER_LIMIT = 900  # characters shown of an answer
ABSTRACT_LIMIT = 2_000  # characters of each abstract sent
_CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")

# The model's reply to the messages, or None when there is none (unreachable, refused, late).
AnswerWriter = Callable[[list[dict[str, str]]], str | None]

INSTRUCTIONS = (
    "You answer a reader's question about research papers using only the numbered abstracts "
    "given. Answer in at most three sentences. End every sentence with the numbers of the "
    "papers it rests on in square brackets, like [2] or [1, 3]. Do not use anything the "
    "abstracts do not say. If they do not answer the question, say so in one sentence citing "
    "the closest paper."
)


def answer_messages(question: str, papers: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """The chat messages asking for an answer from `papers`, (title, abstract) numbered from 1."""
    numbered = "\n\n".join(
        f"[{n}] {title}\n{shorten(' '.join(abstract.split()), ABSTRACT_LIMIT)}"
        for n, (title, abstract) in enumerate(papers, start=1)
    )
    return [
        {"role": "system", "content": INSTRUCTIONS},
        {"role": "user", "content": f"Abstracts:\n\n{numbered}\n\nQuestion: {question}"},
    ]


def grounded(reply: str | None, papers: int) -> str | None:
    """`reply` on one line when every sentence of it (one to three) cites papers 1..`papers`
    and nothing else; None otherwise."""
    if not reply:
        return None
    found = sentences(reply)
    if not 1 <= len(found) <= SENTENCES:
        return None
    for sentence in found:
        cited = [int(n) for group in _CITATION.findall(sentence) for n in group.split(",")]
        if not cited or not all(1 <= n <= papers for n in cited):
            return None
    text = " ".join(found)
    return text if len(text) <= ANSWER_LIMIT else None
