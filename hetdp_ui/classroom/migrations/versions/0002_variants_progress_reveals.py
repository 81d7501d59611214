"""per-student variants, the time a student reached their step, look-ups, reveals

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-27

Adds ``variant`` (a student's own parameters of a question step and their answer, computed by the
core), ``reveal`` (steps whose answer the instructor pushed to the class), ``student.furthest_at``
(when the student reached their furthest step: the live view's "time on it") and
``answer.looked_up`` (the student had opened the answer before checking). Existing rows keep their
values; the new columns are NULL for them (unknown), which the live view and the export show as
unknown.
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


#: the table each kind of owner row lives in
OWNERS = {"student": "student", "session": "class_session"}


def _per_step(name: str, owner: str, *columns: sa.Column) -> None:
    """A table of at most one row per owner (a student or a session) and lesson step, deleted with its
    owner, indexed by it."""
    key = f"{owner}_id"
    op.create_table(
        name,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(key, sa.Integer, sa.ForeignKey(f"{OWNERS[owner]}.id", ondelete="CASCADE"), nullable=False),
        sa.Column("step", sa.Integer, nullable=False),
        *columns,
        sa.UniqueConstraint(key, "step"),
    )
    op.create_index(f"ix_{name}_{key}", name, [key])


def upgrade() -> None:
    op.add_column("student", sa.Column("furthest_at", sa.DateTime, nullable=True))
    op.add_column("answer", sa.Column("looked_up", sa.Boolean, nullable=True))
    _per_step(
        "variant",
        "student",
        sa.Column("params", sa.String(400), nullable=False),
        sa.Column("answer", sa.Float, nullable=False),
        sa.Column("drawn_at", sa.DateTime, nullable=False),
    )
    _per_step("reveal", "session", sa.Column("revealed_at", sa.DateTime, nullable=False))


def downgrade() -> None:
    op.drop_table("reveal")
    op.drop_table("variant")
    # ALTER TABLE … DROP COLUMN (SQLite has it since 3.35): a batch copy of the table would drop and
    # recreate ``student``, and with foreign keys on, that drop deletes every answer (ON DELETE CASCADE)
    op.drop_column("answer", "looked_up")
    op.drop_column("student", "furthest_at")
