"""Plans: the model, its JSON Schema and the adapters that load every supported format."""

from harness.plan._model import Need, Plan, Task

__all__ = ["Need", "Plan", "Task"]
