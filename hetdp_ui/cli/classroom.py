"""``hetdp class start | list | close | reopen | export | delete | migrate``: live class sessions.

The database is the app's (``HETDP_DATABASE_URL`` or the SQLite file in the data directory), so a
session started here is the one the live-class page shows. A database that cannot be reached, or whose
schema is not this code's, exits 3 with one line saying what to do.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hetdp_ui.cli._common import write_atomic


def _store():
    from hetdp_ui.classroom.store import ClassStore

    return ClassStore()


def _guard(fn):
    def run(a) -> int:
        from hetdp_ui.classroom.db import SchemaMismatch
        from hetdp_ui.classroom.store import StoreUnavailable

        try:
            return fn(a)
        except (StoreUnavailable, SchemaMismatch) as exc:
            print(f"hetdp: error: {' '.join(str(exc).split())}", file=sys.stderr)
            return 3

    run.__doc__ = fn.__doc__
    return run


@_guard
def cmd_class_start(a) -> int:
    """``hetdp class start LESSON``: a new session; prints its code and both links (the key once)."""
    from hetdp_ui.classroom.store import links
    from hetdp_ui.folders import LIVE_CLASS, page_for

    started = _store().start(a.lesson)
    got = {"code": started.code, "lesson": a.lesson, **links(a.base_url, started.code, started.key)}
    if a.json:
        print(json.dumps(got))
    else:
        print(f"class session {started.code} for lesson {a.lesson}")
        print(f"  students open: {got['student']}  (or the {page_for(LIVE_CLASS).title} page with code {started.code})")
        print(f"  instructor:    {got['instructor']}")
        print("  keep the instructor link private: it is the only way to the live view (only its hash is stored).")
    return 0


@_guard
def cmd_class_list(a) -> int:
    """``hetdp class list``: every session with its lesson, state and counts."""
    store = _store()
    rows = []
    for s in store.sessions():
        rows.append(
            {
                "code": s.code,
                "lesson": s.lesson_id,
                "created": s.created_at.isoformat(timespec="seconds"),
                "closed": s.closed,
                **store.counts(s.code),
            }
        )
    if a.json:
        print(json.dumps({"sessions": rows}))
    else:
        for r in rows:
            print(
                f"{r['code']}  {r['lesson']}  opened {r['created']}Z  {'closed' if r['closed'] else 'open'}  "
                f"{r['students']} students, {r['answers']} answers, {r['poll_reports']} poll reports"
            )
        if not rows:
            print("no class sessions")
    return 0


@_guard
def cmd_class_close(a) -> int:
    """``hetdp class close CODE``: no new joins, answers or poll reports."""
    _store().close(a.code)
    print(f"class session {a.code.upper()} closed")
    return 0


@_guard
def cmd_class_reopen(a) -> int:
    """``hetdp class reopen CODE``."""
    _store().reopen(a.code)
    print(f"class session {a.code.upper()} reopened")
    return 0


@_guard
def cmd_class_export(a) -> int:
    """``hetdp class export CODE [--out F.csv]``: one row per student and question step."""
    from hetdp_ui.classroom.store import export_csv

    text = export_csv(_store().export_rows(a.code))
    if a.out:
        write_atomic(Path(a.out), text, what="class export")
        print(f"wrote {a.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


@_guard
def cmd_class_delete(a) -> int:
    """``hetdp class delete CODE``: the session and every row stored about it."""
    n = _store().delete(a.code)
    print(f"class session {a.code.upper()} deleted ({n} rows)")
    return 0


@_guard
def cmd_class_migrate(a) -> int:
    """``hetdp class migrate``: bring the database's schema to this code's revision (Alembic)."""
    from hetdp_ui.classroom import db

    eng = db.engine_for(db.database_url())
    before = db.current_revision(eng)
    if before is not None and before not in db.known_revisions():
        print(f"hetdp: error: {db.schema_problem(eng)}", file=sys.stderr)
        return 3
    db.upgrade(eng)
    print(
        f"class database {eng.url.render_as_string(hide_password=True)}: schema {before or 'empty'} -> "
        f"{db.current_revision(eng)}"
    )
    return 0


def register(sub) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands."""
    cl = sub.add_parser("class", help="live class sessions: start, list, close, reopen, export, delete, migrate")
    csub = cl.add_subparsers(dest="class_cmd", required=True)
    p = csub.add_parser("start", help="start a session for a bundled lesson; prints the code and both links")
    p.add_argument("lesson", help="a bundled lesson id (hetdp lesson list)")
    p.add_argument("--base-url", default="http://localhost:8501", help="the app's address students open")
    p.add_argument("--json", action="store_true", help="print code and links as JSON")
    p.set_defaults(func=cmd_class_start)
    p = csub.add_parser("list", help="every session, its state and counts")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_class_list)
    for name, fn, what in (
        ("close", cmd_class_close, "stop accepting joins, answers and poll reports"),
        ("reopen", cmd_class_reopen, "accept them again"),
        ("delete", cmd_class_delete, "delete the session and everything stored about it"),
    ):
        p = csub.add_parser(name, help=what)
        p.add_argument("code", help="the session's join code")
        p.set_defaults(func=fn)
    p = csub.add_parser("export", help="CSV: one row per student and question step")
    p.add_argument("code", help="the session's join code")
    p.add_argument("--out", default=None, help="file to write (default: standard output)")
    p.set_defaults(func=cmd_class_export)
    p = csub.add_parser("migrate", help="create or upgrade the class database's schema (Alembic)")
    p.set_defaults(func=cmd_class_migrate)
