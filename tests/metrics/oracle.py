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


def _binary_f1(gold_flat: list[int], pred_flat: list[int]) -> float:
    """scikit-learn's binary F1 as the script's pinned 1.0.2 gives it: empty label vectors
    (no link, no argument in any sample) give 0.0 (scikit-learn 1.8 raises instead)."""
    from sklearn.metrics import precision_recall_fscore_support as prfs

    if not gold_flat:
        return 0.0
    return float(prfs(gold_flat, pred_flat, average="binary", zero_division=0)[2])


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
            out[name] = _binary_f1(gf, pf)
    number = {t: i + 1 for i, t in enumerate(tools)}
    ratios = [
        _indel_ratio([number.get(n, 0) for n in p["names"]], [number.get(n, 0) for n in g["names"]])
        for g, p in zip(gold, pred, strict=True)
    ]
    out["edit_distance"] = 1 - sum(ratios) / len(ratios)
    return out


# -- TaskBench, a whole predictions file ---------------------------------------------------------
class _Dropped(Exception):
    """The script's "Parsing Error": the sample is ignored."""


def _official_arguments(
    nodes: list[Any],
    names: list[str],
    raw: list[Any],
    gold_side: bool,
    out_types: dict[str, str],
    carry: list[Any],
) -> tuple[list[tuple[str, str]], list[list[dict[str, Any]]]]:
    """Resource mode, one side of a sample: each node's arguments walked as the script walks
    them (``for argument in node's arguments``: a list by items, an object by keys, text by
    characters), converted to ``{name, value}``; one that cannot be converted repeats
    ``carry`` (the script's last ``new_argument``); with nothing to repeat the sample drops."""
    links: list[tuple[str, str]] = []
    converted: list[list[dict[str, Any]]] = []
    for k, node in enumerate(nodes):
        given = node["arguments"] if gold_side else node.get("arguments", [])
        items = list(given)  # a number or null: TypeError, the sample drops
        out = []
        for argument in items:
            try:
                if isinstance(argument, dict):
                    argument = list(argument.values())[0]  # noqa: RUF015 (its IndexError)
                if isinstance(argument, list):
                    argument = " ".join(argument)
                cites = (
                    "<node-" in argument
                    if gold_side
                    else (isinstance(argument, str) and "<node-" in argument)
                )
                if cites:
                    start = argument.index("<node-") + len("<node-")
                    ref = int(argument[start : argument.index(">")])
                    if ref == k:
                        continue
                    source = names[ref]
                    links.append((source, raw[k]))
                    carry[:] = [{"name": out_types.get(source, "other"), "value": source}]
                else:
                    carry[:] = [{"name": _content(argument), "value": argument}]
            except Exception:
                pass
            if not carry:
                raise _Dropped("no argument to repeat")
            out.append(carry[0])
        converted.append(out)
    return links, converted


def _official_sample(
    gold: dict[str, Any], prediction: dict[str, Any], mode: str, out_types: dict[str, str]
) -> dict[str, Any] | None:
    """What one matched id adds (names, links, argument strings), or None when the script
    drops it. The script carries its last converted argument across samples too (in set
    order, which for string ids changes with the hash seed); here it starts empty per sample,
    as planeval does."""
    try:
        plan = prediction.get("result") if isinstance(prediction.get("result"), dict) else None
        if plan is None or "task_nodes" not in plan:
            plan = prediction  # GNN4TaskPlan writes the plan at the top of the line
        g_nodes, p_nodes = gold["task_nodes"], plan["task_nodes"]
        g_raw = [n["task"] for n in g_nodes]
        p_raw = [n["task"] for n in p_nodes]
        if mode == "resource":
            g_names = [x.replace("_", " ") for x in g_raw]
            p_names = [x.replace("_", " ") for x in p_raw]
            carry: list[Any] = []
            g_links, g_args = _official_arguments(g_nodes, g_names, g_raw, True, out_types, carry)
            p_links, p_args = _official_arguments(p_nodes, p_names, p_raw, False, out_types, carry)
        else:
            g_names, p_names = g_raw, p_raw
            p_link_list, g_link_list = plan["task_links"], gold["task_links"]
            g_args = [n["arguments"] for n in g_nodes]
            p_args = [n.get("arguments", []) for n in p_nodes]
            # (the script builds the link pairs outside its try: a bad link crashes it)
            g_links = [(x["source"], x["target"]) for x in g_link_list]
            p_links = [(x["source"], x["target"]) for x in p_link_list]
        sides = {}
        for side, names, args in (("gold", g_names, g_args), ("pred", p_names, p_args)):
            sides[side] = (
                [f"{t}-{a['name']}" for t, per in zip(names, args, strict=False) for a in per],
                [
                    f"{t}-{a['name']}-{a['value']}"
                    for t, per in zip(names, args, strict=False)
                    for a in per
                ],
            )
        for name in p_names:
            assert isinstance(name, str)
    except Exception:
        return None
    return {
        "names": (g_names, p_names),
        "links": (g_links, p_links),
        "arg_names": (sides["gold"][0], sides["pred"][0]),
        "arg_values": (sides["gold"][1], sides["pred"][1]),
    }


