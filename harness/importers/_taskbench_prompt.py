"""TaskBench's zero-shot planning prompt, as its ``inference.py`` builds it.

The text below is TaskBench's (microsoft/JARVIS at c62e0fa, ``taskbench/inference.py``, MIT
License), reproduced so that a suite imported from TaskBench asks a live planner exactly what
TaskBench asked: ``# TASK LIST #`` with one JSON tool a line, the resource or the temporal
instructions, and the request. Tools with ``input-type`` make a resource domain (arguments cite
``<node-j>``); otherwise the domain is temporal (``task_links``), and each tool's parameters are
listed by name only, as TaskBench does.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["dependency_type", "taskbench_template"]

_RESOURCE = (
    "\n# GOAL #: Based on the above tools, I want you generate task steps and task nodes to solve "
    'the # USER REQUEST #. The format must in a strict JSON format, like: {"task_steps": [ step '
    'description of one or more steps ], "task_nodes": [{"task": "tool name must be from # '
    'TOOL LIST #", "arguments": [ a concise list of arguments for the tool. Either original '
    "text, or user-mentioned filename, or tag '<node-j>' (start from 0) to refer to the output "
    "of the j-th node. ]}]} "
    "\n\n# REQUIREMENTS #: \n1. the generated task steps and task nodes can resolve the given "
    "user request # USER REQUEST # perfectly. Task name must be selected from # TASK LIST #; \n2. "
    "the task steps should strictly aligned with the task nodes, and the number of task steps "
    "should be same with the task nodes; \n3. the dependencies among task steps should align "
    "with the argument dependencies of the task nodes; \n4. the tool arguments should be align "
    "with the input-type field of # TASK LIST #;"
)
_TEMPORAL = (
    "\n# GOAL #:\nBased on the above tools, I want you generate task steps and task nodes to "
    "solve the # USER REQUEST #. The format must in a strict JSON format, like: "
    '{"task_steps": [ "concrete steps, format as Step x: Call xxx tool with xxx: \'xxx\' and '
    'xxx: \'xxx\'" ], "task_nodes": [{"task": "task name must be from # TASK LIST #", '
    '"arguments": [ {"name": "parameter name", "value": "parameter value, either '
    "user-specified text or the specific name of the tool whose result is required by this "
    'node"} ]}], "task_links": [{"source": "task name i", "target": "task name j"}]}'
    "\n\n# REQUIREMENTS #: \n1. the generated task steps and task nodes can resolve the given "
    "user request # USER REQUEST # perfectly. Task name must be selected from # TASK LIST #; \n2. "
    "the task steps should strictly aligned with the task nodes, and the number of task steps "
    "should be same with the task nodes; \n3. The task links (task_links) should reflect the "
    "temporal dependencies among task nodes, i.e. the order in which the APIs are invoked;"
)
_REQUEST = (
    "\n\n# USER REQUEST #: {goal}\nnow please generate your result in a strict JSON format:"
    "\n# RESULT #:"
)


def dependency_type(tool_desc: Any) -> str:
    """``resource`` when the tools declare ``input-type`` (TaskBench's test), else
    ``temporal``."""
    nodes = tool_desc.get("nodes") if isinstance(tool_desc, dict) else None
    first = nodes[0] if isinstance(nodes, list) and nodes else {}
    return "resource" if isinstance(first, dict) and "input-type" in first else "temporal"


def taskbench_template(tool_desc: Any) -> str:
    """The suite prompt template: TaskBench's prompt with ``{goal}`` for the request."""
    kind = dependency_type(tool_desc)
    lines = ["# TASK LIST #:"]
    for tool in tool_desc.get("nodes", []) if isinstance(tool_desc, dict) else []:
        if kind == "temporal" and isinstance(tool, dict):
            params = tool.get("parameters")
            if isinstance(params, list):
                names = [p.get("name") if isinstance(p, dict) else p for p in params]
                tool = {**tool, "parameters": names}
        lines.append(json.dumps(tool))
    return "\n".join(lines) + "\n" + (_RESOURCE if kind == "resource" else _TEMPORAL) + _REQUEST
