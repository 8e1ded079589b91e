"""Checking a big JSON Lines file of TaskBench plans, against the bare ``json.loads`` floor.

Writes a file of N TaskBench records (default 100,000; 5 nodes each, resource style: string
arguments citing ``<node-k>``, ``task_links`` naming tools, nodes listed alphabetically as in
TaskBench's gold data, one record in ten calling a tool twice), then measures, as whole
processes in alternating pairs (``benchmarks/_paired.py``):

- floor: a fresh interpreter that ``json.loads`` every line of the file and keeps nothing;
- ``planeval check FILE --format F`` for every output format (text, json), its output written
  to a file as a user's redirect would.

Targets: CPU within 3x of the floor, peak memory within 64 MiB of the floor's.
Run: ``python benchmarks/bench_formats.py [--records N] [--pairs P] [--as-is]``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from _installed_env import installed_env
from _paired import MIB, add_pairs_option, loads_loop, paired

TOOLS = [f"Tool {chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(40)]
OUTPUT_FORMATS = ("text", "json")


def record(index: int, rng: random.Random) -> dict[str, Any]:
    """One 5-node TaskBench record: a random DAG over the nodes, each edge cited and linked."""
    tools = rng.sample(TOOLS, 5)
    if index % 10 == 0:
        tools[4] = tools[0]  # the same tool twice, as in real plans
    order = sorted(range(5), key=lambda k: tools[k])  # TaskBench lists nodes alphabetically
    position = {node: k for k, node in enumerate(order)}
    edges = [(rng.randrange(v), v) for v in range(1, 5)]
    edges += [(u, v) for u in range(5) for v in range(u + 2, 5) if rng.random() < 0.1]
    nodes = []
    for node in order:
        args = [f"<node-{position[u]}>" for u, v in edges if v == node] or ["example.jpg"]
        nodes.append({"task": tools[node], "arguments": args})
    links = [{"source": tools[u], "target": tools[v]} for u, v in edges]
    return {"id": str(10_000_000 + index), "task_nodes": nodes, "task_links": links, "type": "dag"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    add_pairs_option(parser)
    parser.add_argument("--as-is", action="store_true", help="see benchmarks/_installed_env.py")
    args = parser.parse_args()
    rng = random.Random(9)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        path = root / "data.json"
        with path.open("w", encoding="utf-8") as fh:
            for index in range(args.records):
                fh.write(json.dumps(record(index, rng)) + "\n")
        size = path.stat().st_size
        env = installed_env(root / "pycache", as_is=args.as_is)
        print(f"{args.records:,} TaskBench records (5 nodes each), {size / 1e6:.1f} MB JSON Lines")
        floor = loads_loop(path)
        for output in OUTPUT_FORMATS:
            command = [sys.executable, "-m", "harness", "check", str(path), "--format", output]
            result = paired(
                f"planeval check --format {output}",
                command,
                floor,
                target=3.0,
                pairs=args.pairs,
                env=env,
                stdout=root / f"out.{output}",
                ok_codes=(0, 1),
                memory_target=64 * MIB,
            )
            result.print()
            lines = (root / f"out.{output}").read_bytes().count(b"\n")
            print(f"  output: {lines:,} lines")


if __name__ == "__main__":
    main()
