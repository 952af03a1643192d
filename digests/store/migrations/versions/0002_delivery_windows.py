"""delivery windows and unknown outcomes

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("delivery", schema=None) as batch_op:
        batch_op.add_column(sa.Column("stale_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("delivery_part", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("unknown_outcomes", sa.Integer(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("delivery_part", schema=None) as batch_op:
        batch_op.drop_column("unknown_outcomes")
    with op.batch_alter_table("delivery", schema=None) as batch_op:
        batch_op.drop_column("stale_at")
