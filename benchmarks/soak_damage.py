"""Single-line corruption soak: flip every byte of a journal that has a ``--from`` resume, one
at a time, then resume five times, counting the agent's real calls in a side log.

The test suite flips the middle byte of each line (``tests/execute/test_execute_damage.py``);
this flips every byte (or the first ``--limit``) and prints the figures: trials, resumes, agent
calls over the resumes (re-runs), tasks run more than once over one trial's five resumes
(double executions), wrong outputs restored, resumes that disagreed with the journal's
replay, resumes that did not complete.

Not a speed figure, so not on ``benchmarks/_paired.py``: the figures are counts of losses.

Run:  python benchmarks/soak_damage.py [--limit N] [--middle]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.execute._damage_sweep import sweep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="stop after N flips")
    parser.add_argument("--middle", action="store_true", help="one byte per line, as the test")
    args = parser.parse_args()
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="soak_damage_") as work:
        figures = sweep(Path(work), every_byte=not args.middle, limit=args.limit)
    print(
        f"trials {figures.trials:,}  resumes {figures.resumes:,}  re-runs {figures.reruns:,}  "
        f"double executions {figures.double_executions}  wrong outputs {figures.wrong_outputs}  "
        f"disagreements {figures.disagreements}  not completed {figures.not_completed}  "
        f"({time.monotonic() - began:.0f} s)"
    )
    for failure in figures.failures[:20]:
        print("  " + failure)
    sys.exit(0 if figures.ok() else 1)


if __name__ == "__main__":
    main()
