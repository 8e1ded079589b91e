"""ReWOO plans: ``Plan:`` lines and ``#E<n> = Tool[input]`` evidence assignments.

Read as ReWOO's own planner-output parser reads them (billxbf/ReWOO at
9cd0283043ff4be0c9d614fda2789d143ca6ffd1, ``algos/PWS.py``; LangGraph's ReWOO tutorial reads
the same form with ``Plan:\\s*(.+)\\s*(#E\\d+)\\s*=\\s*(\\w+)\\s*\\[([^\\]]+)\\]``)::

    Plan: Use Google to search for the 2024 Australian Open winner.
    #E1 = Google[2024 Australian Open winner]
    Plan: Retrieve the name of the winner from the search results.
    #E2 = LLM[What is the name of the 2024 Australian Open winner, given #E1]

* A step is a line that starts with ``#E`` and a digit (``_parse_planner_evidences``), split at
  its first ``=``: the evidence name on the left, the call on the right; or, as the LangGraph
  tutorial writes it, ``#E<n> = Tool[input]`` on the same line as its ``Plan:``. Task ``E<n>``;
  the ``Plan:`` line before it is its description. A later step with the same name replaces the
  earlier one in ReWOO (a dict); here it is a second task with the same id (``unique_ids``).
* The call is ``Tool[input]``: the tool is the text before the first ``[``, the input the rest
  without its last character (``_get_worker_evidences``). A call without ``[`` is no tool call:
  ReWOO takes the text itself as the evidence (a task without capability).
* ``#E<k>`` in the input reads step k's evidence: ReWOO substitutes only evidences already
  computed, so it is a need on ``E<k>`` and, for an earlier step, a dependency; a later one
  fails ``needs_earlier_output``, a missing one ``needs_resolve``. The input becomes the task's
  ``input`` argument (``{"$result": "E1"}`` or ``{"$concat": [...]}`` where it cites evidence).
* ReWOO's PWS keeps an evidence only when its name is three characters long (``#E1`` to
  ``#E9``): ``#E10`` and later get "No evidence found". planeval reads them and says so in the
  task's ``rewoo_note`` (reported by ``schema``).
"""

from __future__ import annotations

import re
from typing import Any

from harness._errors import NoPlanFoundError
from harness.plan._references import cited_value

__all__ = ["looks_like_rewoo", "rewoo_to_dict"]

_STEP = re.compile(r"^(#E\d.*?)=(.*)$|Plan:[^\n]*?(#E\d+)\s*=\s*(.*)$", re.MULTILINE)
_PLAN = re.compile(r"^Plan:\s*(.*?)\s*$")
_EVIDENCE = re.compile(r"#E\d+")


def looks_like_rewoo(text: str) -> bool:
    """True when a line starts with ``#E<digit>`` and has ``=`` (ReWOO's step test)."""
    return any(m.group(1) is not None for m in _STEP.finditer(text, 0, 200_000)) or bool(
        re.search(r"Plan:[^\n]*#E\d+\s*=\s*\w+\s*\[", text[:200_000])
    )


def rewoo_to_dict(text: str, *, source: str) -> dict[str, Any]:
    """A ReWOO plan as a canonical plan.

    Raises:
        NoPlanFoundError: no ``#E<n> = ...`` step.
    """
    tasks: list[dict[str, Any]] = []
    order: dict[str, int] = {}
    plan_text = ""
    lines = text.splitlines()
    for line in lines:
        plan = _PLAN.match(line)
        step = _STEP.match(line) or (plan and _STEP.search(line))
        if plan and not (step and step.group(3)):
            plan_text = plan.group(1)
            continue
        if not step:
            continue
        if step.group(1) is not None:
            name, call = step.group(1).strip(), step.group(2).strip()
        else:
            name, call = step.group(3), step.group(4).strip()
            plan_text = line[line.index("Plan:") + 5 : line.index(name)].strip()
        tasks.append(_task(name, call, plan_text, order))
        order.setdefault(tasks[-1]["id"], len(order))
        plan_text = ""
    if not tasks:
        raise NoPlanFoundError(
            "no ReWOO steps in the text",
            source=source,
            hint="expected 'Plan: ...' lines each followed by '#E1 = Tool[input]'",
        )
    return {"tasks": tasks}


def _task(name: str, call: str, plan_text: str, order: dict[str, int]) -> dict[str, Any]:
    task_id = name.lstrip("#")
    task: dict[str, Any] = {"id": task_id, "description": plan_text or call}
    deps: list[str] = []
    needs: list[dict[str, str]] = []
    if "[" in call:
        tool, tool_input = call.split("[", 1)
        tool_input = tool_input[:-1]
        task["capabilities"] = [tool.strip()] if tool.strip() else []
        for ref in _EVIDENCE.findall(tool_input):
            needs.append({"name": ref, "task": ref[1:]})
            if ref[1:] in order and ref[1:] != task_id and ref[1:] not in deps:
                deps.append(ref[1:])
        task["arguments"] = {"input": cited_value(tool_input, _EVIDENCE, lambda r: r[1:])}
    else:
        task["capabilities"] = []
    task["depends_on"] = deps
    task["needs"] = needs
    if len(name) != 3:
        task["rewoo_note"] = (
            f"ReWOO's PWS keeps evidence only for #E1 to #E9: {name} gets 'No evidence found'"
        )
    return task
