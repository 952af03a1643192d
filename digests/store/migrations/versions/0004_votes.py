"""reader feedback: vote offers, votes and the install secret voters are hashed with

Revision ID: 0004
Revises: 0002
Create Date: 2026-12-01
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "install_secret",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("value", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    op.create_table(
        "vote_offer",
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("topic_id", sa.Integer(), nullable=False),
        sa.Column("offered_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["channel_id"], ["channel.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["paper_id"], ["paper.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["topic_id"], ["topic.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("channel_id", "key"),
    )
    op.create_table(
        "vote",
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("topic_id", sa.Integer(), nullable=False),
        sa.Column("voter", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("value", sa.Integer(), nullable=False),
        sa.Column("voted_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["channel_id"], ["channel.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["paper_id"], ["paper.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["topic_id"], ["topic.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("channel_id", "paper_id", "topic_id", "voter"),
    )
    with op.batch_alter_table("vote", schema=None) as batch_op:
        batch_op.create_index("ix_vote_channel_topic", ["channel_id", "topic_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("vote", schema=None) as batch_op:
        batch_op.drop_index("ix_vote_channel_topic")
    op.drop_table("vote")
    op.drop_table("vote_offer")
    op.drop_table("install_secret")
