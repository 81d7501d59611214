"""The class database: schema, engine and schema-version check.

Where: ``HETDP_DATABASE_URL`` when set (``postgresql+psycopg://user@host/db`` for a department's
shared server; any SQLAlchemy URL), else the SQLite file ``class.sqlite`` in the data directory
(``HETDP_DATA_DIR``, default ``$XDG_DATA_HOME/hetdp`` or ``~/.local/share/hetdp``). SQLite runs in
WAL mode (readers never wait for a writer) with a 30 s busy timeout and ``BEGIN IMMEDIATE`` for
writes (two writers queue instead of failing on a lock upgrade); PostgreSQL connections are checked
before use (``pool_pre_ping``), so a restarted server is reconnected to.

Schema versions are Alembic revisions (``migrations/versions``). :func:`ensure_schema` creates the
schema in an empty database, accepts a database at the code's revision and refuses any other with
one line saying what to do (``hetdp class migrate``, or upgrading hetdp). Workers starting together
take a lock first (a file lock beside an SQLite file, an advisory lock on PostgreSQL).
"""

from __future__ import annotations

import functools
import os
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import (
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
    create_engine,
    event,
    inspect,
    text,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

URL_ENV = "HETDP_DATABASE_URL"
DATA_ENV = "HETDP_DATA_DIR"


class SchemaMismatch(RuntimeError):
    """The database's schema revision is not the one this code uses (the message says what to do)."""


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class ClassSession(Base):
    """One live class: a lesson, a join code, the hash of the instructor's key, open or closed."""

    __tablename__ = "class_session"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(8), unique=True)
    lesson_id: Mapped[str] = mapped_column(String(60))
    key_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class Student(Base):
    """A student in one session: the display name they chose, the hash of their token (their
    identity; the token itself is only in their link), the furthest step they reached and when
    (revision 0002; None before it, or before they opened a step)."""

    __tablename__ = "student"
    __table_args__ = (UniqueConstraint("session_id", "name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("class_session.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    joined_at: Mapped[datetime] = mapped_column(DateTime)
    furthest_step: Mapped[int] = mapped_column(Integer, default=0)
    furthest_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class Answer(Base):
    """One *Check my answer*: the value or choice given, right or wrong (None for a "your choice"
    step), the misconception it matches, the attempt number, whether the student had looked the answer
    up before (revision 0002; None for earlier rows). ``nonce`` makes a retried submission idempotent:
    the same click is stored once however often it is sent."""

    __tablename__ = "answer"
    __table_args__ = (UniqueConstraint("student_id", "step", "attempt"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    student_id: Mapped[int] = mapped_column(ForeignKey("student.id", ondelete="CASCADE"), index=True)
    step: Mapped[int] = mapped_column(Integer)
    attempt: Mapped[int] = mapped_column(Integer)
    number: Mapped[float | None] = mapped_column(Float, nullable=True)
    choice: Mapped[str | None] = mapped_column(String(200), nullable=True)
    correct: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    misconception: Mapped[int | None] = mapped_column(Integer, nullable=True)
    nonce: Mapped[str] = mapped_column(String(40), unique=True)
    answered_at: Mapped[datetime] = mapped_column(DateTime)
    looked_up: Mapped[bool | None] = mapped_column(Boolean, nullable=True)


class Variant(Base):
    """A student's own variant of a question step (revision 0002): the parameters drawn for them
    (:func:`hetdp_core.teaching.lesson_variants.variant_id`) and their answer, computed by the core."""

    __tablename__ = "variant"
    __table_args__ = (UniqueConstraint("student_id", "step"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    student_id: Mapped[int] = mapped_column(ForeignKey("student.id", ondelete="CASCADE"), index=True)
    step: Mapped[int] = mapped_column(Integer)
    params: Mapped[str] = mapped_column(String(400))
    answer: Mapped[float] = mapped_column(Float)
    drawn_at: Mapped[datetime] = mapped_column(DateTime)


class Reveal(Base):
    """A step whose answer the instructor revealed to the class (revision 0002), and when."""

    __tablename__ = "reveal"
    __table_args__ = (UniqueConstraint("session_id", "step"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("class_session.id", ondelete="CASCADE"), index=True)
    step: Mapped[int] = mapped_column(Integer)
    revealed_at: Mapped[datetime] = mapped_column(DateTime)


class Poll(Base):
    """A private yes/no question asked of the class at level ``eps`` (randomized response)."""

    __tablename__ = "poll"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("class_session.id", ondelete="CASCADE"), index=True)
    question: Mapped[str] = mapped_column(String(300))
    eps: Mapped[float] = mapped_column(Float)
    opened_at: Mapped[datetime] = mapped_column(DateTime)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class PollReport(Base):
    """One student's randomized report: only the answer sent after the coin, never the true one."""

    __tablename__ = "poll_report"
    __table_args__ = (UniqueConstraint("poll_id", "student_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    poll_id: Mapped[int] = mapped_column(ForeignKey("poll.id", ondelete="CASCADE"), index=True)
    student_id: Mapped[int] = mapped_column(ForeignKey("student.id", ondelete="CASCADE"), index=True)
    reported: Mapped[bool] = mapped_column(Boolean)
    reported_at: Mapped[datetime] = mapped_column(DateTime)


TABLES = Base.metadata.tables
#: the tables by the names the stores use
SESSION, STUDENT, ANSWER, POLL, REPORT, VARIANT, REVEAL = (
    TABLES[t] for t in ("class_session", "student", "answer", "poll", "poll_report", "variant", "reveal")
)


def data_dir() -> Path:
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "hetdp"


def database_url() -> str:
    """``HETDP_DATABASE_URL``, or the default SQLite file (its folder is created)."""
    url = os.environ.get(URL_ENV, "").strip()
    if url:
        return url
    d = data_dir()
    d.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{d / 'class.sqlite'}"


def _sqlite_setup(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record):  # noqa: ANN001
        dbapi_conn.isolation_level = None  # SQLAlchemy's event below issues BEGIN itself
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        # WAL with synchronous=NORMAL: a commit survives any crash of the server process (what a
        # killed worker is); only a power loss may undo the last commits. FULL fsyncs every commit.
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn):  # noqa: ANN001
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("write") else "BEGIN")


@functools.lru_cache(maxsize=8)
def engine_for(url: str) -> Engine:
    """One engine (with its connection pool) per database URL and process."""
    if url.startswith("sqlite"):
        eng = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})
        _sqlite_setup(eng)
        return eng
    return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10, pool_recycle=1800)


def _alembic_config():
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", "hetdp_ui.classroom:migrations")
    return cfg


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_alembic_config()).get_current_head()


def known_revisions() -> set[str]:
    from alembic.script import ScriptDirectory

    return {s.revision for s in ScriptDirectory.from_config(_alembic_config()).walk_revisions()}


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


@functools.lru_cache(maxsize=8)
def _lock_for(url: str):
    from filelock import FileLock

    path = url.removeprefix("sqlite:///")
    return FileLock(path + ".migrate.lock") if url.startswith("sqlite:///") and path else None


def upgrade(engine: Engine, *, to: str = "head") -> None:
    """Run the migrations up to ``to`` (``hetdp class migrate``), under the lock of :func:`ensure_schema`."""
    from alembic import command

    lock = _lock_for(str(engine.url))
    if lock is not None:
        lock.acquire(timeout=60)
    try:
        with engine.execution_options(write=True).begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(437617)"))
            cfg = _alembic_config()
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, to)
    finally:
        if lock is not None:
            lock.release()


def schema_problem(engine: Engine) -> str | None:
    """None when the database's revision is the code's; else one line saying what to do."""
    head, current = head_revision(), current_revision(engine)
    if current == head:
        return None
    if current is None:
        return "the class database has no schema yet: run `hetdp class migrate`."
    if current in known_revisions():
        return (
            f"the class database is at schema {current}, older than this hetdp's {head}: "
            "run `hetdp class migrate` (back it up first)."
        )
    return (
        f"the class database is at schema {current}, which this hetdp does not know (it has up to {head}): "
        "the database is newer than the code — upgrade hetdp."
    )


def ensure_schema(engine: Engine) -> None:
    """Create the schema in an empty database; raise :class:`SchemaMismatch` for any other revision
    than the code's (one line, with what to do)."""
    if current_revision(engine) is None and not inspect(engine).get_table_names():
        upgrade(engine)
    problem = schema_problem(engine)
    if problem:
        raise SchemaMismatch(problem)


@functools.lru_cache(maxsize=8)
def _ready(url: str) -> Engine:
    eng = engine_for(url)
    ensure_schema(eng)
    return eng


def ready_engine(url: str | None = None) -> Engine:
    """The engine of ``url`` (default :func:`database_url`), its schema checked once per process."""
    return _ready(url or database_url())


def reset_caches() -> None:
    """Forget engines and checks (tests switch databases)."""
    for f in (_ready, engine_for, _lock_for):
        f.cache_clear()
