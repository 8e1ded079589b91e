"""Durable plan execution: run a plan's tasks with an agent, journal them, resume."""

from harness.execute._agents import AgentLoadError, check_agent, demo_agent, load_agent
from harness.execute._attempts import StopSignal
from harness.execute._context import (
    READS,
    Agent,
    TaskContext,
    TaskError,
    agent_reads,
    inline_agent,
    reads,
)
from harness.execute._executor import DEFAULT_GRACE, DEFAULT_MAX_TOTAL_ATTEMPTS, execute
from harness.execute._graph import TaskGraph
from harness.execute._model_agent import make_model_agent, model_agent
from harness.execute._result import ExecutionResult, ExecutionStatus, TaskFailure
from harness.execute._resume import ResumeDecision, decide_resume, resolve_task
from harness.execute._resume_eval import (
    CRASH_MODES,
    PROPERTIES,
    CrashMode,
    ResumeScenario,
    resume_scenarios,
)
from harness.execute._scheduler import EXHAUSTED
from harness.execute._structure import PlanChanges, plan_structure, task_fingerprint
from harness.execute._suite_resume import RESUME_SUFFIX, resume_eval_suite, resume_row

__all__ = [
    "CRASH_MODES",
    "DEFAULT_GRACE",
    "DEFAULT_MAX_TOTAL_ATTEMPTS",
    "EXHAUSTED",
    "PROPERTIES",
    "READS",
    "RESUME_SUFFIX",
    "Agent",
    "AgentLoadError",
    "CrashMode",
    "ExecutionResult",
    "ExecutionStatus",
    "PlanChanges",
    "ResumeDecision",
    "ResumeScenario",
    "StopSignal",
    "TaskContext",
    "TaskError",
    "TaskFailure",
    "TaskGraph",
    "agent_reads",
    "check_agent",
    "decide_resume",
    "demo_agent",
    "execute",
    "inline_agent",
    "load_agent",
    "make_model_agent",
    "model_agent",
    "plan_structure",
    "reads",
    "resolve_task",
    "resume_eval_suite",
    "resume_row",
    "resume_scenarios",
    "task_fingerprint",
]
