"""class sessions, students, answers, polls

Revision ID: 0001
Revises:
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "class_session",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("code", sa.String(8), nullable=False, unique=True),
        sa.Column("lesson_id", sa.String(60), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("closed_at", sa.DateTime, nullable=True),
    )
    op.create_table(
        "student",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("session_id", sa.Integer, sa.ForeignKey("class_session.id", ondelete="CASCADE"), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("joined_at", sa.DateTime, nullable=False),
        sa.Column("furthest_step", sa.Integer, nullable=False, server_default="0"),
        sa.UniqueConstraint("session_id", "name"),
    )
    op.create_index("ix_student_session_id", "student", ["session_id"])
    op.create_table(
        "answer",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("student_id", sa.Integer, sa.ForeignKey("student.id", ondelete="CASCADE"), nullable=False),
        sa.Column("step", sa.Integer, nullable=False),
        sa.Column("attempt", sa.Integer, nullable=False),
        sa.Column("number", sa.Float, nullable=True),
        sa.Column("choice", sa.String(200), nullable=True),
        sa.Column("correct", sa.Boolean, nullable=True),
        sa.Column("misconception", sa.Integer, nullable=True),
        sa.Column("nonce", sa.String(40), nullable=False, unique=True),
        sa.Column("answered_at", sa.DateTime, nullable=False),
        sa.UniqueConstraint("student_id", "step", "attempt"),
    )
    op.create_index("ix_answer_student_id", "answer", ["student_id"])
    op.create_table(
        "poll",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("session_id", sa.Integer, sa.ForeignKey("class_session.id", ondelete="CASCADE"), nullable=False),
        sa.Column("question", sa.String(300), nullable=False),
        sa.Column("eps", sa.Float, nullable=False),
        sa.Column("opened_at", sa.DateTime, nullable=False),
        sa.Column("closed_at", sa.DateTime, nullable=True),
    )
    op.create_index("ix_poll_session_id", "poll", ["session_id"])
    op.create_table(
        "poll_report",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("poll_id", sa.Integer, sa.ForeignKey("poll.id", ondelete="CASCADE"), nullable=False),
        sa.Column("student_id", sa.Integer, sa.ForeignKey("student.id", ondelete="CASCADE"), nullable=False),
        sa.Column("reported", sa.Boolean, nullable=False),
        sa.Column("reported_at", sa.DateTime, nullable=False),
        sa.UniqueConstraint("poll_id", "student_id"),
    )
    op.create_index("ix_poll_report_poll_id", "poll_report", ["poll_id"])
    op.create_index("ix_poll_report_student_id", "poll_report", ["student_id"])


def downgrade() -> None:
    for t in ("poll_report", "poll", "answer", "student", "class_session"):
        op.drop_table(t)
