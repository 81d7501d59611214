"""Per-student variants of a lesson's number questions (hetdp_core.teaching.lesson_variants): the schema and every
bad value of it, the student's step (their values in the query, the text and the key), the core's own
answer per variant, the least-used draw, and `hetdp lesson check` on lessons with variants — every
variant's answer computed, a question failed when one is not computable, a misconception meets one or
two variants' answers lie within the tolerance of each other."""

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as hst

from hetdp_core.framework.scenario import InputError
from hetdp_core.teaching.lesson_variants import (
    MAX_VARIANTS,
    VariantParam,
    base_variant,
    check_variants,
    combinations,
    draw_variant,
    parse_variant_id,
    parse_variants,
    relative_error,
    variant_answer,
    variant_id,
    variant_query,
    variant_step,
    with_answer,
    with_ranges,
)
from hetdp_core.teaching.lessons import bundled_lesson, check_lesson, evaluate_key, parse_lesson, step_scenario

DPSGD = "lr=poly&gamma0=0.1&rho=0.5&priv=constant&eps=1&problem=mean&Lambda=3&steps=2000&trials=50&seed=0"


def lesson_text(variants: str, *, key="dpsgd_bound_terms[N=2000].A3 / dpsgd_bound_terms[N=1000].A3", extra=""):
    """A one-step DP-SGD lesson whose number question declares ``variants`` (TOML lines)."""
    return f'''title = "t"
follows = "f"
[[steps]]
page = "DP_SGD_schedules"
query = "{DPSGD}"
text = "Your rho is {{rho}}."
answered_by = {{ table = "dpsgd_bound_terms", kind = "exact", shown_as = "the bound-terms chart" }}
[steps.question]
kind = "number"
prompt = "With rho = {{rho}}, the ratio?"
key = "{key}"
answer = 2.86
tolerance = 0.03
explain = "2^(2-{{rho}})"
[steps.question.variants]
{variants}
{extra}'''


RHO = "rho = { low = 0.3, high = 0.7, step = 0.05 }"


def test_a_question_with_variants_gives_each_student_their_values_and_their_own_answer():
    lesson = parse_lesson(lesson_text(RHO), id="v")
    step = lesson.steps[0]
    (p,) = step.question.variants
    assert p == VariantParam("rho", (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7))  # no 0.35000000000000003
    mine = variant_step(step, {"rho": 0.35})
    assert "rho=0.35" in mine.query and "rho=0.5" not in mine.query
    assert step_scenario(mine).rho == 0.35 and step_scenario(mine).steps == 2000  # the other values kept
    assert mine.text == "Your rho is 0.35."
    assert mine.question.prompt == "With rho = 0.35, the ratio?" and mine.question.explain == "2^(2-0.35)"
    own = variant_answer(step, {"rho": 0.35})
    # the core's value for that scenario, read by the question's key as `hetdp lesson key` reads it
    from hetdp_core.scenarios import get

    tables = get(step.page).run(step_scenario(mine)).tables()
    assert own == evaluate_key(step.question.key, tables) == pytest.approx(3.15035, abs=1e-4)
    theirs = with_answer(mine, own).question
    assert theirs.accepts(own) and not theirs.accepts(variant_answer(step, {"rho": 0.4}))  # a neighbour's: wrong
    # outside a class the step is shown with its own query's values, and the written answer is theirs
    assert base_variant(step) == {"rho": 0.5}
    assert abs(variant_answer(step, base_variant(step)) - step.question.answer) <= step.question.tolerance / 2


def test_a_placeholder_in_the_key_and_two_parameters_make_a_grid():
    text = lesson_text(
        "steps = [1000, 2000]\nrho = [0.4, 0.6]", key="dpsgd_bound_terms[N={steps}].A3 / dpsgd_bound_terms[N=500].A3"
    ).replace("answer = 2.86", "answer = 4.14")
    step = parse_lesson(text, id="v").steps[0]
    grid = combinations(step.question.variants)
    assert grid == [
        {"steps": 1000.0, "rho": 0.4},
        {"steps": 1000.0, "rho": 0.6},
        {"steps": 2000.0, "rho": 0.4},
        {"steps": 2000.0, "rho": 0.6},
    ]
    mine = variant_step(step, grid[0])
    assert "steps=1000" in mine.query and "N=1000" in mine.question.key  # whole numbers without a point
    answers = [variant_answer(step, v) for v in grid]
    assert len({round(a, 6) for a in answers}) == 4 and all(math.isfinite(a) for a in answers)


