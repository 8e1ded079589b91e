"""Inspect AI task: the hand-written check's two properties on the recorded WorfBench answers.

Each sample's input is one recorded answer (``samples.jsonl`` beside the config, written by
``benchmarks/peers/run_frameworks.py``); the solver makes it the model's output without calling
a model, and the scorer checks that the workflow is acyclic and that no edge names an undefined
node, with networkx as the hand-written check does. Run with ``--model mockllm/model`` (never
called).
"""

from __future__ import annotations

import os
import re

import networkx as nx
from inspect_ai import Task, task
from inspect_ai.dataset import json_dataset
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
from inspect_ai.solver import Generate, TaskState, solver

NODE = re.compile(r"^\s*(\d+)\s*:", re.MULTILINE)
EDGE = re.compile(r"\(\s*(\w+)\s*,\s*(\w+)\s*\)")


@solver
def recorded_answer():  # type: ignore[no-untyped-def]
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.output = ModelOutput.from_content("recorded", state.input_text)
        return state

    return solve


@scorer(metrics=[accuracy()])
def structure():  # type: ignore[no-untyped-def]
    async def score(state: TaskState, target: Target) -> Score:
        text = state.output.completion
        nodes = set(NODE.findall(text)) | {"START", "END"}
        edges = EDGE.findall(text.split("Edge:", 1)[-1]) if "Edge:" in text else []
        dangling = [e for e in edges if e[0] not in nodes or e[1] not in nodes]
        graph = nx.DiGraph()
        graph.add_nodes_from(nodes)
        graph.add_edges_from(edges)
        ok = not dangling and nx.is_directed_acyclic_graph(graph)
        return Score(value=CORRECT if ok else INCORRECT)

    return score


@task
def worfbench_structure() -> Task:
    samples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "samples.jsonl")
    return Task(
        dataset=json_dataset(os.environ.get("PEER_SAMPLES", samples)),
        solver=recorded_answer(),
        scorer=structure(),
    )
