"""The CI gate: thresholds and a committed baseline decide whether a run may merge."""

from harness.gate._baseline import (
    BASELINE_FORMAT,
    BASELINE_VERSION,
    BASELINES_DIR,
    Baseline,
    WrittenBaseline,
    baseline_from_run,
    baseline_path,
    default_baseline_path,
    load_baseline,
    replaceable,
    reports_folder,
    write_baseline,
)
from harness.gate._complete import (
    Completeness,
    IncompleteRunError,
    completeness,
    require_complete,
)
from harness.gate._drop import (
    GATE_LEVEL,
    BaselineVerdict,
    DropVerdict,
    ModelDrop,
    drop_evidence,
    judge_against_baseline,
    rule_levels,
)
from harness.gate._evidence import (
    CaseEvidence,
    NewFailures,
    all_passed_p_value,
    chance_of_at_least,
    new_failures,
)
from harness.gate._gate import (
    GateConfigError,
    GateResult,
    RuleResult,
    run_gate,
    validate_options,
)
from harness.gate._runs import run_folders

__all__ = [
    "BASELINES_DIR",
    "BASELINE_FORMAT",
    "BASELINE_VERSION",
    "GATE_LEVEL",
    "Baseline",
    "BaselineVerdict",
    "CaseEvidence",
    "Completeness",
    "DropVerdict",
    "GateConfigError",
    "GateResult",
    "IncompleteRunError",
    "ModelDrop",
    "NewFailures",
    "RuleResult",
    "WrittenBaseline",
    "all_passed_p_value",
    "baseline_from_run",
    "baseline_path",
    "chance_of_at_least",
    "completeness",
    "default_baseline_path",
    "drop_evidence",
    "judge_against_baseline",
    "load_baseline",
    "new_failures",
    "replaceable",
    "reports_folder",
    "require_complete",
    "rule_levels",
    "run_folders",
    "run_gate",
    "validate_options",
    "write_baseline",
]
