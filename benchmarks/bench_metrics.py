"""Scoring 10,000 recorded plans against their reference plans, as whole processes.

A synthetic run (suite ``metrics-bench``; every row is generated here, nothing is real): 500
cases x 4 models x 5 samples. Each case has a reference of 1 to 20 tasks, WorfBench text (80%)
or a TaskBench record (20%), with shapes that stress the metrics: chains, fully parallel
workflows (up to 20! topological orders, of which WorfBench keeps 20), and workflows whose tasks
repeat a text two or three times (ties that networkx's matching must break; 5% of cases, where
2 of WorfBench's 1,192 gold workflows have any). Each row's recorded answer is the reference, or
it with a task dropped, renamed, repeated or reordered, or prose. Separately, the worst case we
know is timed: a 20-task workflow whose tasks all share one text, against itself (networkx's
blossom algorithm on a complete 22 x 22 bipartite graph, twice).

Measured as whole processes in alternating pairs (``benchmarks/_paired.py``):

- floor: a fresh interpreter that loads the run (``harness.report.load_run``: results.jsonl into
  rows and a pandas frame) and does nothing else;
- command: a fresh interpreter that loads the run the same way and scores every row
  (``harness.metrics.score_plan``, text matcher, as ``planeval run`` does for each row: each
  case's reference read once, on its first row, with ``harness.metrics.Reference.read``).

Targets: the command's CPU within 10x the floor's (scoring every row costs at most about 9x
loading the run, start-up included on both sides), and no plan over 50 ms of its own. A plan's
own time is measured inside the command (its CPU time less the garbage collector's pauses that
fell into it: a full collection walks every object made since the run was loaded, 30-100 ms
here); both are printed, over every measured run.

About half the rows repeat an answer already given for their case (the unchanged reference,
the same task dropped, prose), as replayed samples and models that agree do. A reference
remembers the scores of the answers scored against it, as in ``planeval run``; ``--remember 0``
scores every row anew, for the figure on all-distinct answers.

    python benchmarks/bench_metrics.py [--cases 500 --models 4 --samples 5] [--pairs 5]
        [--remember 64] [--as-is]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
from pathlib import Path

from _installed_env import installed_env
from _paired import add_pairs_option, paired

TOOLS = tuple(f"tool_{i}" for i in range(40))


def _workflow(texts: list[str], edges: list[tuple[int, int]]) -> str:
    end = len(texts) + 1

    def name(i: int) -> str:
        return "START" if i == 0 else "END" if i == end else str(i)

    nodes = "\n".join(f"{i}: {t}" for i, t in enumerate(texts, 1))
    return f"Node:\n{nodes}\nEdge: " + " ".join(f"({name(a)},{name(b)})" for a, b in edges)


def _reference(rng: random.Random, case: int) -> tuple[str, str, list[str], list[tuple[int, int]]]:
    """(kind, text, task texts, edges) of a case's reference."""
    n = rng.randint(1, 20)
    shape = rng.choices(("chain", "parallel", "repeated", "dag"), (35, 25, 5, 35))[0]
    texts = [f"Step {i} of case {case}: handle part {i}" for i in range(n)]
    if shape == "repeated":  # one step done two or three times, as in wikihow's "go to toilet"
        for i in rng.sample(range(n), min(n, rng.randint(2, 3))):
            texts[i] = "Check the result again"
    if shape == "parallel":
        edges = [(0, i) for i in range(1, n + 1)] + [(i, n + 1) for i in range(1, n + 1)]
    elif shape == "dag":
        edges = [(0, 1)] + [(rng.randint(1, j - 1), j) for j in range(2, n + 1)]
        edges += [(i, n + 1) for i in range(1, n + 1) if all(a != i for a, _ in edges)]
    else:
        edges = [(i, i + 1) for i in range(n + 1)]
    kind = "taskbench" if rng.random() < 0.2 else "worfbench"
    return kind, shape, texts, edges


def _taskbench(texts: list[str], edges: list[tuple[int, int]], case: int) -> dict[str, object]:
    tools = [TOOLS[(case + i) % len(TOOLS)] for i in range(len(texts))]
    end = len(texts) + 1
    nodes = [
        {"task": tools[i], "arguments": [{"name": "input", "value": texts[i]}]}
        for i in range(len(texts))
    ]
    links = [
        {"source": tools[a - 1], "target": tools[b - 1]} for a, b in edges if a > 0 and b < end
    ]
    return {"task_nodes": nodes, "task_links": links}


