"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "channel",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("chat_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("thread_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("guild_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("title", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("timezone", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("digest_weekday", sa.Integer(), nullable=False),
        sa.Column("digest_time", sqlmodel.sql.sqltypes.AutoString(length=5), nullable=False),
        sa.Column("alerts_enabled", sa.Boolean(), nullable=False),
        sa.Column("alert_role_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("paused_reason", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("paused_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("platform", "chat_id", "thread_id"),
    )
    with op.batch_alter_table("channel", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_channel_guild_id"), ["guild_id"], unique=False)
        batch_op.create_index(
            "ix_channel_schedule", ["digest_weekday", "digest_time", "timezone"], unique=False
        )

    op.create_table(
        "ingest_state",
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column("cursor", sa.JSON(), nullable=False),
        sa.Column("last_success_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_table(
        "lease",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("holder", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    op.create_table(
        "paper",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("arxiv_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("title", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("abstract", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("authors", sa.JSON(), nullable=False),
        sa.Column("affiliations", sa.JSON(), nullable=False),
        sa.Column("categories", sa.JSON(), nullable=False),
        sa.Column("primary_category", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("published", sa.DateTime(timezone=True), nullable=False),
        sa.Column("published_on", sa.Date(), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=True),
        sa.Column("abs_url", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("pdf_url", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("comment", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("doi", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("journal_ref", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("ingested_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("paper", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_paper_arxiv_id"), ["arxiv_id"], unique=True)
        batch_op.create_index(
            batch_op.f("ix_paper_primary_category"), ["primary_category"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_paper_published_on"), ["published_on"], unique=False)

    op.create_table(
        "topic",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("slug", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=256), nullable=False),
        sa.Column("description", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("parents", sa.JSON(), nullable=False),
        sa.Column("rules_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("topic", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_topic_slug"), ["slug"], unique=True)

    op.create_table(
        "delivery",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("period_key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("paper_count", sa.Integer(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("claimed_by", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["channel_id"], ["channel.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("channel_id", "kind", "period_key"),
    )
    with op.batch_alter_table("delivery", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_delivery_channel_id"), ["channel_id"], unique=False)
        batch_op.create_index(
            "ix_delivery_status_next", ["status", "next_attempt_at"], unique=False
        )

    op.create_table(
        "follow",
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("topic_id", sa.Integer(), nullable=False),
        sa.Column("mode", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["channel_id"], ["channel.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["topic_id"], ["topic.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("channel_id", "topic_id"),
    )
    op.create_table(
        "paper_topic",
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("topic_id", sa.Integer(), nullable=False),
        sa.Column("source", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("published_on", sa.Date(), nullable=False),
        sa.Column("tagged_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["paper_id"], ["paper.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["topic_id"], ["topic.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("paper_id", "topic_id", "source"),
    )
    with op.batch_alter_table("paper_topic", schema=None) as batch_op:
        batch_op.create_index(
            "ix_paper_topic_day", ["published_on", "topic_id", "paper_id"], unique=False
        )
        batch_op.create_index(
            "ix_paper_topic_topic_tagged", ["topic_id", "tagged_at"], unique=False
        )

    op.create_table(
        "spike_state",
        sa.Column("topic_id", sa.Integer(), nullable=False),
        sa.Column("elevated", sa.Boolean(), nullable=False),
        sa.Column("alerted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("alerted_count", sa.Integer(), nullable=False),
        sa.Column("alerted_share", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["topic_id"], ["topic.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("topic_id"),
    )
    op.create_table(
        "delivery_part",
        sa.Column("delivery_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("message_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("error", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.ForeignKeyConstraint(["delivery_id"], ["delivery.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("delivery_id", "seq"),
    )


def downgrade() -> None:

    op.drop_table("delivery_part")
    op.drop_table("spike_state")
    with op.batch_alter_table("paper_topic", schema=None) as batch_op:
        batch_op.drop_index("ix_paper_topic_topic_tagged")
        batch_op.drop_index("ix_paper_topic_day")

    op.drop_table("paper_topic")
    op.drop_table("follow")
    with op.batch_alter_table("delivery", schema=None) as batch_op:
        batch_op.drop_index("ix_delivery_status_next")
        batch_op.drop_index(batch_op.f("ix_delivery_channel_id"))

    op.drop_table("delivery")
    with op.batch_alter_table("topic", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_topic_slug"))

    op.drop_table("topic")
    with op.batch_alter_table("paper", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_paper_published_on"))
        batch_op.drop_index(batch_op.f("ix_paper_primary_category"))
        batch_op.drop_index(batch_op.f("ix_paper_arxiv_id"))

    op.drop_table("paper")
    op.drop_table("lease")
    op.drop_table("ingest_state")
    with op.batch_alter_table("channel", schema=None) as batch_op:
        batch_op.drop_index("ix_channel_schedule")
        batch_op.drop_index(batch_op.f("ix_channel_guild_id"))

    op.drop_table("channel")
