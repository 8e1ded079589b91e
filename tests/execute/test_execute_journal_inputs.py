"""Journal inputs that are not journals, unbounded inputs and unwritable folders."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import harness.journal._replay as replay_module
from harness.journal import replay
from tests.cli_helpers import run_cli
from tests.execute._execute_helpers import chain_plan

GEM_JOURNAL = Path(__file__).parent.parent / "journal" / "fixtures" / "gem_journal.jsonl"


@pytest.fixture
def plan_file(tmp_path: Path) -> Path:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(chain_plan(3, plan_id="inputs").to_dict(), indent=2))
    return path


@pytest.mark.parametrize(
    "content",
    [
        None,  # the plan file itself
        '{"goal": "a compact plan", "tasks": [{"id": "a"}]}\n',
        "id,status\n1,ok\n",
        "\x00\x01\x02 binary",
    ],
)
@pytest.mark.parametrize("resume", [False, True])
def test_execute_never_writes_into_a_file_that_is_not_a_journal(
    plan_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str | None,
    resume: bool,
) -> None:
    target = plan_file if content is None else tmp_path / "other.txt"
    if content is not None:
        target.write_text(content)
    before = target.read_bytes()
    args = ["execute", str(plan_file), "--journal", str(target)] + (["--resume"] if resume else [])
    result = run_cli(capsys, *args)
    assert result.code == 2
    assert "is not an execution journal" in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert target.read_bytes() == before
    assert not Path(str(target) + ".lock").exists()


def test_a_gem_journal_is_a_journal(plan_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(capsys, "journal", "verify", str(GEM_JOURNAL)).code == 0


@pytest.mark.parametrize("command", ["show", "verify"])
def test_journal_commands_refuse_non_journals_and_endless_inputs(
    plan_file: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    for target, words in [
        (str(plan_file), "is not an execution journal"),
        ("/dev/zero", "is not a regular file"),
        (str(plan_file.parent), "is a folder"),
    ]:
        result = run_cli(capsys, "journal", command, target)
        assert result.code == 2, (target, result)
        assert words in result.err and len(result.err.strip().splitlines()) == 1


def test_a_line_past_the_limit_is_skipped_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replay_module, "MAX_LINE", 64)
    journal = tmp_path / "j.jsonl"
    lines = [
        '{"event":"task_started","at":"t","task_id":"a"}\n',
        '{"event":"task_succeeded","at":"t","task_id":"a","output":"' + "x" * 500 + '"}\n',
        '{"event":"task_started","at":"t","task_id":"b"}\n',
    ]
    journal.write_text("".join(lines))
    state = replay(journal)
    assert [d.line for d in state.damage] == [2]
    assert "longer than" in state.damage[0].reason
    assert set(state.tasks) == {"a", "b"} and not state.completed


def test_a_journal_path_that_is_a_folder_says_so(
    plan_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = run_cli(capsys, "execute", str(plan_file), "--journal", str(tmp_path))
    assert result.code == 2
    assert "is a folder, not a journal file" in result.err


@pytest.mark.parametrize("level", [0, 1, 2])
def test_an_unwritable_folder_gives_exit_4_at_every_level(
    plan_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    level: int,
) -> None:
    """The journal's folder exists read-only (level 0), or is missing under a read-only
    folder one or two levels up: the same exit code and message shape each time."""
    readonly = tmp_path / "ro"
    readonly.mkdir()
    journal = readonly / "a" / "b" / "j.jsonl"
    existing = [readonly, readonly / "a", readonly / "a" / "b"][: 3 - level]
    for folder in existing[1:]:
        folder.mkdir()
    unwritable = existing[-1]
    if os.geteuid() == 0:  # root ignores permissions: simulate what the kernel would say
        real_mkdir, real_access = Path.mkdir, os.access

        def mkdir(self: Path, *args: object, **kwargs: object) -> None:
            if self.parent == unwritable:
                raise PermissionError(13, "Permission denied", str(self))
            real_mkdir(self, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(Path, "mkdir", mkdir)
        monkeypatch.setattr(os, "access", lambda p, m: Path(p) != unwritable and real_access(p, m))
    else:
        unwritable.chmod(0o500)
    try:
        result = run_cli(capsys, "execute", str(plan_file), "--journal", str(journal))
    finally:
        unwritable.chmod(0o700)
    assert result.code == 4, result
    assert "Permission denied" in result.err and len(result.err.strip().splitlines()) == 1
    assert not journal.exists()