def test_a_claim_is_cited_beside_a_variant_and_holds_at_every_student_s_view(monkeypatch):
    """A step's texts cite claims by ``{id}`` and name variant parameters by ``{name}``: the claim is
    replaced when the lesson is read, the parameter when a student's variant is drawn; and
    ``hetdp lesson check`` evaluates the claims at every variant's view, not only at the written one."""
    import hetdp_core.teaching.lessons as lessons

    claim = (
        '[[steps.claims]]\nid = "a3-grows"\nsays = "A3 at N = 2000 is higher than at N = 1000"\n'
        'holds = "dpsgd_bound_terms[N=2000].A3 > dpsgd_bound_terms[N=1000].A3"\n'
    )
    text = lesson_text(RHO, extra=claim).replace('explain = "2^(2-{rho})"', 'explain = "2^(2-{rho}): {a3-grows}."')
    step = parse_lesson(text, id="v").steps[0]
    assert step.question.explain == "2^(2-{rho}): A3 at N = 2000 is higher than at N = 1000."
    assert variant_step(step, {"rho": 0.35}).question.explain.startswith("2^(2-0.35): A3")
    seen = []
    real = lessons.check_claims
    monkeypatch.setattr(
        lessons, "check_claims", lambda lid, i, st, result_of: seen.append(st.query) or real(lid, i, st, result_of)
    )
    check_lesson(parse_lesson(text, id="v"))
    assert len(seen) == 1 + 9  # the written view, then each of the nine students' views
    assert {dict(p.split("=") for p in q.split("&"))["rho"] for q in seen} == {
        "0.3",
        "0.35",
        "0.4",
        "0.45",
        "0.5",
        "0.55",
        "0.6",
        "0.65",
        "0.7",
    }


def test_the_class_s_view_of_a_prompt_names_each_parameter_s_range():
    step = parse_lesson(lesson_text(RHO), id="v").steps[0]
    assert with_ranges(step.question.prompt, step.question.variants) == "With rho = 0.3–0.7, the ratio?"
    assert with_ranges("{unknown} {rho}", ()) == "{unknown} {rho}"


def test_variant_query_replaces_a_parameter_or_appends_it():
    assert variant_query("a=1&rho=0.5&b=x", {"rho": 0.3}) == "a=1&rho=0.3&b=x"
    assert variant_query("a=1", {"n": 2000.0}) == "a=1&n=2000"
    assert variant_query("rho=1&rho=2", {"rho": 0.25}) == "rho=0.25"  # a repeated key once


@pytest.mark.parametrize(
    "variants,match",
    [
        ("rho = 0.5", "must be a range"),
        ('rho = "0.3 to 0.7"', "must be a range"),
        ("rho = [0.5]", "2 to 64 finite numbers"),
        ("rho = [0.3, nan]", "2 to 64 finite numbers"),
        ("rho = [0.3, 0.3]", "must differ"),
        ("rho = { low = 0.3, high = 0.7 }", "needs exactly low, high and step"),
        ("rho = { low = 0.3, high = 0.7, step = 0.1, by = 2 }", "needs exactly low, high and step"),
        ("rho = { low = 0.7, high = 0.3, step = 0.1 }", "low < high"),
        ("rho = { low = 0.3, high = 0.7, step = 0 }", "0 < step"),
        ("rho = { low = 0.3, high = 0.7, step = 1 }", "step ≤ high − low"),
        ("rho = { low = 0.3, high = inf, step = 1 }", "finite numbers"),
        ("rho = { low = 0.1, high = 0.9, step = 0.01 }", "81 values; at most 64"),
        (
            "rho = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99]\nkappa = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]",
            "72 combinations",
        ),
        ("a = [1, 2]\nb = [1, 2]\nc = [1, 2]\nd = [1, 2]\ne = [1, 2]", "1 to 4 parameters"),
        ("nosuch = [1, 2]", "'nosuch' is not a parameter of DP_SGD_schedules"),
        ("rho = [0.5, 7]", r"variant rho = 7: not a valid DP_SGD_schedules scenario"),
    ],
)
def test_every_bad_variants_table_is_refused_in_one_line_naming_the_step(variants, match):
    text = lesson_text(variants)
    if "rho" not in variants:  # the texts name {rho} only where it is a variant (else it cites no claim)
        text = text.replace("{rho}", "rho")
    with pytest.raises(InputError, match=match) as exc:
        parse_lesson(text, id="v")
    assert "lesson 'v', step 1, question" in str(exc.value) and "\n" not in str(exc.value)


def test_variants_are_for_number_questions_and_a_table_of_them_only():
    text = lesson_text(RHO)
    with pytest.raises(InputError, match="'variants' are for number questions"):
        parse_lesson(
            text.replace('kind = "number"', 'kind = "choice"\nchoices = ["yes", "no"]').replace(
                "answer = 2.86\ntolerance = 0.03", 'answer = "no"'
            ),
            id="v",
        )
    with pytest.raises(InputError, match="'variants' must be a table of 1 to 4 parameters"):
        parse_lesson(text.replace("[steps.question.variants]\n" + RHO, "variants = [0.3, 0.5]"), id="v")
    with pytest.raises(InputError, match="is not a parameter name"):
        parse_variants({"1rho": [1, 2]}, where="w")


