"""Plans: the model, the loaders and the adapters for every supported format."""

from harness.plan._adapters import FORMATS
from harness.plan._arguments import Ref, Template, references
from harness.plan._json import MAX_PLAN_BYTES
from harness.plan._load import load_plan, load_plan_file
from harness.plan._model import Need, Plan, Task
from harness.plan._stream import iter_plan_file

__all__ = [
    "FORMATS",
    "MAX_PLAN_BYTES",
    "Need",
    "Plan",
    "Ref",
    "Task",
    "Template",
    "iter_plan_file",
    "load_plan",
    "load_plan_file",
    "references",
]