OFFICIAL_GROUPS = [
    ("overall", "overall"),
    *((s, "overall") for s in ("single", "chain", "dag")),
    *(("overall", str(n)) for n in range(1, 11)),
]


def official_file_figures(
    predictions: list[dict[str, Any]],
    gold: list[dict[str, Any]],
    tool_desc: dict[str, Any],
    mode: str,
) -> dict[str, dict[str, Any]]:
    """``evaluate.py --splits all --n_tools all --mode add -m f1 -m ed -m link -m argument``
    over prediction and gold records: ``{group: figures}`` as the script writes them, with the
    scikit-learn calls the script makes (empty binary vectors give 0.0, as in its pinned
    1.0.2)."""
    from sklearn.metrics import precision_recall_fscore_support as prfs

    tools = [t["id"] for t in tool_desc["nodes"]]
    number = {t: i + 1 for i, t in enumerate(tools)}
    out_types = {
        t["id"]: (t["output-type"][0] if t.get("output-type") else "none")
        for t in tool_desc["nodes"]
    }
    by_id = {p["id"]: p for p in predictions}
    result: dict[str, dict[str, Any]] = {}
    for split, n_tools in OFFICIAL_GROUPS:
        labels = {
            g["id"]: g
            for g in gold
            if (split == "overall" or g["type"] == split)
            and (n_tools == "overall" or str(len(g["task_nodes"])) == n_tools)
        }
        ids = [i for i in labels if i in by_id]
        kept = [
            s
            for s in (_official_sample(labels[i], by_id[i], mode, out_types) for i in ids)
            if s is not None
        ]
        figures: dict[str, Any] = {
            "all_samples": len(ids),
            "step_supports": 0,
            "node_supports": len(kept),
            "link_supports": len(kept),
            "argument_supports": len(kept),
        }
        result[f"{split}_{n_tools}"] = figures
        if not kept:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gf, pf = _flatten([s["names"][0] for s in kept], [s["names"][1] for s in kept], tools)
            codes = list(range(1, len(tools) + 1))
            per_type = prfs(gf, pf, labels=codes, average=None)
            for avg in ("micro", "macro"):
                p, r, f, _ = prfs(gf, pf, labels=codes, average=avg)
                figures[f"node_{avg}_precision_no_matching"] = float(p)
                figures[f"node_{avg}_recall_no_matching"] = float(r)
                figures[f"node_{avg}_f1_no_matching"] = float(f)
            figures["node_per_type_no_matchcing"] = {
                tool: {
                    "precision": float(per_type[0][i]),
                    "recall": float(per_type[1][i]),
                    "f1-score": float(per_type[2][i]),
                    "support": int(per_type[3][i]),
                }
                for i, tool in enumerate(tools)
            }
            for key, name in (
                ("arg_names", "argument_task_argname_binary_f1_no_matching"),
                ("arg_values", "argument_task_argname_value_binary_f1_no_matching"),
            ):
                gf, pf = _flatten([s[key][0] for s in kept], [s[key][1] for s in kept])
                figures[name] = _binary_f1(gf, pf)
            ratios = [
                _indel_ratio(
                    [number.get(n, 0) for n in s["names"][1]],
                    [number.get(n, 0) for n in s["names"][0]],
                )
                for s in kept
            ]
            figures["edit_distance"] = 1 - sum(ratios) / len(ratios)
            gf, pf = _flatten([s["links"][0] for s in kept], [s["links"][1] for s in kept])
            figures["link_binary_f1"] = _binary_f1(gf, pf)
    return result
