"""an index for the topic pages: a topic's papers by first-version day

Revision ID: 0006
Revises: 0002
Create Date: 2026-12-08
"""

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_paper_topic_topic_day",
        "paper_topic",
        ["topic_id", "published_on", "paper_id"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index("ix_paper_topic_topic_day", table_name="paper_topic")
