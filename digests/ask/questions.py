"""Ask about a topic, the pure part: what was asked, which words to look for, which sentence of
an abstract answers best, and the reply in plain words.

`/ask RL for LLM Agents: which papers use a world model as the reward?` names a topic, a colon,
then the question. Without a colon, the longest run of first words that names a topic does (or
else the first word): Discord's slash command sends its topic option as one word (a picked
topic's slug, or the typed name with its spaces made underscores), then the question.

The question's words, common English words left out, are searched for in the topic's papers
through the full-text index (`digests.store.ask`: BM25 on SQLite's FTS5, `ts_rank_cd` on
PostgreSQL), any word matching, the best ranked first. Each answer quotes the sentence of its
abstract with the most of the question's words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from digests.errors import UsageError
from digests.follows.query import Any, Node, Term, search_words
from digests.messages.digest import TopicRef, sentences, shorten

ANSWERS = 5  # papers a chat's reply shows
MAX_WORDS = 12  # question words searched for
SENTENCE_LIMIT = 240  # characters of a quoted sentence
TITLE_LIMIT = 200
EXAMPLE = "/ask RL for LLM Agents: which papers use a world model as the reward?"
_COMMON = """a about above after all also am an and any are as at be been being but by can could
did do does doing for from had has have having he her here hers how i if in into is it its itself
just me more most my no nor not of off on once only or other our out over own paper papers same
she should so some such than that the their them then there these they this those through to too
under until up use used uses using very was we were what when where which while who whom why will
with would you your"""
STOP_WORDS = frozenset(_COMMON.split())


class AskError(UsageError, ValueError):
    """A question that cannot be searched; the message says what to type instead."""


@dataclass(frozen=True)
class Answer:
    arxiv_id: str
    title: str
    url: str
    published: date
    sentence: str  # of its abstract, the one with the most of the question's words
    abstract: str = ""  # whole, for a written answer (`digests.ask.answering`)


@dataclass(frozen=True)
class AskResult:
    topic: TopicRef
    question: str
    answers: tuple[Answer, ...]
    total: int  # papers of the topic that match, of which `answers` are the best


def split_ask(argument: str, names_topic: Callable[[str], bool]) -> tuple[str, str]:
    """(topic, question) of `TOPIC: QUESTION`, or of `TOPIC QUESTION` where `names_topic` tells
    where the topic ends; raises AskError."""
    topic, colon, question = argument.partition(":")
    if not colon:
        words = argument.split()
        named = (n for n in range(len(words), 1, -1) if names_topic(_spaced(words[:n])))
        cut = next(named, 1)
        topic, question = _spaced(words[:cut]), " ".join(words[cut:])
    topic, question = topic.strip(), question.strip()
    if not topic:
        raise AskError(f"Name a topic before the colon: {EXAMPLE}")
    if not question:
        raise AskError(f"Name a topic, a colon, then your question: {EXAMPLE}")
    return topic, question


def _spaced(words: Sequence[str]) -> str:
    return " ".join(words).replace("_", " ")


def question_words(question: str) -> list[str]:
    """The words to search for: the question's index words, common words left out, each once,
    at most MAX_WORDS; raises AskError when none is left."""
    words = list(dict.fromkeys(w for w in search_words(question) if w not in STOP_WORDS))
    if not words:
        raise AskError(
            f"That question has no word to search for; use the words a paper would: {EXAMPLE}"
        )
    return words[:MAX_WORDS]


def any_word(words: Sequence[str]) -> Node:
    """The full-text query matching a paper with any of `words`."""
    return Any(tuple(Term((word,)) for word in words))


def best_sentence(abstract: str, words: Sequence[str], limit: int = SENTENCE_LIMIT) -> str:
    """The abstract's sentence with the most distinct question words (the first of equals)."""
    wanted = set(words)
    found = sentences(abstract)
    if not found:
        return ""
    best = max(found, key=lambda sentence: len(wanted.intersection(search_words(sentence))))
    return shorten(best, limit)


def reply_text(
    result: AskResult, all_results_url: str | None = None, written: str | None = None
) -> str:
    """The answer as a chat shows it: a `written` answer citing the papers by number, when
    there is one, then the best papers with their sentence, and where the rest are."""
    asked = shorten(result.question, 120)
    if not result.answers:
        return f"No paper of {result.topic.name} matches “{asked}”. Try other words."
    shown = len(result.answers)
    head = f"{result.topic.name}: {result.total:,} papers match “{asked}”"
    lines = [head + (f"; the best {shown}:" if result.total > shown else ":")]
    if written:
        lines.append(f"In short (written by a language model from these papers): {written}")
    for number, answer in enumerate(result.answers, start=1):
        lines.append(f"{number}. {shorten(answer.title, TITLE_LIMIT)} {answer.url}")
        if answer.sentence:
            lines.append(f"   “{answer.sentence}”")
    if all_results_url:
        lines.append(f"All results: {all_results_url}")
    return "\n".join(lines)
