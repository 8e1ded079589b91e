"""Paired whole-process measurement: the one way every benchmark here times a command.

A user runs ``planeval`` as a process: interpreter start-up, imports, reading, output. So a
command is measured as a separate process against its floor (the least work that does the same
job, also a separate process), the two alternating A/B then B/A, in at least 5 pairs. Each pair
gives a ratio taken while both sides saw the same machine load; the verdict is on the median of
those paired ratios, and their spread (min-max) is printed beside it. A spread that crosses the
target marks the result **on the line**: neither met nor missed, run it again on a quieter
machine.

CPU time (user + sys), wall time and peak memory (max RSS) come from ``os.wait4`` for that one
child (started from a small runner, see ``_RUNNER``), so a figure never mixes in another
process. On a shared machine the CPU ratio is the
steady one; the wall ratio is printed for what a user waits.

Use::

    from _paired import loads_loop, paired

    result = paired("check 100k", [py, "-m", "harness", "check", f], loads_loop(f), target=3.0)
    result.print()
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "FLOOR_LOADS",
    "Measure",
    "Paired",
    "add_pairs_option",
    "loads_loop",
    "measure",
    "paired",
    "verdict",
]

MIB = 1 << 20

FLOOR_LOADS = """\
import json, sys
loads = json.loads
for name in sys.argv[1:]:
    with open(name, "rb") as fh:
        for line in fh:
            if line.strip():
                loads(line)
"""
"""The bare floor of any JSON Lines reader: ``json.loads`` of every line, nothing kept."""


def loads_loop(*paths: Path | str) -> list[str]:
    """The command of the ``json.loads`` floor over ``paths`` (a fresh interpreter)."""
    return [sys.executable, "-c", FLOOR_LOADS, *map(str, paths)]


@dataclass(frozen=True, slots=True)
class Measure:
    """One finished process."""

    wall: float
    """Seconds from start to exit."""
    cpu: float
    """User + system CPU seconds of that process."""
    peak: int
    """Peak resident memory in bytes (max RSS)."""


_RUNNER = """\
import json, os, subprocess, sys, time
began = time.perf_counter()
process = subprocess.Popen(json.loads(sys.argv[1]))
_, status, usage = os.wait4(process.pid, 0)
wall = time.perf_counter() - began
with open(sys.argv[2], "w") as fh:
    json.dump([wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss], fh)
sys.exit(os.waitstatus_to_exitcode(status))
"""
"""Starts the measured command from a small interpreter and times that one child.

Linux carries the peak memory of the process that forks into a child's ``ru_maxrss`` (a
vfork'd child execs from the parent's address space), so a command started straight from a
benchmark holding a big data set would report the benchmark's memory. Started from this
runner, the floor of the figure is the runner's few MiB, below any Python process measured."""


def measure(
    command: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    stdout: Path | None = None,
    ok_codes: tuple[int, ...] = (0,),
    cwd: Path | None = None,
) -> Measure:
    """Run ``command`` once as its own process: its wall, CPU and peak memory.

    ``stdout`` names a file the output goes to (as a user's redirect); otherwise it is
    discarded. An exit code outside ``ok_codes`` stops the benchmark with the command's stderr.
    """
    with tempfile.TemporaryDirectory(prefix="paired-") as folder:
        figures = Path(folder) / "figures.json"
        runner = [sys.executable, "-c", _RUNNER, json.dumps(list(command)), str(figures)]
        with (
            stdout.open("wb") if stdout is not None else open(os.devnull, "wb") as out,
            (Path(folder) / "stderr").open("w+b") as err,
        ):
            code = subprocess.run(runner, stdout=out, stderr=err, env=env, cwd=cwd).returncode
            err.seek(0)
            if code not in ok_codes:
                shown = " ".join(command)[:300]
                raise SystemExit(
                    f"benchmark command exited {code}: {shown}\n"
                    f"{err.read().decode(errors='replace')[-2000:]}"
                )
        wall, cpu, peak_kib = json.loads(figures.read_text())
    return Measure(wall, cpu, peak_kib * 1024)


def verdict(low: float, high: float, target: float) -> str:
    """``met`` when every paired ratio is within the target, ``MISSED`` when none is, else
    ``on the line``."""
    if high <= target:
        return "met"
    if low > target:
        return "MISSED"
    return "on the line"


