"""Journal speed, whole processes: the journal against the journal before the chain, and
replay against ``json.loads``.

1. Appending events (the executor's writer: ``exclusive``) as a fresh process, against the
   same program on the journal before chained checksums (``--base``, default ``40a3eb1``:
   ``git archive`` of its ``harness`` into a temporary folder, put first on ``PYTHONPATH``),
   with fsync every event, every 100 events and never (the CPU the line costs). Target: the
   CPU within 1.1x of the journal before the chain. A fourth pair appends after the process
   learned a credential (as ``planeval`` does from an ``*_API_KEY`` variable), so every line
   is scrubbed; the journal before the chain scrubbed nothing.
2. Replaying a 1,000,000-event journal as planeval writes it (checksummed, chained) with
   ``replay(path, "strict")`` as a fresh process, against a fresh process doing
   ``json.loads`` per line (target: within 2x).

Each comparison is paired (``benchmarks/_paired.py``): the two sides alternate, at least 5
pairs, the verdict is on the median CPU ratio with its spread.

Usage: ``python benchmarks/bench_journal.py [--pairs P] [--appends N] [--events N]
[--base REF] [--dir DIR] [--only append|replay]``. Fsync every event costs a disk flush per
line (5 ms on the development VM), so the fsync-every-event pair uses at most
``--fsync-appends`` events (default 2,000).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _installed_env import installed_env
from _paired import add_pairs_option, loads_loop, paired

HERE = Path(__file__).resolve().parent.parent
BEFORE_THE_CHAIN = "40a3eb1"
"""The last commit whose journal had no chain (journal version 2) nor scrubbed its lines."""

APPEND = """\
import os, sys
root, path, count, every, secret = sys.argv[1:6]
sys.path.insert(0, root)
import harness
if not harness.__file__.startswith(root):
    sys.exit(f"imported {harness.__file__}, not the code under {root}")
from harness.journal import JournalWriter
if secret:  # the journal before the chain had no book of credentials: nothing to learn
    from harness import _redaction
    getattr(_redaction, "remember", lambda value: None)(secret)
try:
    os.unlink(path)
except FileNotFoundError:
    pass
with JournalWriter(path, fsync_every=int(every), exclusive=True) as writer:
    for i in range(int(count)):
        task_id = f"task_{i // 2}"
        if i % 2 == 0:
            writer.append(
                "task_started", task_id=task_id, description="Extract order", attempt=1
            )
        else:
            output = {"order": f"A-{i:07d}", "items": [1, 2, 3], "note": "refund approved"}
            writer.append(
                "task_succeeded", task_id=task_id, description="Extract order", attempt=1,
                duration=0.0123, output=output,
            )
"""
"""The appending program: the executor's events, a start and a success per task."""

REPLAY = """\
import sys
root, path, count = sys.argv[1:4]
sys.path.insert(0, root)
from harness.journal import replay
state = replay(path, "strict")
if len(state.completed) != int(count) // 2:
    sys.exit(f"replayed {len(state.completed)} successes, wrote {int(count) // 2}")
"""
"""The replaying program: every line read, checked (checksum, chain) and applied."""

SECRET = "sk-bench-0123456789abcdefghijklmnopqrstuvwxyz"


def checkout(ref: str, into: Path) -> Path:
    """``ref``'s ``harness`` package extracted under ``into`` (its parent for PYTHONPATH)."""
    archive = subprocess.run(
        ["git", "-C", str(HERE), "archive", ref, "harness"], capture_output=True, check=False
    )
    if archive.returncode:
        raise SystemExit(f"git archive {ref}: {archive.stderr.decode(errors='replace').strip()}")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def bench_appends(args: argparse.Namespace, work: Path, base: Path, env: dict[str, str]) -> None:
    python = sys.executable
    cases = [
        ("fsync every event", 1, min(args.appends, args.fsync_appends), ""),
        ("fsync every 100", 100, args.appends, ""),
        ("no fsync", 0, args.appends, ""),
        ("no fsync, a credential known", 0, args.appends, SECRET),
    ]
    for label, every, count, secret in cases:
        ours = [python, "-c", APPEND, str(HERE), str(work / "ours.jsonl"), str(count)]
        before = [python, "-c", APPEND, str(base), str(work / "before.jsonl"), str(count)]
        result = paired(
            f"append {count:,} events, {label} (journal / journal before the chain)",
            [*ours, str(every), secret],
            [*before, str(every), secret],
            target=1.1,
            pairs=args.pairs,
            env=env,
        )
        result.print()


def bench_replay(args: argparse.Namespace, work: Path, env: dict[str, str]) -> None:
    journal = work / "replay.jsonl"
    subprocess.run(
        [sys.executable, "-c", APPEND, str(HERE), str(journal), str(args.events), "0", ""],
        check=True,
        env=env,
    )
    size = journal.stat().st_size / 1e6
    result = paired(
        f"replay {args.events:,} events ({size:.0f} MB) (replay() / json.loads per line)",
        [sys.executable, "-c", REPLAY, str(HERE), str(journal), str(args.events)],
        loads_loop(journal),
        target=2.0,
        pairs=args.pairs,
        env=env,
    )
    result.print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_pairs_option(parser)
    parser.add_argument("--appends", type=int, default=10_000, help="events appended")
    parser.add_argument(
        "--fsync-appends", type=int, default=2_000, help="events appended with fsync each"
    )
    parser.add_argument("--events", type=int, default=1_000_000, help="events replayed")
    parser.add_argument("--base", default=BEFORE_THE_CHAIN, help="the journal compared with")
    parser.add_argument("--dir", type=Path, default=HERE, help="where to write (the disk)")
    parser.add_argument("--only", choices=("append", "replay"), help="one of the two benches")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench_journal_", dir=args.dir))
    try:
        env = installed_env(work / "pycache")
        print(f"disk: {work}  load average: {os.getloadavg()[0]:.2f}", flush=True)
        if args.only != "replay":
            base = checkout(args.base, Path(tempfile.mkdtemp(prefix="before_", dir=work)))
            bench_appends(args, work, base, env)
        if args.only != "append":
            bench_replay(args, work, env)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
