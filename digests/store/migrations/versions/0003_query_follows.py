"""query, author and category follows: search text, its full-text indexes, follow filters

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-10

SQLite gets an FTS5 table over `paper.search_text` (external content, kept in sync by
triggers); PostgreSQL a GIN index on its `simple` tsvector. Both index the words
`digests.follows.query.search_text` wrote, so a query finds the same papers on either.
"""

import sqlalchemy as sa
from alembic import op

from digests.follows.query import search_text

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_BATCH = 2000
_SQLITE_TRIGGERS = {
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


def upgrade() -> None:
    op.add_column("paper", sa.Column("search_text", sa.String(), nullable=False, server_default=""))
    _fill_search_text()
    op.create_table(
        "follow_filter",
        sa.Column("topic_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("definition", sa.String(), nullable=False),
        sa.Column("shown", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["topic_id"], ["topic.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("topic_id"),
    )
    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            "CREATE VIRTUAL TABLE paper_fts USING fts5(search_text, content='paper', "
            "content_rowid='id', tokenize='unicode61 remove_diacritics 0')"
        )
        op.execute("INSERT INTO paper_fts(paper_fts) VALUES ('rebuild')")
        for name, body in _SQLITE_TRIGGERS.items():
            op.execute(f"CREATE TRIGGER {name} {body}")
    else:
        op.execute(
            "CREATE INDEX ix_paper_search ON paper "
            "USING gin (to_tsvector('simple'::regconfig, search_text))"
        )


def _fill_search_text() -> None:
    """Papers stored before this migration get their search text, a batch at a time."""
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
        rows = bind.execute(
            sa.select(paper.c.id, paper.c.title, paper.c.abstract)
            .where(paper.c.id > after)
            .order_by(paper.c.id)
            .limit(_BATCH)
        ).all()
        if not rows:
            return
        bind.execute(
            sa.update(paper)
            .where(paper.c.id == sa.bindparam("paper_id"))
            .values(search_text=sa.bindparam("text")),
            [{"paper_id": r.id, "text": search_text(r.title, r.abstract)} for r in rows],
        )
        after = rows[-1].id


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for name in _SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER {name}")
        op.execute("DROP TABLE paper_fts")
    else:
        op.drop_index("ix_paper_search", table_name="paper")
    op.drop_table("follow_filter")
    with op.batch_alter_table("paper", schema=None) as batch_op:
        batch_op.drop_column("search_text")
