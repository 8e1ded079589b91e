"""Writing into a read-only folder or a full disk: exit 4, one line naming the path, nothing half
written. Real file systems where the machine allows it (a read-only or 64 KiB tmpfs mounted by
root, or a chmod'ed folder for other users); ENOSPC injected in-process everywhere."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.testing import FakePlannerServer, make_project, sound_plan, write_response
from tests.cli_helpers import Result, run_cli


def _mount(target: Path, options: str) -> bool:
    """Mount a tmpfs at ``target`` (root only); False when the machine does not allow it."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(target)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def _umount(target: Path) -> None:
    subprocess.run(["umount", "-l", str(target)], capture_output=True, check=False)


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    """A folder no one can write to: a read-only tmpfs (root), else a chmod 555 folder."""
    folder = tmp_path / "ro"
    folder.mkdir()
    if _mount(folder, "ro,size=64k"):
        yield folder
        _umount(folder)
        return
    if os.geteuid() == 0:
        pytest.skip("running as root without mount: no way to make a read-only folder")
    folder.chmod(0o555)
    yield folder
    folder.chmod(0o755)


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs filled to the last byte (root only)."""
    folder = tmp_path / "full"
    folder.mkdir()
    if not _mount(folder, "size=64k"):
        pytest.skip("a full disk needs a tmpfs mount (root)")
    try:
        with (folder / "filler").open("wb") as handle:
            while True:
                handle.write(b"\0" * 4096)
                handle.flush()
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    yield folder
    _umount(folder)


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """A finished replay run of one passing case."""
    path = make_project(tmp_path / "proj")
    write_response(tmp_path / "proj", "demo", "planner", "c1", json.dumps(sound_plan()))
    out = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-m", "harness", "run", str(path), "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return out


def _planeval(*args: str) -> Result:
    done = subprocess.run(
        [sys.executable, "-m", "harness", *args], capture_output=True, text=True, check=False
    )
    return Result(done.returncode, done.stdout, done.stderr)


def _exit_4_naming(result: Result, folder: Path) -> None:
    assert result.code == 4, result
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert str(folder) in lines[0] and "Traceback" not in result.err


def _no_temp_files(folder: Path) -> None:
    assert [p.name for p in folder.rglob(".*.tmp")] == []


@pytest.mark.parametrize("where", ["read_only", "full_disk"])
class TestCommands:
    def test_report(self, where: str, request: pytest.FixtureRequest, run_dir: Path) -> None:
        """``report --out`` into an unwritable folder: exit 4, the folder named."""
        folder: Path = request.getfixturevalue(where)
        result = _planeval("report", str(run_dir), "--out", str(folder / "r"))
        _exit_4_naming(result, folder)
        _no_temp_files(folder)

    def test_baseline(self, where: str, request: pytest.FixtureRequest, run_dir: Path) -> None:
        """``baseline --out`` into an unwritable folder: exit 4, no file."""
        folder: Path = request.getfixturevalue(where)
        result = _planeval("baseline", str(run_dir), "--out", str(folder / "b.json"))
        _exit_4_naming(result, folder)
        assert not (folder / "b.json").exists()
        _no_temp_files(folder)

    def test_run(self, where: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
        """``run --out`` into an unwritable folder: exit 4 before anything is evaluated."""
        folder: Path = request.getfixturevalue(where)
        path = make_project(tmp_path / "p2")
        write_response(tmp_path / "p2", "demo", "planner", "c1", json.dumps(sound_plan()))
        result = _planeval("run", str(path), "--out", str(folder / "run"))
        _exit_4_naming(result, folder)
        _no_temp_files(folder)


class TestInProcess:
    """ENOSPC at the last moment (the rename), injected: works on every machine."""

    @pytest.fixture
    def no_space(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def replace(src: object, dst: object) -> None:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(os, "replace", replace)

    @pytest.mark.parametrize("command", ["report", "baseline"])
    def test_enospc(
        self,
        command: str,
        capsys: pytest.CaptureFixture[str],
        run_dir: Path,
        tmp_path: Path,
        no_space: None,
    ) -> None:
        """The command exits 4 naming the file it could not write, and leaves no temp file."""
        out = tmp_path / "out"
        out.mkdir()
        args = {
            "report": ["report", str(run_dir), "--out", str(out)],
            "baseline": ["baseline", str(run_dir), "--out", str(out / "b.json")],
        }[command]
        result = run_cli(capsys, *args)
        assert result.code == 4, result
        assert len(result.err.strip().splitlines()) == 1
        assert str(out) in result.err and "No space left on device" in result.err
        assert list(out.iterdir()) == []


def test_gate_needs_no_write_access(read_only: Path, run_dir: Path) -> None:
    """``gate`` writes nothing, so a run kept on a read-only disk can still be gated."""
    copy = read_only.parent / "run-copy"
    shutil.copytree(run_dir, copy)
    result = _planeval("gate", str(copy), "--min-pass-rate", "0.5")
    assert result.code in (0, 2, 3), result  # any verdict, but never a disk error
    assert "Read-only" not in result.err and "Traceback" not in result.err


def test_live_run_checks_its_recordings_folder_first(read_only: Path, tmp_path: Path) -> None:
    """A live run whose recordings folder is unwritable stops before the first planner call."""
    with FakePlannerServer() as server:
        model = {
            "id": "gpt",
            "provider": "openai",
            "model": "m",
            "base_url": server.openai_base_url,
        }
        path = make_project(tmp_path / "live", models=[model])
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "harness",
                "run",
                str(path),
                "--live",
                "--fixtures",
                str(read_only),
                "--out",
                str(tmp_path / "out"),
            ],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "OPENAI_API_KEY": "sk-test"},
        )
        assert server.requests == []
    _exit_4_naming(Result(done.returncode, done.stdout, done.stderr), read_only)
    assert not (tmp_path / "out").exists()


def _limit_file_size() -> None:
    """In the child: files may not grow past 64 KiB (EFBIG, as on a full disk)."""
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10))


def test_a_live_run_stops_at_the_first_recording_it_cannot_write(tmp_path: Path) -> None:
    """The recordings disk fills during a live run: it stops at the first failed write
    (exit 4) instead of paying for every remaining answer and dropping it."""
    big = json.dumps({**sound_plan(), "notes": "x" * (70 << 10)})  # over the file limit
    with FakePlannerServer(planner=lambda _prompt: big) as server:
        model = {
            "id": "gpt",
            "provider": "openai",
            "model": "m",
            "base_url": server.openai_base_url,
        }
        path = make_project(
            tmp_path / "live",
            models=[model],
            cases=[{"id": f"c{i:02d}", "goal": f"Goal {i}"} for i in range(20)],
        )
        done = subprocess.run(
            [sys.executable, "-m", "harness", "run", str(path), "--live", "--concurrency", "1",
             "--out", str(tmp_path / "out")],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "OPENAI_API_KEY": "sk-test"},
            preexec_fn=_limit_file_size,
            timeout=120,
        )  # fmt: skip
        calls = len(server.requests)
    assert done.returncode == 4, done.stderr
    assert "Traceback" not in done.stderr
    assert calls <= 3, f"{calls} planner calls after the disk filled"