def test_a_stored_variant_is_read_back_only_when_it_is_a_point_of_the_grid():
    ps = (VariantParam("rho", (0.3, 0.5)), VariantParam("n", (100.0, 200.0)))
    v = {"rho": 0.5, "n": 200.0}
    assert parse_variant_id(variant_id(v), ps) == v and variant_id(v) == '{"n":200.0,"rho":0.5}'
    for bad, match in (("{", "not JSON"), ('{"rho": 0.5}', "does not name"), ('{"rho": 0.4, "n": 100}', "not in")):
        with pytest.raises(InputError, match=match):
            parse_variant_id(bad, ps)


@given(hst.lists(hst.integers(0, 5), min_size=6, max_size=6), hst.integers(0, 2**32 - 1))
def test_a_student_draws_one_of_the_least_used_variants(counts, seed):
    ps = (VariantParam("rho", (0.3, 0.4, 0.5)), VariantParam("n", (1.0, 2.0)))
    options = combinations(ps)
    taken = {variant_id(v): c for v, c in zip(options, counts)}
    got = draw_variant(ps, taken=taken, rng=seed)
    assert got in options and taken[variant_id(got)] == min(counts)


def test_a_class_draws_every_variant_before_any_twice():
    ps = parse_variants({"rho": {"low": 0.3, "high": 0.7, "step": 0.05}}, where="w")
    taken: dict[str, int] = {}
    for i in range(18):
        v = variant_id(draw_variant(ps, taken=taken, rng=i))
        taken[v] = taken.get(v, 0) + 1
        if i == 8:
            assert sorted(taken.values()) == [1] * 9  # nine students, nine different variants
    assert sorted(taken.values()) == [2] * 9


def test_relative_error_is_against_the_student_s_own_answer():
    assert relative_error(3.0, 2.0) == 0.5 and relative_error(1.0, -2.0) == 1.5 and relative_error(1.0, 0.0) is None


# ---------------------------------------------------------------- hetdp lesson check


def test_the_bundled_lessons_with_variants_check_every_variant_against_the_core():
    for lesson_id, n, lo, hi in (("5-dp-sgd-schedules", 9, 2.5422, 3.2572), ("4-groupwise-zcdp", 9, 1.1962, 2.6416)):
        lesson = bundled_lesson(lesson_id)
        step = lesson.steps[0]
        checked = check_variants(step, where="w")
        assert checked.ok, checked.message
        assert len(checked.answers) == n == len(combinations(step.question.variants)) <= MAX_VARIANTS
        got = sorted(a for _, a in checked.answers)
        assert got[0] == pytest.approx(lo, abs=1e-4) and got[-1] == pytest.approx(hi, abs=1e-4)
        assert min(b - a for a, b in zip(got, got[1:])) > step.question.tolerance  # variants differ
        assert re.search(rf"{n} variants \(\w+\): every answer computable", checked.message)
        first = check_lesson(lesson)[0]
        assert first.status == "ok" and f"{n} variants" in first.message


def test_lesson_check_fails_variants_whose_answers_a_neighbour_could_copy():
    wide = lesson_text(RHO).replace("tolerance = 0.03", "tolerance = 0.1")
    (c, *_) = check_lesson(parse_lesson(wide, id="v"))
    assert (
        c.status == "wrong" and "within the tolerance 0.1 of each other: a copied answer would be accepted" in c.message
    )


def test_lesson_check_fails_a_variant_without_a_computable_answer():
    text = lesson_text("steps = [1000, 2000]").replace("{rho}", "rho")
    (c, *_) = check_lesson(parse_lesson(text, id="v"))
    assert c.status == "wrong" and "1 of 2 variants have no computable answer (first: steps = 1000" in c.message
    assert "selects 0 rows" in c.message


def test_lesson_check_fails_a_misconception_that_meets_a_variant_s_answer():
    text = lesson_text(RHO, extra='[[steps.question.misconception]]\nrange = [3.1, 3.4]\nexplain = "x"\n')
    (c, *_) = check_lesson(parse_lesson(text, id="v"))
    assert c.status == "wrong" and "variant rho = 0.3: its answer 3.25719 ± 0.03 meets misconception 1" in c.message


def test_the_cli_checks_lessons_with_variants(tmp_path, capsys):
    from conftest import ROOT

    from hetdp_ui.cli import main

    files = [str(ROOT / "data" / "lessons" / f) for f in ("4-groupwise-zcdp.toml", "5-dp-sgd-schedules.toml")]
    assert main(["lesson", "check", *files]) == 0
    out = capsys.readouterr().out
    assert out.count("9 variants") == 2 and "DISAGREE" not in out
    bad = tmp_path / "copyable.toml"
    bad.write_text(lesson_text(RHO).replace("tolerance = 0.03", "tolerance = 0.1"))
    assert main(["lesson", "check", str(bad)]) == 1
    assert "a copied answer would be accepted" in capsys.readouterr().out
    broken = tmp_path / "broken.toml"
    broken.write_text(lesson_text("rho = [0.5, 7]"))
    assert main(["lesson", "check", str(broken)]) == 2
    assert "INVALID: lesson 'broken', step 1, question, variant rho = 7" in capsys.readouterr().out
