"""The CI gate: thresholds and a committed baseline decide whether a run may merge."""

from harness.gate._baseline import (
    BASELINE_FORMAT,
    BASELINE_VERSION,
    Baseline,
    baseline_from_run,
    default_baseline_path,
    load_baseline,
    write_baseline,
)
from harness.gate._gate import (
    GateConfigError,
    GateResult,
    RuleResult,
    run_gate,
    validate_options,
)

__all__ = [
    "BASELINE_FORMAT",
    "BASELINE_VERSION",
    "Baseline",
    "GateConfigError",
    "GateResult",
    "RuleResult",
    "baseline_from_run",
    "default_baseline_path",
    "load_baseline",
    "run_gate",
    "validate_options",
    "write_baseline",
]
