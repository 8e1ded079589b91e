"""Test helpers shipped with planeval: a fake planner API server for offline tests."""

from harness.testing._server import (
    FAULTS,
    FakePlannerServer,
    FaultKind,
    ReceivedRequest,
    default_planner,
)

__all__ = ["FAULTS", "FakePlannerServer", "FaultKind", "ReceivedRequest", "default_planner"]
