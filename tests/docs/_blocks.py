"""Shell commands in Markdown: which fenced blocks run, and what each command must exit with.

The convention (docs/design.md, "Runnable docs"):

- A fenced block whose info string starts with ``bash``, ``sh``, ``shell`` or ``console`` is
  shell. In ``bash``/``sh``/``shell`` every line that is not blank or a comment is a command;
  in ``console`` only lines starting with ``$ `` are (the others are output). A line ending in
  a backslash continues on the next.
- Words after the language mark the block: ``no-run`` (never run: it needs an API key or a
  model server, or it is the test command itself), ``needs-data`` (run only when
  ``../shared/data`` sits beside the checkout).
- A command expected to exit non-zero says so in its trailing comment: ``# exit 1`` (the
  comment starts with it) or ``# ...; exit 1`` (the comment ends with it). Otherwise 0.
- The install prefix ``python3 -m venv .venv && . .venv/bin/activate && pip install -e ...``
  and plain ``pip install -e ...`` commands are not run: the test uses the environment it runs
  in (the extras they name must exist in pyproject.toml).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "console"})
FLAGS = frozenset({"no-run", "needs-data"})

_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_EXIT_FIRST = re.compile(r"(?:^|\s)#\s*exit (\d+)\b")
_EXIT_LAST = re.compile(r"\s#.*;\s*exit (\d+)\s*$")
_INSTALL_PREFIX = re.compile(
    r"^python3 -m venv \.venv && \. \.venv/bin/activate && "
    r"(?P<pip>pip install [^&]*?)\s*(?:&&\s*|$)"
)
_PIP_PROJECT = re.compile(r"^pip install (?:-q )?-e (?P<target>'[^']*'|\"[^\"]*\"|\S+)\s*$")


@dataclass(frozen=True)
class Command:
    """One shell command of a doc."""

    line: int
    """Line number (1-based) in the doc."""
    text: str
    """The command as it will run (continuations joined, install prefix removed)."""
    expected_exit: int = 0
    """The exit code the doc promises."""
    installs: tuple[str, ...] = ()
    """``pip install -e`` targets stripped from the command (``.``, ``.[test]``)."""


@dataclass
class Block:
    """A fenced shell block."""

    path: Path
    line: int
    language: str
    flags: frozenset[str]
    commands: list[Command] = field(default_factory=list)

    @property
    def runnable(self) -> bool:
        return "no-run" not in self.flags

    @property
    def needs_data(self) -> bool:
        return "needs-data" in self.flags


def expected_exit(line: str) -> int:
    """The exit code a command's trailing comment promises (0 without one)."""
    for pattern in (_EXIT_FIRST, _EXIT_LAST):
        found = pattern.search(line)
        if found:
            return int(found.group(1))
    return 0


def _strip_install(text: str) -> tuple[str, tuple[str, ...]]:
    installs: list[str] = []
    prefix = _INSTALL_PREFIX.match(text)
    if prefix:
        text = text[prefix.end() :]
        pip = _PIP_PROJECT.match(prefix.group("pip").strip())
        if pip:
            installs.append(pip.group("target").strip("'\""))
    pip = _PIP_PROJECT.match(text.split("#")[0].strip())
    if pip:
        installs.append(pip.group("target").strip("'\""))
        text = ""
    return text, tuple(installs)


def _commands(lines: list[tuple[int, str]], console: bool) -> list[Command]:
    commands: list[Command] = []
    pending: list[str] = []
    start = 0
    for number, raw in lines:
        line = raw.rstrip()
        if not pending:
            if console:
                if not line.lstrip().startswith("$ "):
                    continue
                line = line.lstrip()[2:]
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            start = number
        pending.append(line)
        if line.endswith("\\"):
            continue
        text = "\n".join(pending)
        pending = []
        stripped, installs = _strip_install(text)
        commands.append(Command(start, stripped, expected_exit(text), installs))
    return commands


def extract_blocks(path: Path) -> list[Block]:
    """Every fenced shell block of a Markdown file, with its commands."""
    blocks: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        fence = opening.group("fence")
        words = opening.group("info").split()
        body: list[tuple[int, str]] = []
        index += 1
        while index < len(lines):
            closing = _FENCE.match(lines[index])
            if (
                closing
                and closing.group("fence").startswith(fence)
                and not closing.group("info").strip()
            ):
                break
            body.append((index + 1, lines[index]))
            index += 1
        index += 1
        if words and words[0] in SHELL_LANGUAGES:
            block = Block(path, body[0][0] - 1 if body else index, words[0], frozenset(words[1:]))
            block.commands = _commands(body, console=words[0] == "console")
            blocks.append(block)
    return blocks
