"""A tiny planner for tests: reads the prompt on stdin, prints a plan for PLANEVAL_GOAL."""

import json
import os
import sys

prompt = sys.stdin.read()
goal = os.environ.get("PLANEVAL_GOAL", "")
if "crash" in goal:
    sys.stderr.write("planner: out of ideas\n")
    sys.exit(3)
if "ramble" in goal:
    print("Let me think about that for a while.")
    sys.exit(0)
steps = ["understand", "act", "report"]
tasks = [
    {
        "id": step,
        "description": f"{step}: {goal}",
        "depends_on": [steps[i - 1]] if i else [],
        "needs": [{"name": "prior", "task": steps[i - 1]}] if i else [],
    }
    for i, step in enumerate(steps)
]
print(json.dumps({"goal": goal, "prompt_chars": len(prompt), "tasks": tasks}))
