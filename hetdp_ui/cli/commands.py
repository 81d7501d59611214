"""``hetdp bcdp | zcdp | sgd | mech | hetero <command>``: the numerics' own commands, generated from
their declarations (:data:`hetdp_core.framework.commands.COMMANDS`): one flag per field of the command's question, with
its old names (``--delta`` for ``--demands``), what it accepts and its default in the help; the values
are checked by the question's constraints (the messages of the pages' links) and then by the core."""

from __future__ import annotations

from functools import partial

from hetdp_core.framework.commands import COMMANDS, VERBS, Command
from hetdp_core.framework.constraints import dump_value
from hetdp_ui.cli._common import CliError, _dump, read_numbers, verb_with_commands


def question_flags(parser, question: type) -> None:
    """One ``--flag`` per field of ``question`` (``_`` written ``-``), its old names (``ALIASES``) as
    other spellings of the same flag; left out, a field takes its default. A list can be read from a
    file: ``--demands @path``."""
    old = {}
    for alias, name in question.ALIASES.items():
        old.setdefault(name, []).append(f"--{alias.replace('_', '-')}")
    for name, spec in question.specs().items():
        default = question.defaults()[name]
        shown = "optional" if default is None else f"default {dump_value(spec, default)}"
        extra = "; @path reads them from a file" if spec.kind == "floats" else ""
        parser.add_argument(
            f"--{name.replace('_', '-')}",
            *old.get(name, ()),
            dest=name,
            default=None,
            metavar=name.upper(),
            help=f"{spec.label}: {spec.accepts()}{extra} ({shown})"
            + (f"; {', '.join(old[name])}: old name" if name in old else ""),
        )


def _given(a, question: type) -> dict:
    """The fields whose flags were given, as text (a list given as ``@path`` is read from the file)."""
    out = {}
    for name, spec in question.specs().items():
        value = getattr(a, name)
        if value is None:
            continue
        out[name] = read_numbers(value, f"--{name.replace('_', '-')}") if spec.kind == "floats" else value
    return out


def cmd_command(t: Command, a) -> int:
    """Run one command: its question from the flags, its computation, its output."""
    question = t.question.from_query(_given(a, t.question))
    out = t.compute(question)
    if a.json:
        print(_dump(out))
    else:
        print(t.text(question, out) if t.text else _dump(out, indent=2))
    return t.status(out) if t.status else 0


def register(sub) -> dict:
    """Add each verb of :data:`~hetdp_core.framework.commands.VERBS` with its commands; returns verb → its
    subcommands (``hetdp sgd run`` and ``hetdp hetero run`` join them)."""
    verbs = {}
    for verb, help_ in VERBS.items():
        verbs[verb] = verb_with_commands(sub, verb, help_)
        for t in (t for t in COMMANDS if t.verb == verb):
            p = verbs[verb].add_parser(t.name, help=t.help, description=t.question.__doc__)
            question_flags(p, t.question)
            p.add_argument("--json", action="store_true", help="print strict JSON")
            p.set_defaults(func=partial(cmd_command, t))
    return verbs


__all__ = ["register", "cmd_command", "question_flags", "CliError"]
