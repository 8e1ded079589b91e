"""Test helpers shipped with planeval: a fake planner API server and throw-away projects."""

from harness.testing._project import DEFAULT_PROMPT, make_project, sound_plan, write_response
from harness.testing._server import (
    FAULTS,
    FakePlannerServer,
    FaultKind,
    ReceivedRequest,
    default_planner,
)

__all__ = [
    "DEFAULT_PROMPT",
    "FAULTS",
    "FakePlannerServer",
    "FaultKind",
    "ReceivedRequest",
    "default_planner",
    "make_project",
    "sound_plan",
    "write_response",
]
