"""chat presence: why a channel is paused, and the last slash-command sync

Revision ID: 0005
Revises: 0002
Create Date: 2026-12-10
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("channel", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("paused_cause", sa.String(length=16), nullable=False, server_default="")
        )
    op.create_table(
        "command_sync",
        sa.Column("scope", sa.String(length=64), nullable=False),
        sa.Column("definition_hash", sa.String(length=64), nullable=False),
        sa.Column("command_ids", sa.JSON(), nullable=False),
        sa.Column("synced_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("scope"),
    )


def downgrade() -> None:
    op.drop_table("command_sync")
    with op.batch_alter_table("channel", schema=None) as batch_op:
        batch_op.drop_column("paused_cause")
