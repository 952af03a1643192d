"""Ask about a topic, read from the store: the topic's papers that best match a question."""

from __future__ import annotations

from sqlmodel import Session

from digests.ask.questions import ANSWERS, Answer, AskResult, any_word, best_sentence
from digests.messages.digest import TopicRef
from digests.messages.layout import clean_text, link_url
from digests.store import repo
from digests.store.ask import ranked_topic_papers
from digests.store.models import Paper
from digests.topics.catalog import TopicDef


def matching_papers(
    session: Session, topic: TopicDef, words: list[str], *, offset: int = 0, limit: int = ANSWERS
) -> tuple[list[Paper], int]:
    """A page of the topic's papers with any of `words`, most relevant first, and the count."""
    row = repo.topic_rows(session).get(topic.slug)
    if row is None:
        return [], 0
    return ranked_topic_papers(session, row.id, any_word(words), offset=offset, limit=limit)


def ask_topic(session: Session, topic: TopicDef, question: str, words: list[str]) -> AskResult:
    """The best ANSWERS papers of `topic` for `question` (searched as `words`), each with the
    sentence of its abstract that matches best."""
    papers, total = matching_papers(session, topic, words)
    answers = tuple(
        Answer(
            arxiv_id=paper.arxiv_id,
            title=clean_text(paper.title, 500) or paper.arxiv_id,
            url=link_url(paper.abs_url, paper.arxiv_id),
            published=paper.published_on,
            sentence=best_sentence(paper.abstract, words),
            abstract=paper.abstract,
        )
        for paper in papers
    )
    return AskResult(TopicRef(topic.slug, topic.name), question, answers, total)
