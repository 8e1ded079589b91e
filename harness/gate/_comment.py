"""The pull-request comment: the gate's verdict and deciding rule first, then each suite's
summary.md, under GitHub's comment limit.

The workflow posts one comment for every suite of a pull request. It used to be the suites'
summary.md files joined (72,254 characters for seven suites: GitHub refuses comments over
65,536) and written before the gate ran, so it never held the verdict. ``pull_request_comment``
puts the verdict on top and cuts the summaries, whole sections first, so the comment stays
under ``COMMENT_BUDGET`` with a pointer to the uploaded report artifact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.gate._gate import GateResult
from harness.report._format import md_cell

__all__ = ["COMMENT_BUDGET", "GITHUB_LIMIT", "SuiteVerdict", "pull_request_comment"]

GITHUB_LIMIT = 65_536
"""GitHub refuses a comment longer than this."""

COMMENT_BUDGET = 60_000
"""The comment's size, with a margin for the sticky-comment action's header."""

ARTIFACT = "the `planeval-report` artifact of this workflow run"
"""Where a cut comment sends the reader."""


@dataclass(frozen=True, slots=True)
class SuiteVerdict:
    """One suite's gate outcome, as the comment shows it."""

    suite: str
    exit_code: int
    result: GateResult | None
    """None when the run could not be judged (``error`` says why)."""
    error: str | None = None
    summary_md: str | None = None
    """The suite's summary.md, when ``report`` wrote one."""


def _text(text: str | None, limit: int) -> str:
    """One line of a markdown list item (code spans kept: commands stay copyable)."""
    s = " ".join(str(text or "").split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _verdict_lines(verdicts: Sequence[SuiteVerdict], code: int) -> list[str]:
    worst = next((v for v in verdicts if v.exit_code == code and code != 0), None)
    passed = sum(v.exit_code == 0 for v in verdicts)
    if worst is None:
        head = f"## planeval gate: PASS: {passed} of {len(verdicts)} suite(s) pass every rule"
    else:
        decided = worst.result.decided_by if worst.result else None
        rule = decided.rule if decided else "unusable or incomplete run"
        head = (
            f"## planeval gate: FAIL (exit {code}), decided by {rule} in "
            f"`{md_cell(worst.suite, 60)}`"
        )
    lines = [head, ""]
    for v in verdicts:
        if v.result is None:
            lines.append(f"- ❌ `{md_cell(v.suite, 60)}`: not judged: {_text(v.error, 400)}")
            continue
        decided = v.result.decided_by
        if decided is None:
            lines.append(f"- ✅ `{md_cell(v.suite, 60)}`: every rule holds")
            continue
        lines.append(
            f"- ❌ `{md_cell(v.suite, 60)}`: **{decided.rule}**: {_text(decided.message, 600)}"
        )
        for d in decided.details[:5]:
            lines.append(f"  - {_text(d, 300)}")
        more = max(0, len(decided.details) - 5) + decided.more
        if more:
            lines.append(f"  - …and {more} more (the gate's log lists them)")
    return [*lines, ""]


def pull_request_comment(
    verdicts: Sequence[SuiteVerdict], exit_code: int, *, budget: int = COMMENT_BUDGET
) -> str:
    """The comment: the verdict, then every suite's summary.md, under ``budget`` characters.

    Summaries that do not fit are left out whole (the verdict names every suite), and a line
    says which and where to read them; a verdict alone over the budget is cut.
    """
    out = "\n".join(_verdict_lines(verdicts, exit_code))
    summaries = [v for v in verdicts if v.summary_md]
    left_out: list[str] = []
    for v in summaries:
        block = "\n---\n\n" + (v.summary_md or "")
        if len(out) + len(block) + 400 <= budget:
            out += block
        else:
            left_out.append(v.suite)
    if left_out:
        names = ", ".join(f"`{md_cell(s, 60)}`" for s in left_out)
        out += (
            f"\n---\n\n…the summaries of {names} are left out to stay under GitHub's "
            f"{GITHUB_LIMIT:,}-character comment limit: read them in {ARTIFACT}.\n"
        )
    if len(out) > budget:
        out = out[: budget - 200] + f"\n\n…(cut to stay under the comment limit; see {ARTIFACT})\n"
    return out