def _answer(
    rng: random.Random, texts: list[str], edges: list[tuple[int, int]]
) -> tuple[list[str], list[tuple[int, int]]] | None:
    u = rng.random()
    texts, edges = list(texts), list(edges)
    end = len(texts) + 1
    if u < 0.05:
        return None  # prose: unparseable
    if u < 0.3 and len(texts) > 1:  # drop the last task
        last = len(texts)
        texts.pop()
        edges = [(a, b if b != end else last) for a, b in edges if a != last and b != last]
        edges += [(i, last) for i in range(1, last) if all(a != i for a, _ in edges)]
    elif u < 0.5:
        texts[rng.randrange(len(texts))] += " carefully"
    elif u < 0.65:  # repeat a task at the end
        edges = [(a, b if b != end else end + 1) for a, b in edges] + [(0, end), (end, end + 1)]
        texts.append(texts[rng.randrange(len(texts))])
    elif u < 0.8:
        rng.shuffle(texts)
    return texts, edges


def make_run(run_dir: Path, cases: int, models: int, samples: int, seed: int) -> None:
    """Write results.jsonl, run.json and each case's reference (references.json)."""
    from harness.run import ResultRow, RunManifest

    rng = random.Random(seed)
    run_dir.mkdir(parents=True)
    references: dict[str, object] = {}
    rows = 0
    with (run_dir / "results.jsonl").open("w", encoding="utf-8") as f:
        for c in range(cases):
            kind, shape, texts, edges = _reference(rng, c)
            case = f"case-{c:04d}"
            references[case] = (
                _taskbench(texts, edges, c) if kind == "taskbench" else _workflow(texts, edges)
            )
            for m in range(models):
                for k in range(samples):
                    got = _answer(rng, texts, edges)
                    if got is None:
                        answer = "I could not make a plan for this."
                    elif kind == "taskbench":
                        answer = json.dumps(_taskbench(*got, c))
                    else:
                        answer = _workflow(*got)
                    plan = {
                        "tasks": [
                            {"id": f"t{i}", "description": t, "depends_on": []}
                            for i, t in enumerate((got or ([], []))[0])
                        ]
                    }
                    row = ResultRow(
                        suite="metrics-bench",
                        case=case,
                        model=f"model-{m}",
                        sample=k,
                        status="pass" if got is not None else "unparseable",
                        tags=[kind, shape],
                        task_count=len(plan["tasks"]) if got is not None else None,
                        plan=plan if got is not None else None,
                        answer=answer,
                    )
                    f.write(json.dumps(row.to_dict()) + "\n")
                    rows += 1
    manifest = RunManifest(
        run_id="bench",
        suite="metrics-bench",
        suite_path="evals/metrics-bench.yaml",
        prompt_hash="sha256:" + "0" * 64,
        models=[{"id": f"model-{m}"} for m in range(models)],
        samples=samples,
        record_mode="none",
        harness_version="bench",
        git_commit=None,
        started_at="2026-01-01T00:00:00Z",
        finished_at="2026-01-01T00:01:00Z",
        counts={"rows": rows},
    )
    (run_dir / "run.json").write_text(json.dumps(manifest.to_dict()), encoding="utf-8")
    (run_dir / "references.json").write_text(json.dumps(references), encoding="utf-8")


LOAD = """\
import sys
from harness.report import load_run
load_run(sys.argv[1])
"""
"""The floor: load the run, nothing else."""

