"""The hand-written check a researcher would write instead of planeval: pytest + networkx.

Reads every recorded WorfBench answer under ``$PLANS_DIR`` (planeval's response files,
``plan_fixtures/<suite>/<model>/<case>/sample-0.json``), parses its ``Node:`` lines and
``Edge: (a,b)`` pairs with two regular expressions, and checks two properties with networkx:
the graph is acyclic, and no edge names a node the plan does not define (a dangling
dependency). One test per file, as such a script would parametrize it. This is the peer of
``planeval run`` in ``benchmarks/peers/run_peers.py``; it checks two things where planeval
runs all of its checks and metrics.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import networkx as nx
import pytest

NODE = re.compile(r"^\s*(\d+)\s*:", re.MULTILINE)
EDGE = re.compile(r"\(\s*(\w+)\s*,\s*(\w+)\s*\)")
FILES = sorted(Path(os.environ.get("PLANS_DIR", "plan_fixtures")).rglob("sample-0.json"))


@pytest.mark.parametrize(
    "path", FILES, ids=[f"{p.parent.parent.name}/{p.parent.name}" for p in FILES]
)
def test_plan(path: Path) -> None:
    text = json.loads(path.read_text(encoding="utf-8"))["response"]
    nodes = set(NODE.findall(text)) | {"START", "END"}
    edges = EDGE.findall(text.split("Edge:", 1)[-1]) if "Edge:" in text else []
    graph = nx.DiGraph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(edges)
    dangling = [e for e in edges if e[0] not in nodes or e[1] not in nodes]
    assert not dangling, f"edges naming undefined nodes: {dangling}"
    assert nx.is_directed_acyclic_graph(graph), "the workflow has a cycle"
