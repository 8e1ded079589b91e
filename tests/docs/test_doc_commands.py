"""Every runnable shell command in README.md and docs/*.md runs as written on a fresh copy.

Each doc gets its own temporary copy of the repository (the files git knows, nothing
ignored), with ``../shared`` linked beside it when it exists; its blocks run in order, each as
one bash script in the copy's root, with this test's environment (``planeval`` installed).
The convention for marking blocks is in tests/docs/_blocks.py and docs/design.md.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from ._blocks import FLAGS, Block, expected_exit, extract_blocks

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK_TIMEOUT = 600
NESTED = "PLANEVAL_DOCS_TEST"
"""Set in the commands' environment: a doc command that runs pytest does not run these again."""


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


class TestConvention:
    def test_markers(self, tmp_path: Path) -> None:
        """Languages, flags, console prompts, continuations and exit comments are read."""
        doc = tmp_path / "d.md"
        doc.write_text(
            "```bash\n# a comment\nplaneval run evals/   # exit 1\n\n"
            "planeval check a \\\n  b   # as FILE#<id>; exit 2\n```\n"
            "```console no-run\n$ planeval x\noutput line\n```\n"
            "```bash needs-data\npython3 -m venv .venv && . .venv/bin/activate && "
            "pip install -e '.[test]' && pytest\n```\n"
            "```python\nprint(1)\n```\n",
            encoding="utf-8",
        )
        first, second, third = extract_blocks(doc)
        assert [(c.line, c.expected_exit) for c in first.commands] == [(3, 1), (5, 2)]
        assert first.commands[1].text == "planeval check a \\\n  b   # as FILE#<id>; exit 2"
        assert not second.runnable and [c.text for c in second.commands] == ["planeval x"]
        assert third.needs_data and third.commands[0].text == "pytest"
        assert third.commands[0].installs == (".[test]",)

    def test_an_exit_mentioned_mid_comment_is_not_a_promise(self) -> None:
        """Only a comment that starts or ends with ``exit N`` sets the expected code."""
        assert expected_exit("x   # exits 1 when a line is damaged") == 0
        assert expected_exit("x   # 0 done, 1 failed") == 0
        assert expected_exit("x   # exit 3: missing") == 3


@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_blocks_use_known_markers_and_extras(doc: Path) -> None:
    """A misspelt marker (``no_run``) would silently run or skip a block; an install command
    naming an extra pyproject.toml does not define would fail on a fresh machine."""
    extras = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    )
    for block in extract_blocks(doc):
        unknown = block.flags - FLAGS
        assert not unknown, f"{_rel(doc)}:{block.line}: unknown block marker(s) {sorted(unknown)}"
        for command in block.commands:
            for target in command.installs:
                named = set(target.partition("[")[2].rstrip("]").split(",")) - {""}
                assert target.startswith("."), f"{_rel(doc)}:{command.line}: installs {target}"
                assert named <= extras, f"{_rel(doc)}:{command.line}: unknown extra {named}"


def _copy_repository(dest: Path) -> Path:
    """The repository's files (tracked and untracked, nothing git ignores) under dest."""
    project = dest / "planeval"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if listed.returncode == 0:
        for name in filter(None, listed.stdout.decode().split("\0")):
            source = ROOT / name
            if source.is_file():
                target = project / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
    else:  # not a git checkout (an unpacked archive)
        shutil.copytree(
            ROOT,
            project,
            ignore=shutil.ignore_patterns(
                ".git", ".venv", "__pycache__", "runs", "public", "*.egg-info", ".*_cache"
            ),
        )
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    if SHARED.is_dir():
        (dest / "shared").symlink_to(SHARED)
    return project


def _script(block: Block, rc_file: Path) -> str:
    lines = []
    for index, command in enumerate(block.commands):
        if not command.text.strip():
            continue
        lines.append(command.text)
        lines.append(f'echo "{index} $?" >> "{rc_file}"')
    return "\n".join(lines) + "\n"


def _run_blocks(doc: Path, blocks: list[Block], tmp_path: Path) -> None:
    project = _copy_repository(tmp_path)
    bin_dir = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items() if k not in ("LIVE_EVALS", "PYTEST_ADDOPTS")}
    env.update(
        {NESTED: "1"},
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(Path(bin_dir).parent),
        COLUMNS="100",
        PYTHONDONTWRITEBYTECODE="1",
    )
    problems = []
    for block in blocks:
        rc_file = tmp_path / "rc.txt"
        rc_file.write_text("")
        done = subprocess.run(
            ["bash", "-c", _script(block, rc_file)],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=BLOCK_TIMEOUT,
            check=False,
        )
        codes = dict(line.split() for line in rc_file.read_text().splitlines())
        for index, command in enumerate(block.commands):
            if not command.text.strip():
                continue
            got = codes.get(str(index))
            if got != str(command.expected_exit):
                tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-8:])
                problems.append(
                    f"{_rel(doc)}:{command.line}: `{command.text.splitlines()[0]}` exited "
                    f"{got}, the doc says {command.expected_exit}\n{tail}"
                )
    assert not problems, "\n\n".join(problems)


@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_runnable_commands_run_as_written(doc: Path, tmp_path: Path) -> None:
    """Every command of a runnable block exits with the code the doc promises."""
    if os.environ.get(NESTED):
        pytest.skip("run by a doc command: the docs are tested by the outer run")
    blocks = [b for b in extract_blocks(doc) if b.runnable and not b.needs_data]
    if not any(c.text.strip() for b in blocks for c in b.commands):
        pytest.skip(f"{_rel(doc)} has no runnable shell command")
    _run_blocks(doc, blocks, tmp_path)


@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_commands_that_need_the_public_data_run_as_written(
    doc: Path, tmp_path: Path, shared_data: Path
) -> None:
    """The ``needs-data`` blocks, in their own copy, when ../shared/data is beside us."""
    if os.environ.get(NESTED):
        pytest.skip("run by a doc command: the docs are tested by the outer run")
    blocks = [b for b in extract_blocks(doc) if b.runnable and b.needs_data]
    if not blocks:
        pytest.skip(f"{_rel(doc)} has no needs-data block")
    _run_blocks(doc, blocks, tmp_path)
