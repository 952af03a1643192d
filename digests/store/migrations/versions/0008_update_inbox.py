"""an inbox of the updates chat platforms sent: kept before they are acknowledged, known after

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-12
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "inbound_update",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("key", sa.String(length=128), nullable=False),
        sa.Column("chat", sa.String(length=64), nullable=False),
        sa.Column("receiver", sa.String(length=128), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("handled_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("platform", "key", name="uq_inbound_update_key"),
    )
    op.create_index(
        "ix_inbound_update_waiting", "inbound_update", ["platform", "receiver", "handled_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_inbound_update_waiting", table_name="inbound_update")
    op.drop_table("inbound_update")
