"""Researchers' metrics: how close a plan is to a reference plan, as TaskBench and WorfBench
score it. Definitions, formulas and the upstream functions they follow: docs/metrics.md.

    from harness.metrics import score_plan
    score_plan(answer_text, reference_text).metrics   # {"worfbench.f1_chain": 0.8, ...}
    score_taskbench_file(read_record_lines(pred, "p"), read_record_lines(gold, "g")).groups
"""

from harness.metrics._corpus import (
    GROUPS,
    SPLITS,
    prf,
    taskbench_breakdown,
    taskbench_corpus,
    worfbench_corpus,
)
from harness.metrics._files import (
    FileScore,
    RecordScore,
    read_record_lines,
    score_taskbench_file,
)
from harness.metrics._matchers import (
    DEFAULT_EMBEDDING_MODEL,
    EmbeddingMatcher,
    Matcher,
    TextMatcher,
    normalize_text,
)
from harness.metrics._score import (
    CONVENTIONS,
    FAMILIES,
    Convention,
    PlanScore,
    Reference,
    ScoreStatus,
    score_plan,
)
from harness.metrics._taskbench import (
    DEPENDENCY_TYPES,
    DependencyType,
    TaskbenchGold,
    TaskbenchSample,
    ToolCatalogue,
    UnscorableError,
    read_taskbench_gold,
    set_f1,
    taskbench_sample,
)
from harness.metrics._views import plan_to_taskbench, plan_to_worfgraph
from harness.metrics._worfbench import (
    MATCH_THRESHOLD,
    MAX_ORDERS,
    WorfbenchScores,
    WorfGraph,
    gold_orders,
    parse_worfbench,
    score_worfbench,
)

__all__ = [
    "CONVENTIONS",
    "DEFAULT_EMBEDDING_MODEL",
    "DEPENDENCY_TYPES",
    "FAMILIES",
    "GROUPS",
    "MATCH_THRESHOLD",
    "MAX_ORDERS",
    "SPLITS",
    "Convention",
    "DependencyType",
    "EmbeddingMatcher",
    "FileScore",
    "Matcher",
    "PlanScore",
    "RecordScore",
    "Reference",
    "ScoreStatus",
    "TaskbenchGold",
    "TaskbenchSample",
    "TextMatcher",
    "ToolCatalogue",
    "UnscorableError",
    "WorfGraph",
    "WorfbenchScores",
    "gold_orders",
    "normalize_text",
    "parse_worfbench",
    "plan_to_taskbench",
    "plan_to_worfgraph",
    "prf",
    "read_record_lines",
    "read_taskbench_gold",
    "score_plan",
    "score_taskbench_file",
    "score_worfbench",
    "set_f1",
    "taskbench_breakdown",
    "taskbench_corpus",
    "taskbench_sample",
    "worfbench_corpus",
]
