"""Soak test: SIGKILL `planeval execute` at random moments, resume, and count what was lost.

Plan shapes (chain, wide, diamond layers, a seeded random DAG) x concurrencies (1, 2, 4). Each
round runs ``planeval execute --resume`` in a real child process with an agent that sleeps a
little, SIGKILLs it after a random delay, reads the journal, and resumes, until the plan
completes (with a final resume that is not killed). Then it checks, from the journal and from
the agent's own call log:

- lost tasks: a task the journal recorded as succeeded right after a kill that is not
  succeeded, with the same output, at the end;
- re-executions after journaled success: an agent call for a task whose success was already
  in the journal (``task_started`` after ``task_succeeded`` for the same task);
- the final journal replays strictly and completed.

Run:  python benchmarks/soak_kill.py [--kills 500] [--seed 1] [--dir DIR] [--inline]

``--inline`` marks the soak agent ``inline_agent`` (no timeout is set, so its attempts run in
the executor's own thread): the kills then land while the executor itself runs the agent.

Not a speed figure, so not on ``benchmarks/_paired.py``: the figures are counts of losses.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from harness.journal import replay

AGENT = '''
"""Soak agent: logs each call, sleeps 5-40 ms, returns the demo agent's output."""
import os
import random
import time

from harness.execute import demo_agent, inline_agent


@inline_agent if os.environ.get("SOAK_INLINE") == "1" else (lambda f: f)
def agent(context):
    fd = os.open(os.environ["SOAK_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, (context.task.id + "\\n").encode())
    os.close(fd)
    time.sleep(random.uniform(0.005, 0.04))
    return demo_agent(context)
'''


def shape(name: str, rng: random.Random) -> dict[str, Any]:
    """A hand-built plan of the given shape (about 16 tasks)."""
    tasks: list[dict[str, Any]] = []
    if name == "chain":
        for i in range(16):
            tasks.append({"id": f"t{i}", **({"needs": {"p": f"t{i - 1}"}} if i else {})})
    elif name == "wide":
        tasks = [{"id": f"t{i}"} for i in range(16)]
    elif name == "diamond":
        tasks.append({"id": "root"})
        for layer in range(3):
            above = ["root"] if layer == 0 else [f"l{layer - 1}_{k}" for k in range(4)]
            for k in range(4):
                tasks.append({"id": f"l{layer}_{k}", "depends_on": above})
        tasks.append({"id": "sink", "depends_on": [f"l2_{k}" for k in range(4)]})
    else:  # random DAG: each task depends on up to 3 earlier ones
        for i in range(16):
            earlier = [f"t{j}" for j in range(i)]
            deps = rng.sample(earlier, k=min(len(earlier), rng.randint(0, 3)))
            tasks.append({"id": f"t{i}", "depends_on": deps})
    for task in tasks:
        task["description"] = f"Soak task {task['id']}"
    return {"plan_id": f"soak-{name}-{rng.getrandbits(32):08x}", "goal": "soak", "tasks": tasks}


class Soak:
    def __init__(self, root: Path, seed: int) -> None:
        self.root = root
        self.rng = random.Random(seed)
        self.agent = root / "soak_agent.py"
        self.agent.write_text(AGENT)
        self.figures: Counter[str] = Counter()

    def command(self, plan: Path, journal: Path, concurrency: int) -> list[str]:
        return [
            sys.executable, "-m", "harness", "execute", str(plan), "--journal", str(journal),
            "--resume", "--agent", f"{self.agent}:agent", "--max-concurrency", str(concurrency),
            "--backoff", "0",
        ]  # fmt: skip

    def plan_round(self, name: str, concurrency: int, kills_wanted: int, index: int) -> None:
        folder = self.root / f"{index:04d}-{name}-c{concurrency}"
        folder.mkdir()
        plan = folder / "plan.json"
        plan.write_text(json.dumps(shape(name, self.rng)))
        journal, log = folder / "journal.jsonl", folder / "calls.log"
        env = {**os.environ, "SOAK_LOG": str(log)}
        snapshots: list[dict[str, Any]] = []
        kills = 0
        while kills < kills_wanted:
            self.figures["runs"] += 1
            child = subprocess.Popen(
                self.command(plan, journal, concurrency),
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            time.sleep(self.rng.uniform(0.2, 1.5))
            if child.poll() is None:
                child.send_signal(signal.SIGKILL)
                child.wait()
                kills += 1
                self.figures["kills"] += 1
                if journal.exists():
                    snapshots.append(replay(journal).outputs)
            else:
                self.figures["finished before the kill"] += 1
                break
        final = subprocess.run(
            self.command(plan, journal, concurrency), env=env, capture_output=True, timeout=300
        )
        self.figures["resumes"] += 1
        self.figures["runs"] += 1
        state = replay(journal, "strict")
        if final.returncode != 0 or state.status != "completed":
            self.figures["plans not completed"] += 1
        for snapshot in snapshots:
            for task_id, output in snapshot.items():
                if state.outputs.get(task_id) != output:
                    self.figures["lost tasks"] += 1
        self.figures["re-executions after journaled success"] += rerun_after_success(journal)
        calls = Counter(log.read_text().split()) if log.exists() else Counter()
        starts = Counter(
            e["task_id"] for e in map(json.loads, journal.read_text().splitlines())
            if e.get("event") == "task_started"
        )  # fmt: skip
        self.figures["agent calls not journaled"] += sum((calls - starts).values())
        self.figures["plans"] += 1


def rerun_after_success(journal: Path) -> int:
    """``task_started`` events for a task after its ``task_succeeded`` (no --from is used)."""
    succeeded: set[str] = set()
    count = 0
    for line in journal.read_text().splitlines():
        entry = json.loads(line)
        if entry.get("event") == "task_succeeded":
            succeeded.add(entry["task_id"])
        elif entry.get("event") == "task_started" and entry["task_id"] in succeeded:
            count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=500, help="SIGKILLs to deliver in all")
    parser.add_argument("--per-plan", type=int, default=4, help="kills per plan before the end")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument(
        "--inline",
        action="store_true",
        help="mark the soak agent inline_agent: attempts run in the executor's thread",
    )
    args = parser.parse_args()
    os.environ["SOAK_INLINE"] = "1" if args.inline else "0"  # read by the agent file
    root = Path(tempfile.mkdtemp(prefix="soak_kill_", dir=args.dir))
    soak = Soak(root, args.seed)
    combos = [(s, c) for s in ("chain", "wide", "diamond", "random") for c in (1, 2, 4)]
    began = time.monotonic()
    index = 0
    while soak.figures["kills"] < args.kills:
        name, concurrency = combos[index % len(combos)]
        wanted = min(args.per_plan, args.kills - soak.figures["kills"])
        soak.plan_round(name, concurrency, wanted, index)
        index += 1
    f = soak.figures
    where = "in the executor's thread (inline)" if args.inline else "in worker threads"
    print(f"soak_kill: seed {args.seed}, {time.monotonic() - began:.0f}s, journals in {root}")
    print(f"agent attempts ran {where}")
    print(f"trials (plans x shapes/concurrencies): {f['plans']} plans, {f['runs']} runs")
    print(f"kills: {f['kills']}  (runs that finished before their kill: "
          f"{f['finished before the kill']})")  # fmt: skip
    print(f"resumes to completion: {f['resumes']}  plans not completed: {f['plans not completed']}")
    print(f"lost tasks: {f['lost tasks']}")
    print(f"re-executions after journaled success: {f['re-executions after journaled success']}")
    print(f"agent calls not journaled: {f['agent calls not journaled']}")


if __name__ == "__main__":
    main()