@dataclass(frozen=True, slots=True)
class Paired:
    """A command against its floor over several alternating pairs."""

    name: str
    """What was measured."""
    target: float | None
    """The ratio the command must stay within (CPU), or None to only report."""
    command: tuple[Measure, ...]
    """Each pair's command run."""
    floor: tuple[Measure, ...]
    """Each pair's floor run."""
    memory_target: int | None = None
    """Most bytes the command's peak may exceed the floor's by, or None."""
    on: str = "cpu"
    """The figure the target is on: ``cpu``, or ``wall`` for a command whose floor is a disk
    or a server (fsync per event, calls waiting on an API), where the CPU is not the cost."""

    @property
    def cpu_ratios(self) -> list[float]:
        """The paired CPU ratios, command / floor."""
        return [c.cpu / max(f.cpu, 1e-9) for c, f in zip(self.command, self.floor, strict=True)]

    @property
    def wall_ratios(self) -> list[float]:
        """The paired wall ratios, command / floor."""
        return [c.wall / max(f.wall, 1e-9) for c, f in zip(self.command, self.floor, strict=True)]

    @property
    def target_verdict(self) -> str:
        """The verdict on the ratios of the figure ``on`` names, CPU unless told (``report``
        when there is no target)."""
        ratios = self.wall_ratios if self.on == "wall" else self.cpu_ratios
        return "report" if self.target is None else verdict(min(ratios), max(ratios), self.target)

    @property
    def memory_over_floor(self) -> list[int]:
        """Each pair's peak memory of the command minus the floor's, in bytes."""
        return [c.peak - f.peak for c, f in zip(self.command, self.floor, strict=True)]

    def summary(self) -> str:
        """The result in a few lines: medians, spreads, memory, verdicts."""
        cpu, wall = self.cpu_ratios, self.wall_ratios
        med = statistics.median
        lines = [
            f"{self.name}: {len(cpu)} pairs, alternating",
            f"  command  cpu {med(c.cpu for c in self.command):7.3f} s  "
            f"wall {med(c.wall for c in self.command):7.3f} s  "
            f"peak {med(c.peak for c in self.command) / MIB:7.1f} MiB",
            f"  floor    cpu {med(f.cpu for f in self.floor):7.3f} s  "
            f"wall {med(f.wall for f in self.floor):7.3f} s  "
            f"peak {med(f.peak for f in self.floor) / MIB:7.1f} MiB",
            f"  ratio    cpu {med(cpu):.2f}x (spread {min(cpu):.2f}-{max(cpu):.2f}x)  "
            f"wall {med(wall):.2f}x (spread {min(wall):.2f}-{max(wall):.2f}x)",
        ]
        if self.target is not None:
            lines.append(f"  target   {self.on} <= {self.target:g}x: {self.target_verdict}")
        over = self.memory_over_floor
        memory = (
            f"  memory   {med(over) / MIB:+.1f} MiB over the floor "
            f"(spread {min(over) / MIB:+.1f} to {max(over) / MIB:+.1f})"
        )
        if self.memory_target is not None:
            memory += f"; target <= {self.memory_target / MIB:g} MiB: " + verdict(
                min(over), max(over), self.memory_target
            )
        lines.append(memory)
        return "\n".join(lines)

    def print(self) -> None:
        """Print ``summary()``."""
        print(self.summary(), flush=True)


def paired(
    name: str,
    command: Sequence[str],
    floor: Sequence[str],
    *,
    target: float | None,
    pairs: int = 5,
    env: dict[str, str] | None = None,
    floor_env: dict[str, str] | None = None,
    stdout: Path | None = None,
    ok_codes: tuple[int, ...] = (0,),
    memory_target: int | None = None,
    cwd: Path | None = None,
    warm: bool = True,
    before: Callable[[], object] | None = None,
    floor_before: Callable[[], object] | None = None,
    floor_ok_codes: tuple[int, ...] = (0,),
    on: str = "cpu",
) -> Paired:
    """Measure ``command`` against ``floor`` in ``pairs`` alternating pairs (at least 5).

    Even pairs run the command first, odd pairs the floor first, so a drift in machine load
    falls on both sides alike. One unmeasured run of each comes first (page cache, bytecode)
    unless ``warm`` is False. ``before`` runs (untimed) before each run of the command, e.g. to
    remove the output folder the last run wrote; ``floor_before`` and ``floor_ok_codes`` do the
    same for the floor (a floor that is itself a planeval command, e.g. ``planeval run``).
    ``on="wall"`` puts the target on the wall ratios (a floor that waits on a disk or a server).
    """
    if on not in ("cpu", "wall"):
        raise ValueError(f"on must be 'cpu' or 'wall', not {on!r}")
    if pairs < 5:
        raise SystemExit(f"{name}: at least 5 pairs are needed for a median with a spread")

    def run_command() -> Measure:
        if before is not None:
            before()
        return measure(command, env=env, stdout=stdout, ok_codes=ok_codes, cwd=cwd)

    def run_floor() -> Measure:
        if floor_before is not None:
            floor_before()
        return measure(floor, env=floor_env or env, ok_codes=floor_ok_codes, cwd=cwd)

    if warm:
        run_command()
        run_floor()
    ours: list[Measure] = []
    theirs: list[Measure] = []
    for number in range(pairs):
        if number % 2 == 0:
            ours.append(run_command())
            theirs.append(run_floor())
        else:
            theirs.append(run_floor())
            ours.append(run_command())
    return Paired(name, target, tuple(ours), tuple(theirs), memory_target, on)


def add_pairs_option(parser: object) -> None:
    """``--pairs N`` (default 5, at least 5) on an argparse parser."""
    parser.add_argument(  # type: ignore[attr-defined]
        "--pairs", type=int, default=5, help="alternating command/floor pairs (at least 5)"
    )
