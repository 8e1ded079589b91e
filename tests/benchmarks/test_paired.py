"""The shared benchmark helper: verdicts with spreads, and figures of one process each."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from _paired import MIB, Measure, Paired, measure, paired, verdict  # noqa: E402

_ALLOCATE = "b = bytearray({size}); b[::4096] = b'x' * len(b[::4096])"


class TestVerdict:
    def test_every_ratio_within_the_target_is_met(self) -> None:
        """A spread wholly under the target is met."""
        assert verdict(1.1, 2.9, 3.0) == "met"

    def test_a_spread_that_crosses_the_target_is_on_the_line(self) -> None:
        """The median alone would say met; the spread says the run cannot tell."""
        result = Paired(
            "x",
            3.0,
            tuple(Measure(1, c, 0) for c in (2.5, 2.6, 2.7, 2.8, 3.5)),
            tuple(Measure(1, 1.0, 0) for _ in range(5)),
        )
        assert result.target_verdict == "on the line"
        assert "on the line" in result.summary()
        assert "spread 2.50-3.50x" in result.summary()

    def test_a_target_on_wall_is_judged_on_the_wall_ratios(self) -> None:
        """A command waiting on a disk is judged on what the user waits, not its CPU."""
        result = Paired(
            "x",
            1.5,
            tuple(Measure(w, 0.5, 0) for w in (1.1, 1.2, 1.3, 1.2, 1.4)),
            tuple(Measure(1.0, 0.1, 0) for _ in range(5)),
            on="wall",
        )
        assert result.target_verdict == "met"  # the CPU ratios (5x) would say MISSED
        assert "target   wall <= 1.5x: met" in result.summary()

    def test_every_ratio_over_the_target_is_missed(self) -> None:
        """A spread wholly over the target is missed."""
        assert verdict(3.1, 4.0, 3.0) == "MISSED"


class TestMeasure:
    def test_peak_memory_is_the_commands_own(self) -> None:
        """A big benchmark process does not lend its memory to the child it starts."""
        ballast = bytearray(200 * MIB)
        ballast[::4096] = b"x" * len(ballast[::4096])
        small = measure([sys.executable, "-c", "pass"])
        large = measure([sys.executable, "-c", _ALLOCATE.format(size=100 * MIB)])
        del ballast
        assert small.peak < 60 * MIB
        assert large.peak - small.peak > 90 * MIB

    def test_a_failing_command_stops_with_its_stderr(self) -> None:
        """An unexpected exit code is a stop, naming the command's own error."""
        fails = "import sys; sys.stderr.write('the reason'); sys.exit(3)"
        with pytest.raises(SystemExit, match=r"(?s)exited 3: .*\nthe reason"):
            measure([sys.executable, "-c", fails], ok_codes=(0,))

    def test_pairs_alternate_and_need_five(self, tmp_path: Path) -> None:
        """Each pair runs both sides; fewer than five pairs is refused."""
        log = tmp_path / "log"
        append = "import sys; open(sys.argv[1], 'a').write(sys.argv[2])"
        ours = [sys.executable, "-c", append, str(log), "C"]
        floor = [sys.executable, "-c", append, str(log), "F"]
        result = paired("x", ours, floor, target=None, pairs=5, warm=False)
        assert log.read_text() == "CFFCCFFCCF"
        assert len(result.cpu_ratios) == 5
        with pytest.raises(SystemExit, match="at least 5 pairs"):
            paired("x", ours, floor, target=None, pairs=4)


def test_bench_execute_names_a_missing_dir(tmp_path: Path) -> None:
    """``bench_execute.py --dir D`` with no folder D is one line, not a traceback."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_execute.py"), "--dir", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "no such folder" in done.stderr
    assert "Traceback" not in done.stderr


def test_bench_report_names_the_rows_of_the_runs_it_keeps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--keep DIR with runs of other sizes: the label counts their rows (it used to print
    --cases x --models x --samples, 200,000 by default, whatever it measured)."""
    import bench_report

    bench_report.make_run(tmp_path / "base", 3, 2, 1, 0.0, seed=1)
    bench_report.make_run(tmp_path / "cand", 2, 2, 1, 0.0, seed=2)
    measured: list[int] = []
    monkeypatch.setattr(bench_report, "_measure_report", lambda _r, rows, *_: measured.append(rows))
    monkeypatch.setattr(
        sys, "argv", ["bench_report.py", "--keep", str(tmp_path), "--only", "report"]
    )
    bench_report.main()
    assert "runs of 6 and 4 rows" in capsys.readouterr().out
    assert measured == [6]
