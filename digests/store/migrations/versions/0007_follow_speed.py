"""search words stored only where the database cannot compute them

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-11

Migration 0003 stored every paper's search words in `paper.search_text` (1.4 kB a real paper
on average). Now it holds them only for papers with non-ASCII title or abstract and is NULL
for the rest, whose words each index computes itself (`digests.store.search_words`): SQLite's
`paper_fts` becomes a contentless FTS5 table fed by triggers, PostgreSQL's `ix_paper_search`
a GIN index on an expression. The space freed returns to the operating system after `VACUUM`
(SQLite) or `VACUUM FULL paper` (PostgreSQL).
"""

import sqlalchemy as sa
from alembic import op

from digests.follows.query import search_text
from digests.store.search_words import POSTGRES_VECTOR, sqlite_words, stored_search_text

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_BATCH = 5000
_ADD = f"INSERT INTO paper_fts(rowid, words) VALUES (new.id, {sqlite_words('new')});"
_REMOVE = (
    "INSERT INTO paper_fts(paper_fts, rowid, words) "
    f"VALUES ('delete', old.id, {sqlite_words('old')});"
)
_TRIGGERS = {
    "paper_fts_insert": f"AFTER INSERT ON paper BEGIN {_ADD} END",
    "paper_fts_delete": f"AFTER DELETE ON paper BEGIN {_REMOVE} END",
    "paper_fts_update": (
        f"AFTER UPDATE OF search_text, title, abstract ON paper BEGIN {_REMOVE} {_ADD} END"
    ),
}


def upgrade() -> None:
    sqlite = _drop_index()
    _replace_column(sa.Column("search_text", sa.String(), nullable=True), stored_search_text)
    if sqlite:
        # Contentless: the index keeps no copy of the text; a row leaves it by the 'delete'
        # command given the words it was added with, which the triggers recompute.
        op.execute(
            "CREATE VIRTUAL TABLE paper_fts USING fts5(words, content='', "
            "tokenize='unicode61 remove_diacritics 0')"
        )
        words = sqlite_words("paper")
        op.execute(f"INSERT INTO paper_fts(rowid, words) SELECT id, {words} FROM paper")
        for name, body in _TRIGGERS.items():
            op.execute(f"CREATE TRIGGER {name} {body}")
    else:
        op.execute(f"CREATE INDEX ix_paper_search ON paper USING gin ({POSTGRES_VECTOR})")
        # Statistics of the indexed expression: without them the planner guesses how many
        # papers a word is in and may read a whole window instead of the index.
        op.execute("ANALYZE paper")


def downgrade() -> None:
    """Back to 0003's layout: every paper's words stored, the indexes reading the column."""
    sqlite = _drop_index()
    column = sa.Column("search_text", sa.String(), nullable=False, server_default="")
    _replace_column(column, search_text)
    if sqlite:
        op.execute(
            "CREATE VIRTUAL TABLE paper_fts USING fts5(search_text, content='paper', "
            "content_rowid='id', tokenize='unicode61 remove_diacritics 0')"
        )
        op.execute("INSERT INTO paper_fts(paper_fts) VALUES ('rebuild')")
        for name, body in _OLD_SQLITE_TRIGGERS.items():
            op.execute(f"CREATE TRIGGER {name} {body}")
    else:
        op.execute(
            "CREATE INDEX ix_paper_search ON paper "
            "USING gin (to_tsvector('simple'::regconfig, search_text))"
        )


def _drop_index() -> bool:
    """Drop the full-text index (and SQLite's triggers feeding it); True on SQLite."""
    if op.get_bind().dialect.name != "sqlite":
        op.drop_index("ix_paper_search", table_name="paper")
        return False
    for name in _TRIGGERS:  # the same names in 0003
        op.execute(f"DROP TRIGGER {name}")
    op.execute("DROP TABLE paper_fts")
    return True


def _replace_column(column: sa.Column, words) -> None:
    """`paper.search_text` dropped (its space freed) and added again as `column`, set to
    `words(title, abstract)` where that is not None, a batch of papers at a time. Not
    rebuilt with a table copy: dropping `paper` in SQLite would delete its tags."""
    op.execute("ALTER TABLE paper DROP COLUMN search_text")
    op.add_column("paper", column)
    bind = op.get_bind()
    paper = sa.table(
        "paper",
        sa.column("id"),
        sa.column("title"),
        sa.column("abstract"),
        sa.column("search_text"),
    )
    after = 0
    while True:
        query = sa.select(paper.c.id, paper.c.title, paper.c.abstract).where(paper.c.id > after)
        rows = bind.execute(query.order_by(paper.c.id).limit(_BATCH)).all()
        if not rows:
            return
        values = [(r.id, words(r.title, r.abstract)) for r in rows]
        values = [{"paper_id": id_, "text": text} for id_, text in values if text is not None]
        if values:
            bind.execute(
                sa.update(paper)
                .where(paper.c.id == sa.bindparam("paper_id"))
                .values(search_text=sa.bindparam("text")),
                values,
            )
        after = rows[-1].id


_OLD_SQLITE_TRIGGERS = {  # as migration 0003 made them
    "paper_fts_insert": "AFTER INSERT ON paper BEGIN "
    "INSERT INTO paper_fts(rowid, search_text) VALUES (new.id, new.search_text); END",
    "paper_fts_delete": "AFTER DELETE ON paper BEGIN "
    "INSERT INTO paper_fts(paper_fts, rowid, search_text) "
    "VALUES ('delete', old.id, old.search_text); END",
    "paper_fts_update": "AFTER UPDATE OF search_text ON paper BEGIN "
    "INSERT INTO paper_fts(paper_fts, rowid, search_text) "
    "VALUES ('delete', old.id, old.search_text); "
    "INSERT INTO paper_fts(rowid, search_text) VALUES (new.id, new.search_text); END",
}
