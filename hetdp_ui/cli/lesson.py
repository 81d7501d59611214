"""``hetdp lesson check | list | key``: lessons."""

from __future__ import annotations

from hetdp_core.framework._validate import InputError
from hetdp_core.framework.scenario import RunOptions
from hetdp_ui.cli._common import BUDGET_NAMES, _query_of, budget


def cmd_lesson_check(a) -> int:
    """``hetdp lesson check FILE…``: schema, every step's page and query, every answer and every claim
    against the core. Exit 0 when every file is valid and every answer agrees, 1 when an answer disagrees
    or a claim is false (the lesson is refused, in one line), 2 for an invalid file (the message names the
    lesson, step, field, rule and fix)."""
    from hetdp_core.teaching.lesson_claims import ClaimError
    from hetdp_core.teaching.lessons import check_lesson, load_lesson

    worst, runs = 0, {}
    for path in a.files:
        try:
            lesson = load_lesson(path)
            checks = check_lesson(lesson, budget=budget(a.budget), runs=runs)
        except ClaimError as exc:
            print(f"{path}: REFUSED: {' '.join(str(exc).split())}")
            worst = max(worst, 1)
            continue
        except InputError as exc:
            print(f"{path}: INVALID: {' '.join(str(exc).split())}")
            worst = 2
            continue
        bad = [c for c in checks if c.status == "wrong"]
        claims = sum(len(s.claims.claims) for s in lesson.steps)
        print(
            f"{path}: {lesson.title!r} — {len(checks)} steps, "
            f"{sum(c.status == 'ok' for c in checks)} answers agree with the core"
            + (f", {len(bad)} DISAGREE" if bad else "")
            + (f", {claims} claim{'s hold' if claims != 1 else ' holds'}" if claims else "")
        )
        for c in checks:
            print(f"  step {c.step} ({c.page}): {c.status}: {c.message}")
        if bad:
            worst = max(worst, 1)
    return worst


def cmd_lesson_list(a) -> int:
    """``hetdp lesson list``: the bundled lessons and their app links."""
    from urllib.parse import urlencode

    from hetdp_core.teaching.lessons import bundled_lessons

    for lesson in bundled_lessons():
        first = lesson.steps[0]
        link = f"/{first.page}?{urlencode({'lesson': lesson.id, 'step': 1})}" + (
            f"&{first.query}" if first.query else ""
        )
        print(f"{lesson.id}: {lesson.title} ({len(lesson.steps)} steps) — {link}")
    return 0


def cmd_lesson_key(a) -> int:
    """``hetdp lesson key PAGE --query Q --key K``: the value an answer key names (for lesson authors)."""
    from hetdp_core.scenarios import get
    from hetdp_core.teaching.lessons import evaluate_key

    page, query = _query_of(a)
    mod = get(page)
    result = mod.run(mod.SCENARIO.from_query(query), options=RunOptions(budget=budget(a.budget)))
    value = evaluate_key(a.key, result.tables(), where="--key")
    print(value if not isinstance(value, bool) else ("yes" if value else "no"))
    return 0


def register(sub) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands."""
    ls_ = sub.add_parser(
        "lesson", help="lessons: validate a lesson file, list the bundled ones, evaluate an answer key"
    )
    lsub = ls_.add_subparsers(dest="lesson_cmd", required=True)
    lc = lsub.add_parser(
        "check", help="validate lesson files (schema, pages, queries) and check every answer against the core"
    )
    lc.add_argument("files", nargs="+", metavar="FILE", help="lesson files (.toml)")
    lc.add_argument("--budget", choices=BUDGET_NAMES, default="page", help="compute budget of each step's run")
    lc.set_defaults(func=cmd_lesson_check)
    ll = lsub.add_parser("list", help="the bundled lessons and their app links")
    ll.set_defaults(func=cmd_lesson_list)
    lk = lsub.add_parser("key", help="the value an answer key names at a scenario (for lesson authors)")
    lk.add_argument(
        "page", nargs="?", default=None, help="page URL path (as in the app's address, any case); optional with --url"
    )
    lk.add_argument("--query", default="", help="the step's query string")
    lk.add_argument("--url", default=None, help="a full app link (page and query are read from it)")
    lk.add_argument("--key", required=True, help="e.g. 'bcdp_guarantee[feature=x1].budget c_i'")
    lk.add_argument("--budget", choices=BUDGET_NAMES, default="page", help="compute budget of the run")
    lk.set_defaults(func=cmd_lesson_key)
