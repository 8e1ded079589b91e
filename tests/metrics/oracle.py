"""Expected metric values computed independently from the published formulas (handwritten).

WorfBench (node_eval.py, evaluator/graph_evaluator.py): the whole graph built for networkx's
``max_weight_matching`` every time, every topological order listed before the first 20 are kept,
the counted sequence as a patience-sorting LIS, components from networkx. TaskBench
(taskbench/evaluate.py): the label vectors of its ``flatten`` handed to scikit-learn's
``precision_recall_fscore_support``, the edit distance from an indel dynamic programme.
"""

from __future__ import annotations

import bisect
import re
import warnings
from typing import Any

import networkx as nx

from harness.metrics import normalize_text

_NODE = re.compile(r"\d+[:.] (.+)")
_EDGE = re.compile(r"\(\s*(\d+|START)\s*,\s*(\d+|END)\s*\)")


def worf_graph(text: str) -> dict[str, Any] | None:
    if "Node" not in text:
        return None
    nodes = ["START", *[m.strip() for m in _NODE.findall(text)], "END"]
    pairs = _EDGE.findall(text)
    if not pairs:
        return None
    edges = [
        (0 if a == "START" else int(a), len(nodes) - 1 if b == "END" else int(b)) for a, b in pairs
    ]
    return {"nodes": nodes, "edges": edges}


def _match(pred: list[str], gold: list[str]) -> dict[int, int]:
    graph = nx.Graph()
    for i, p in enumerate(pred):
        for j, g in enumerate(gold):
            if normalize_text(p) == normalize_text(g):  # similarity 1.0 > 0.6
                graph.add_edge(i, str(j), weight=1.0)
    out = {}
    for a, b in nx.max_weight_matching(graph):
        i, j = (a, b) if isinstance(a, int) else (b, a)
        out[i] = int(j)
    return out


def f1_chain(pred: dict[str, Any], gold: dict[str, Any]) -> tuple[float, float, float]:
    if len(gold["nodes"]) >= 10:
        orders = [gold["nodes"]]
    else:
        g = nx.DiGraph()
        g.add_nodes_from(range(len(gold["nodes"])))
        g.add_edges_from(gold["edges"])
        orders = [
            [gold["nodes"][i] for i in order if gold["nodes"][i] not in ("START", "END")]
            for order in list(nx.all_topological_sorts(g))[:20]
        ]
    tasks = [n for n in pred["nodes"] if n not in ("START", "END")]
    best = (0.0, 0.0, 0.0)
    for order in orders:
        mapping = _match(tasks, order)
        tails: list[int] = []
        for i in range(len(tasks)):
            if i in mapping:
                k = bisect.bisect_left(tails, mapping[i])
                tails[k : k + 1] = [mapping[i]]
        correct = max(1, len(tails))
        p, r = correct / len(tasks), correct / len(order)
        if 2 * p * r / (p + r) > best[2]:
            best = (p, r, 2 * p * r / (p + r))
    return best


def f1_graph(pred: dict[str, Any], gold: dict[str, Any]) -> tuple[float, float, float]:
    mapping = _match(pred["nodes"], gold["nodes"])
    mp, mg = list(mapping), list(mapping.values())
    gold_edges = [e for e in gold["edges"] if e[0] in mg and e[1] in mg]
    public = [e for e in pred["edges"] if e[0] in mp and e[1] in mp and e in gold_edges]

    def largest(nodes: list[int]) -> int:
        g = nx.Graph()
        g.add_nodes_from(nodes)
        g.add_edges_from(public)
        return max(len(c) for c in nx.connected_components(g))

    p, r = largest(mp) / len(pred["nodes"]), largest(mg) / len(gold["nodes"])
    return p, r, 2 * p * r / (p + r)


# -- TaskBench ----------------------------------------------------------------------------------
def _content(text: str) -> str:
    text = text.strip("'")
    kinds = {
        "image": "jpg png jpeg gif bmp tiff svg ico",
        "audio": "mp3 wav wma ogg aac flac aiff au",
        "video": "mp4 avi mov flv wmv mkv webm m4v mpg mpeg",
    }
    for kind, exts in kinds.items():
        if any("." + e in text for e in exts.split()):
            return kind
    return "text"


