"""Write the recordings of the example suites: the answers of the hand-written example planners.

The example suites (``evals/refunds.yaml``, ``evals/data-pipeline.yaml``, ``evals/travel.yaml``)
compare two styles of ``examples/planners/example_planner.py``, a program written by hand (not a
language model). This script asks it for every case x model x sample and stores each answer as a
planeval response file in ``plan_fixtures/<suite>/<model>/<case>/sample-<k>.json`` with
provenance ``handwritten``, exactly as a ``command`` planner's answer is recorded, so replay
treats them like any recording. It is deterministic: running it again changes no file unless
a playbook, a suite or a prompt template changed.

    python examples/make_example_recordings.py [--root DIR]
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
from pathlib import Path

from harness import __version__
from harness.recording import Provenance, ResponseFile, response_file_path
from harness.suite import load_suite

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "planners"))

from example_planner import answer  # noqa: E402

EXAMPLE_SUITES = ("refunds", "data-pipeline", "travel")
WRITTEN_AT = "2026-12-01T00:00:00+00:00"
"""When the playbooks were written (kept fixed so that re-running changes nothing)."""


def style_of(command: str | None) -> str:
    """The planner style a model's command asks for (its last argument)."""
    return shlex.split(command or "")[-1]


def write_recordings(root: Path = ROOT) -> int:
    """Rewrite every recording of the example suites under ``root``; return how many."""
    written = 0
    for name in EXAMPLE_SUITES:
        suite = load_suite(ROOT / "evals" / f"{name}.yaml")
        fixtures = root / "plan_fixtures"
        shutil.rmtree(fixtures / suite.name, ignore_errors=True)
        for model in suite.models:
            style = style_of(model.command)
            for case in suite.cases:
                for sample in range(suite.samples):
                    text = answer(style, suite.name, case.id, sample, case.goal)
                    provenance = Provenance(
                        source="handwritten",
                        model=model.id,
                        prompt_hash=suite.prompt_hash,
                        recorded_at=WRITTEN_AT,
                        harness_version=__version__,
                        origin=f"examples/planners/example_planner.py {style}",
                    )
                    path = response_file_path(fixtures, suite.name, model.id, case.id, sample)
                    ResponseFile(provenance=provenance, response=text).write(path)
                    written += 1
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="write plan_fixtures/ here")
    args = parser.parse_args()
    count = write_recordings(args.root)
    print(f"wrote {count} recordings under {args.root / 'plan_fixtures'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
