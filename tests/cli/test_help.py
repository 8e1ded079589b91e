"""Every command's and subcommand's ``--help``, read the way a user reads it.

The tree of commands is walked from the app itself, so a new command or option is covered
without touching this file. Each help page is rendered by ``planeval ... --help`` (the console
entry point, at a fixed terminal width) and checked for what a reader would trip over:

- an on/off flag shows no value placeholder (no ``<bool>``), and every option that takes a
  value names it (``FILE``, ``N``, ``text|json``), never a bare type (``<str>``, ``<int>``);
  every argument has a name in capitals in the usage line (``PLAN...``);
- a short option means the same long option in every command (and the list is in docs/cli.md);
- each command's first help line says what it does (an imperative sentence);
- nothing is cut off at 80 columns, and no default is stated twice;
- size limits: every ``--max-bytes`` takes BYTES and states its default in MiB.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import typer

from harness._cli.main import build_app
from tests.cli_helpers import run_cli

ANSI = re.compile(r"\x1b\[[0-9;]*m")
METAVAR = re.compile(
    r"^(?:[A-Z][A-Z0-9_]*(?:[=/.:-][A-Z0-9_]+)*|[a-z0-9_-]+(?:\|[a-z0-9_-]+)+)(?:\.\.\.)?$"
)
"""A value placeholder a reader understands: ``FILE``, ``NAME=VALUE``, ``I/N`` or a choice
list ``text|json`` (``...`` after it when the option repeats or the argument takes many)."""
TYPE_PLACEHOLDER = re.compile(
    r"<(?:bool|str|int|float|path|file|list\[[^>]*\]|int range|float range)>"
)
NOT_A_VERB = {"a", "an", "the", "this", "these", "planeval", "command", "it"}
DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def _walk(command: Any, path: tuple[str, ...], parent: Any = None) -> list[tuple[Any, ...]]:
    """(path, command, its context: what the help option is named) for the whole tree."""
    ctx = typer.Context(command, parent=parent, **(command.context_settings or {}))
    found = [(path, command, ctx)]
    for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
        found += _walk(sub, (*path, name), ctx)
    return found


WALKED = _walk(typer.main.get_command(build_app()), ())
TREE = [(path, command) for path, command, _ in WALKED]
IDS = [" ".join(path) or "planeval" for path, _ in TREE]


def _options(command: Any) -> list[Any]:
    return [p for p in command.params if p.param_type_name == "option"]


def _help(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    path: tuple[str, ...],
    columns: int,
) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    result = run_cli(capsys, *path, "--help")
    assert result.code == 0, result.err
    return ANSI.sub("", result.out)


def _rows(page: str) -> dict[str, list[str]]:
    """Option rows of a wide help page: long option name -> the row's cells."""
    rows: dict[str, list[str]] = {}
    for line in page.splitlines():
        cells = [c for c in re.split(r"\s{2,}", line.strip("│ ").strip()) if c]
        if cells and cells[0] == "*":
            cells = cells[1:]
        if cells and cells[0].startswith("--"):
            rows[cells[0]] = cells
    return rows


def test_the_tree_is_complete() -> None:
    """The walk sees every registered command and subcommand (else the checks prove little)."""
    names = {" ".join(path) for path, _ in TREE}
    assert {"check", "run", "score", "execute", "import ruby-vcr", "journal verify"} <= names
    assert len(TREE) >= 19


@pytest.mark.parametrize(("path", "command"), TREE, ids=IDS)
def test_flags_show_no_value_and_values_are_named(
    path: tuple[str, ...],
    command: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After a flag comes its help; after a value option, the placeholder it declares."""
    page = _help(capsys, monkeypatch, path, 200)
    rows = _rows(page)
    for option in _options(command):
        long_name = next(o for o in option.opts if o.startswith("--"))
        cells = rows[long_name]
        assert not TYPE_PLACEHOLDER.search(" ".join(cells)), (long_name, cells)
        rest = [c for c in cells if not c.startswith("-")]
        if option.is_flag:
            assert rest[0].startswith((option.help or "")[:15]), (long_name, cells)
        else:
            assert option.metavar and METAVAR.match(option.metavar), (long_name, option.metavar)
            assert rest[0].split(" [")[0] == option.metavar, (long_name, cells)  # [x>=1]: a range
    for argument in (p for p in command.params if p.param_type_name == "argument"):
        assert argument.metavar and METAVAR.match(argument.metavar), argument.name
        assert argument.metavar in page.split("Usage:")[1].splitlines()[0]


@pytest.mark.parametrize(("path", "command"), TREE, ids=IDS)
def test_nothing_cut_off_at_80_columns_and_no_default_twice(
    path: tuple[str, ...],
    command: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every word fits at 80 columns (no ellipsis); a default is stated once."""
    page = _help(capsys, monkeypatch, path, 80)
    assert "…" not in page
    assert max(len(line) for line in page.splitlines()) <= 80
    for option in _options(command):
        said = re.search(r"\(default\b", option.help or "")
        shown = option.show_default and option.default not in (None, False, [], ())
        assert not (said and shown), f"{option.opts[0]} states its default twice"


@pytest.mark.parametrize(("path", "command"), TREE, ids=IDS)
def test_first_line_says_what_it_does(path: tuple[str, ...], command: Any) -> None:
    """An imperative sentence that fits one line: ``Run the structural checks on plan files.``"""
    first = (command.help or "").strip().splitlines()[0] if command.help else ""
    assert first.endswith("."), (path, first)
    assert len(first) <= 78, (path, first)
    verb = first.split()[0]
    assert verb[0].isupper() and verb.isalpha(), (path, first)
    assert verb.lower() not in NOT_A_VERB, (path, first)
    assert not (verb.endswith("s") and not verb.endswith("ss")), f"imperative, not {verb!r}"


def test_one_meaning_per_short_option() -> None:
    """``-r`` is ``--registry`` wherever it exists; docs/cli.md lists every short option."""
    meanings: dict[str, set[str]] = {}
    for _, command, ctx in WALKED:
        for option in [*_options(command), command.get_help_option(ctx)]:
            if option is None:
                continue
            longs = [o for o in option.opts if o.startswith("--")]
            for short in (o for o in option.opts if not o.startswith("--")):
                meanings.setdefault(short, set()).update(longs)
    clashes = {s: sorted(m) for s, m in meanings.items() if len(m) != 1}
    assert not clashes, f"short options with more than one meaning: {clashes}"
    listed = dict(re.findall(r"`(-[a-zA-Z])`\s+(?:is\s+)?`(--[a-z-]+)`", DOC.read_text("utf-8")))
    assert listed == {s: next(iter(m)) for s, m in meanings.items()}


def test_every_max_bytes_takes_bytes_and_states_its_default_in_mib() -> None:
    """One unit: the value is BYTES, the default is said in MiB."""
    seen = []
    for path, command in TREE:
        for option in _options(command):
            if "--max-bytes" in option.opts:
                seen.append(" ".join(path))
                assert option.metavar == "BYTES"
                assert re.search(r"default [^)]*\d+ MiB", option.help or ""), option.help
    assert {"check", "run", "resume-eval", "execute", "score"} <= set(seen)
    assert {"import ruby-vcr", "import taskbench"} <= set(seen)