SCORE = """\
import gc, json, math, sys, time
from harness.metrics import Reference, ToolCatalogue, score_plan
from harness.report import load_run

run_dir, stats, remember, tools = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]


class CollectorClock:
    # CPU time in Python's cyclic garbage collector (gc.callbacks): a full collection's pause
    # lands on whichever plan allocates at that moment, so it is counted apart.
    def __init__(self):
        self.total = self.longest = self.started = 0.0
        gc.callbacks.append(self.tick)

    def tick(self, phase, info):
        if phase == "start":
            self.started = time.process_time()
        else:
            spent = time.process_time() - self.started
            self.total += spent
            self.longest = max(self.longest, spent)


run = load_run(run_dir)
with open(f"{run_dir}/references.json", encoding="utf-8") as fh:
    references = json.load(fh)
catalogue = ToolCatalogue(tools)
collector = CollectorClock()
times = []
read = {}
for index, row in enumerate(run.rows):
    c0, g0 = time.process_time(), collector.total
    reference = read.get(row["case"])
    if reference is None:  # as harness.run.metric_columns: once per case
        reference = read[row["case"]] = Reference.read(references[row["case"]], remember=remember)
    score_plan(row["answer"], reference, catalogue=catalogue)
    spent = time.process_time() - c0
    times.append((spent - (collector.total - g0), spent, index))
texts = "".join(f"{i}: Check the result again\\n" for i in range(1, 21))
edges = " ".join(f"({a},{b})" for a, b in zip(["START", *range(1, 21)], [*range(1, 21), "END"]))
worst = f"Node:\\n{texts}Edge: {edges}"
c0, g0 = time.process_time(), collector.total
score_plan(worst, worst)
worst_known = time.process_time() - c0 - (collector.total - g0)


def label(index):
    row = run.rows[index]
    return f"{row['case']} {'/'.join(row['tags'])}, {row['task_count']} tasks"


own = sorted(t[0] for t in times)
slowest, paused = max(times), max(times, key=lambda t: t[1])
figures = {
    "rows": len(times),
    "distinct": len({(row["case"], row["answer"]) for row in run.rows}),
    "p50": own[len(own) // 2],
    "p99": own[math.ceil(0.99 * len(own)) - 1],
    "slowest": [slowest[0], label(slowest[2])],
    "slowest_with_collector": [paused[1], label(paused[2])],
    "collector_cpu": collector.total,
    "collector_longest": collector.longest,
    "worst_known": worst_known,
}
with open(stats, "a", encoding="utf-8") as fh:
    fh.write(json.dumps(figures) + "\\n")
"""
"""The command: load the run as the floor does, then score every row; appends its per-plan
figures (one JSON line) to the stats file."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--models", type=int, default=4)
    parser.add_argument("--samples", type=int, default=5)
    add_pairs_option(parser)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument(
        "--remember",
        type=int,
        default=64,
        help="distinct answers each reference remembers the score of (0: score every row)",
    )
    parser.add_argument("--as-is", action="store_true", help="see benchmarks/_installed_env.py")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-metrics-") as folder:
        root = Path(folder)
        run_dir = root / "run"
        make_run(run_dir, args.cases, args.models, args.samples, args.seed)
        stats = root / "stats.jsonl"
        env = installed_env(root / "pycache", as_is=args.as_is)
        command = [sys.executable, "-c", SCORE, str(run_dir), str(stats), str(args.remember)]
        result = paired(
            "score every row (load + score / load)",
            [*command, *TOOLS],
            [sys.executable, "-c", LOAD, str(run_dir)],
            target=10.0,
            pairs=args.pairs,
            env=env,
        )
        rounds = [json.loads(line) for line in stats.read_text(encoding="utf-8").splitlines()]
    result.print()
    timed = rounds[1:]  # the first line is the unmeasured warm-up's
    ms = 1000.0
    middle = sorted(timed, key=lambda r: r["p50"])[len(timed) // 2]
    slowest = max((r["slowest"] for r in timed), key=lambda t: t[0])
    with_collector = max((r["slowest_with_collector"] for r in timed), key=lambda t: t[0])
    pause = max(r["collector_longest"] for r in timed)
    worst_known = max(r["worst_known"] for r in timed)
    print(
        f"  rows scored {middle['rows']:,} per run; {middle['distinct']:,} distinct (case, "
        f"answer) pairs; each reference remembers {args.remember} scores"
    )
    print(
        f"  per plan (median run): p50 {ms * middle['p50']:.3f} ms, p99 {ms * middle['p99']:.3f} "
        f"ms CPU; collector {statistics.median(r['collector_cpu'] for r in timed):.3f} s CPU"
    )
    print(
        f"  slowest plan over {len(timed)} runs: {ms * slowest[0]:.1f} ms CPU of its own "
        f"({slowest[1]}); with collector pauses {ms * with_collector[0]:.1f} ms "
        f"({with_collector[1]}; longest pause {ms * pause:.1f} ms)"
    )
    print(f"  worst case known: {ms * worst_known:.1f} ms CPU (20 tasks of one text vs itself)")
    plans_ok = slowest[0] <= 0.05 and worst_known <= 0.05
    print(f"  target   no plan over 50 ms of its own: {'met' if plans_ok else 'MISSED'}")
    return 0 if plans_ok and result.target_verdict != "MISSED" else 1


if __name__ == "__main__":
    sys.exit(main())
