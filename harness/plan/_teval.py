"""T-Eval plans: the planning answers of T-Eval (open-compass/T-Eval).

JSON type (``prompt_type: json``): a list ``[{"id": 0, "name": "Tool.api", "args": {...},
"prev": [ids]}]``; ``PlanningEvaluator.format_load`` slices the answer from its first ``[`` to
its last ``]`` (after a ``json`` fence), reads it with ``ast.literal_eval`` then ``json.loads``,
and needs ``name``, an integer ``id`` and ``args`` in every item, or the answer counts as
unparseable. ``prev`` lists the ids that must run first (the gold plans have it; the evaluator
compares it by permutation). A task's id is ``id``, its tool ``name``, its arguments ``args``.

ReWOO type (``prompt_type: ReWOO``): ``Plan N: ...``, ``Dependency N: [1, 2]`` and
``Action N: #E<N> = Tool.api(args)`` lines, read only when the three kinds are equally many;
action N is task ``N - 1`` (the evaluator counts from 0) and depends on ``k - 1`` for each
number k in its ``Dependency`` line.
"""

from __future__ import annotations

import re
from typing import Any

from harness._errors import PlanLoadError
from harness.plan._references import cited_value

__all__ = ["looks_like_teval", "looks_like_teval_rewoo", "teval_rewoo_to_dict", "teval_to_dict"]

_PLAN = re.compile(r"(Plan [0-9]+: .+)")
_DEPENDENCY = re.compile(r"(Dependency [0-9]+: .+)")
_ACTION = re.compile(r"Action [0-9]+: (.+)")
_RETURNED = re.compile(r"#E[0-9]+ = (.+?)\((.*)\)")
_CALL = re.compile(r"(.+?)\((.*)\)")


def looks_like_teval(value: Any) -> bool:
    """A non-empty list of objects that all have ``id``, ``name`` and ``args``."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(t, dict) and {"id", "name", "args"} <= t.keys() for t in value)
    )


def looks_like_teval_rewoo(text: str) -> bool:
    """True when the text has ``Dependency N:`` and ``Action N:`` lines."""
    return _DEPENDENCY.search(text) is not None and _ACTION.search(text) is not None


def teval_to_dict(value: Any, *, source: str) -> dict[str, Any]:
    """A T-Eval JSON plan as a canonical plan.

    Raises:
        PlanLoadError: an item without a string ``name`` or an integer ``id`` (T-Eval's
            ``format_load`` rejects the whole answer then).
    """
    if not isinstance(value, list):
        raise PlanLoadError(
            "a T-Eval plan is a JSON list of actions",
            source=source,
            location="/",
            hint='expected [{"id": 0, "name": "Tool.api", "args": {...}, "prev": []}]',
        )
    tasks = []
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            raise PlanLoadError(
                "a T-Eval action must be an object", source=source, location=f"/{index}"
            )
        task_id = item.get("id")
        if isinstance(task_id, bool) or not isinstance(task_id, int):
            raise PlanLoadError(
                f"a T-Eval action's 'id' must be an integer, got {task_id!r}",
                source=source,
                location=f"/{index}/id",
            )
        name = item.get("name")
        if not isinstance(name, str):
            raise PlanLoadError(
                "a T-Eval action's 'name' must be a string",
                source=source,
                location=f"/{index}/name",
            )
        prev = item.get("prev", [])
        deps = prev if isinstance(prev, list) else [prev]
        task: dict[str, Any] = {
            "id": str(task_id),
            "description": name,
            "capabilities": [name] if name else [],
            "depends_on": [str(d) for d in deps if isinstance(d, int) and not isinstance(d, bool)],
        }
        args = item.get("args")
        if isinstance(args, dict):
            task["arguments"] = args
        elif args not in (None, "", {}):
            task["arguments_text"] = args
        bad = [d for d in deps if isinstance(d, bool) or not isinstance(d, int)]
        if bad:
            task["prev_unread"] = bad
        task.update({k: v for k, v in item.items() if k not in ("id", "name", "args", "prev")})
        tasks.append(task)
    return {"tasks": tasks}


def teval_rewoo_to_dict(text: str, *, source: str) -> dict[str, Any]:
    """A T-Eval ReWOO-type answer as a canonical plan.

    Raises:
        PlanLoadError: Plan, Dependency and Action lines are not equally many (T-Eval counts
            the answer as unparseable).
    """
    plans, dependencies, actions = (p.findall(text) for p in (_PLAN, _DEPENDENCY, _ACTION))
    if not (len(plans) == len(dependencies) == len(actions)):
        raise PlanLoadError(
            f"{len(plans)} Plan, {len(dependencies)} Dependency and {len(actions)} Action lines: "
            "T-Eval reads a ReWOO-type plan only when they are equally many",
            source=source,
            hint="write one 'Plan N:', 'Dependency N:' and 'Action N:' line per step",
        )
    tasks = []
    for i, action in enumerate(actions):
        call = (_RETURNED if action.startswith("#") else _CALL).search(action)
        name = call.group(1) if call else ""
        numbers = re.findall(r"([0-9]+)", dependencies[i].split(":", 1)[1])
        deps = sorted({int(n) - 1 for n in numbers})
        task: dict[str, Any] = {
            "id": str(i),
            "description": plans[i].split(":", 1)[1].strip(),
            "capabilities": [name] if name else [],
            "depends_on": [str(d) for d in deps],
        }
        if call and call.group(2).strip():
            task["arguments"] = _keyword_arguments(call.group(2))
        tasks.append(task)
    return {"tasks": tasks}


_KEYWORD = re.compile(r"""\s*(\w+)\s*=\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^,]*)\s*(?:,|$)""")
_EVIDENCE = re.compile(r"#E(\d+)")


def _keyword_arguments(text: str) -> dict[str, Any]:
    """``name="Titanic", movie_id=#E1`` as arguments; ``#E<k>`` cites action k (task k-1)."""
    arguments: dict[str, Any] = {}
    for match in _KEYWORD.finditer(text):
        if not match.group(0).strip():
            continue
        raw = match.group(2).strip()
        if raw[:1] in ("'", '"') and raw[-1:] == raw[:1] and len(raw) > 1:
            raw = raw[1:-1]
        arguments[match.group(1)] = cited_value(raw, _EVIDENCE, lambda ref: str(int(ref[2:]) - 1))
    return arguments or {"text": text}
