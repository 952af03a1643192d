"""Papers of RL for LLM Agents with a known answer to a question, for the /ask tests."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Engine
from sqlmodel import Session

from digests.topics.catalog import Catalog
from digests.topics.tagger import Tagger
from digests.usecases.ingest import ingest_records, sync_catalog
from tests.papers import paper_record

QUESTION = "which papers use a world model as the reward?"
# The one paper whose abstract speaks of a world model giving the reward, and its sentence.
ANSWER_TITLE = "Dreaming of rewards: agents graded by their own world model"
ANSWER_SENTENCE = "A learned world model of the environment supplies the reward for each rollout."
ABSTRACTS = {
    ANSWER_TITLE: f"We train language model agents with reinforcement learning. {ANSWER_SENTENCE}",
    "Shaping the reward of tool-using agents": (
        "We train agents with reinforcement learning. Reward shaping speeds up training."
    ),
    "Planning agents on long horizons": (
        "We train agents with reinforcement learning for long tasks. Planning helps."
    ),
}


def seed_ask_papers(engine: Engine, catalog: Catalog, *, now: datetime, filler: int = 0) -> None:
    """The papers of ABSTRACTS, and `filler` more that mention a reward once, in RL for LLM
    Agents."""
    papers = list(ABSTRACTS.items())
    papers += [
        (f"Agent study {n}", "We train agents with reinforcement learning and a reward.")
        for n in range(filler)
    ]
    records = [
        paper_record(
            n,
            now - timedelta(days=1 + n % 20),
            title=title,
            abstract=abstract,
            upstream_topics=("RL for LLM Agents",),
        )
        for n, (title, abstract) in enumerate(papers, start=1)
    ]
    tagger = Tagger(catalog)
    with Session(engine) as session:
        sync_catalog(session, catalog=catalog, tagger=tagger, now=now)
        ingest_records(session, records, tagger=tagger, catalog=catalog, now=now)
        session.commit()
