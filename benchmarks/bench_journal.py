"""Journal speed against bare floors on the same disk.

1. Appending 10,000 events with fsync every event, against a bare loop of ``os.write`` +
   ``os.fsync`` of the same bytes (target: within 1.5x); and with fsync every 100 events
   against the bare loop doing the same.
2. Replaying a 1,000,000-event journal as planeval writes it (checksummed and chained
   lines, written by ``JournalWriter``), against a bare loop of ``json.loads`` per line
   (target: within 2x).

To compare two versions of the code on the same machine and disk, run this script
alternately with each on ``PYTHONPATH`` (``benchmarks/bench_journal_paired.sh``).

Run alone on a quiet machine:  python benchmarks/bench_journal.py [--dir DIR] [--repeat N]
Each figure is the best of N runs (default 3).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from harness.journal import JournalWriter, replay

APPENDS = 10_000
REPLAY_EVENTS = 1_000_000


def best_pair(
    repeat: int, ours: Callable[[], float], floor: Callable[[], float]
) -> tuple[float, float]:
    """Best of N for each, alternating ours and the floor so that load drifts hit both."""
    ours_times, floor_times = [], []
    for _ in range(repeat):
        ours_times.append(ours())
        floor_times.append(floor())
    return min(ours_times), min(floor_times)


def event_payload(i: int) -> tuple[str, dict[str, object]]:
    """Events shaped like the executor's: a start and a success per task."""
    task_id = f"task_{i // 2}"
    if i % 2 == 0:
        return "task_started", {"task_id": task_id, "description": "Extract order", "attempt": 1}
    output = {"order": f"A-{i:07d}", "items": [1, 2, 3], "note": "refund approved"}
    return "task_succeeded", {
        "task_id": task_id,
        "description": "Extract order",
        "attempt": 1,
        "duration": 0.0123,
        "output": output,
    }


def writer_run(path: Path, fsync_every: int) -> float:
    path.unlink(missing_ok=True)
    payloads = [event_payload(i) for i in range(APPENDS)]
    with JournalWriter(path, fsync_every=fsync_every) as writer:
        began = time.perf_counter()
        for name, payload in payloads:
            writer.append(name, **payload)
        writer.sync()
        elapsed = time.perf_counter() - began
    return elapsed


def bare_run(path: Path, lines: list[bytes], fsync_every: int) -> float:
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        began = time.perf_counter()
        for n, line in enumerate(lines, 1):
            os.write(fd, line)
            if n % fsync_every == 0:
                os.fsync(fd)
        os.fsync(fd)
        return time.perf_counter() - began
    finally:
        os.close(fd)


def make_replay_journal(path: Path) -> None:
    """The journal the code under test writes (its checksums and chain included)."""
    with JournalWriter(path, fsync_every=0, exclusive=True) as writer:
        for i in range(REPLAY_EVENTS):
            name, payload = event_payload(i)
            writer.append(name, **payload)


def bare_replay(path: Path) -> float:
    began = time.perf_counter()
    loads = json.loads
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            loads(line)
    return time.perf_counter() - began


def journal_replay(path: Path) -> float:
    began = time.perf_counter()
    state = replay(path, "strict")
    elapsed = time.perf_counter() - began
    assert len(state.completed) == REPLAY_EVENTS // 2
    return elapsed


def main() -> None:
    global APPENDS, REPLAY_EVENTS  # the sizes the functions above use
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="where to write (the disk)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--appends", type=int, default=APPENDS, help="events appended")
    parser.add_argument("--events", type=int, default=REPLAY_EVENTS, help="events replayed")
    args = parser.parse_args()
    APPENDS, REPLAY_EVENTS = args.appends, args.events
    work = Path(tempfile.mkdtemp(prefix="bench_journal_", dir=args.dir))
    try:
        journal = work / "append.jsonl"
        bare = work / "bare.jsonl"
        writer_run(journal, 1)
        lines = journal.read_bytes().splitlines(keepends=True)
        load = os.getloadavg()[0]
        import harness

        print(f"code: {Path(harness.__file__).parent}")
        print(f"disk: {work}  repeat: best of {args.repeat}  load average: {load:.2f}")
        for every, target in ((1, 1.5), (100, None)):
            ours, floor = best_pair(
                args.repeat,
                lambda e=every: writer_run(journal, e),
                lambda e=every: bare_run(bare, lines, e),
            )
            verdict = "(no target)"
            if target is not None:
                verdict = f"(target {target}x: {'met' if ours / floor <= target else 'MISSED'})"
            print(
                f"append {APPENDS:,} events, fsync every {every:>3}: journal {ours:.3f}s  "
                f"bare write+fsync {floor:.3f}s  ratio {ours / floor:.2f}x " + verdict
            )
        big = work / "replay.jsonl"
        make_replay_journal(big)
        size = big.stat().st_size / 1e6
        ours, floor = best_pair(args.repeat, lambda: journal_replay(big), lambda: bare_replay(big))
        met = "met" if ours / floor <= 2 else "MISSED"
        print(
            f"replay {REPLAY_EVENTS:,} events ({size:.0f} MB): replay() {ours:.3f}s  "
            f"bare json.loads per line {floor:.3f}s  ratio {ours / floor:.2f}x (target 2x: {met})"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