def task_sets(
    record: dict[str, Any], mode: str, out_types: dict[str, str], previous: list[Any]
) -> dict[str, Any]:
    """Names (sequence), links, task-argname and task-argname-value lists of one record. A
    ``<node-k>`` out of range repeats ``previous`` (the script's stale ``new_argument``, carried
    from the gold into the prediction of the same sample)."""
    raw = [n["task"] for n in record["task_nodes"]]
    names = [n.replace("_", " ") for n in raw] if mode == "resource" else raw
    links, arg_names, arg_values = [], [], []
    for k, node in enumerate(record["task_nodes"]):
        for arg in node.get("arguments", []):
            if mode == "temporal":
                name, value = arg["name"], arg["value"]
            else:
                if isinstance(arg, dict):
                    arg = next(iter(arg.values()))
                if isinstance(arg, list):
                    arg = " ".join(arg)
                found = re.search(r"<node-", arg)
                if found:
                    ref = int(arg[found.end() : arg.index(">")])
                    if ref == k:
                        continue
                    if ref >= len(names):
                        name, value = previous[0]
                    else:
                        links.append((names[ref], raw[k]))
                        name, value = out_types.get(names[ref], "other"), names[ref]
                else:
                    name, value = _content(arg), arg
                previous[:] = [(name, value)]
            arg_names.append(f"{names[k]}-{name}")
            arg_values.append(f"{names[k]}-{name}-{value}")
    if mode == "temporal":
        links = [(x["source"], x["target"]) for x in record["task_links"]]
    return {"names": names, "links": links, "arg_names": arg_names, "arg_values": arg_values}


def _flatten(golds: list[list[Any]], preds: list[list[Any]], types: list[str] | None = None):
    g_flat, p_flat = [], []
    for gold, pred in zip(golds, preds, strict=True):
        for s in set(gold) | set(pred):
            if types is not None and s not in types:
                g_flat.append(0)
                p_flat.append(0)
                continue
            label = types.index(s) + 1 if types is not None else 1
            g_flat.append(label if s in gold else 0)
            p_flat.append(label if s in pred else 0)
    return g_flat, p_flat


def _indel_ratio(a: list[int], b: list[int]) -> float:
    if not a and not b:
        return 1.0
    d = [[i + j if i == 0 or j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            sub = 0 if a[i - 1] == b[j - 1] else 2
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + sub)
    return 1 - d[-1][-1] / (len(a) + len(b))


def taskbench_figures(
    pairs: list[tuple[dict[str, Any], dict[str, Any]]],
    tools: list[str],
    mode: str,
    out_types: dict[str, str],
) -> dict[str, float]:
    """(gold, prediction) records -> the figures evaluate.py logs, via scikit-learn."""
    from sklearn.metrics import precision_recall_fscore_support as prfs

    gold, pred = [], []
    for g, p in pairs:
        previous: list[Any] = []
        gold.append(task_sets(g, mode, out_types, previous))
        pred.append(task_sets(p, mode, out_types, previous))
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gf, pf = _flatten([g["names"] for g in gold], [p["names"] for p in pred], tools)
        labels = list(range(1, len(tools) + 1))
        for avg in ("micro", "macro"):
            p, r, f, _ = prfs(gf, pf, labels=labels, average=avg)
            out |= {
                f"node_{avg}_precision_no_matching": p,
                f"node_{avg}_recall_no_matching": r,
                f"node_{avg}_f1_no_matching": f,
            }
        for key, name in (
            ("arg_names", "argument_task_argname_binary_f1_no_matching"),
            ("arg_values", "argument_task_argname_value_binary_f1_no_matching"),
            ("links", "link_binary_f1"),
        ):
            gf, pf = _flatten([g[key] for g in gold], [p[key] for p in pred])
            if gf:
                out[name] = prfs(gf, pf, average="binary")[2]
    number = {t: i + 1 for i, t in enumerate(tools)}
    ratios = [
        _indel_ratio([number.get(n, 0) for n in p["names"]], [number.get(n, 0) for n in g["names"]])
        for g, p in zip(gold, pred, strict=True)
    ]
    out["edit_distance"] = 1 - sum(ratios) / len(ratios)
    return out
