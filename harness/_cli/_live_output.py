"""What ``planeval run`` prints about live calls: tokens and cost per model, budget stops."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from harness.run import RunResult, Selection

__all__ = ["print_budget_stop", "print_usage"]


def print_usage(console: Console, results: list[RunResult]) -> None:
    """A table of tokens and cost per suite and model, when any row reported usage."""
    from rich.table import Table

    from harness.cost import usage_table_rows

    blocks = []
    for result in results:
        summaries, total = result.summary().usage()
        if total.calls:
            blocks.append((result.manifest.suite, summaries, total))
    if not blocks:
        return
    table = Table(title="tokens and cost per suite and model (— no usage reported)")
    head = ("suite", "model", "calls", "input", "cached", "output", "reasoning", "cost", "$/pass")
    for name in head:
        table.add_column(name, justify="left" if name in ("suite", "model") else "right")
    for suite, summaries, total in blocks:
        for cells in usage_table_rows(summaries, total):
            table.add_row(suite, *cells)
    console.print(table)


def print_budget_stop(
    console: Console,
    result: RunResult,
    suite_arg: str,
    fixtures: Path | None,
    selection: Selection | None = None,
) -> None:
    """One line when the budget stopped calls, and the command that continues the run."""
    budget = result.manifest.budget or {}
    uncertain = budget.get("uncertain") or 0
    if uncertain:
        console.print(
            f"budget: ${budget.get('spent', 0):.4f} spent is an upper bound: {uncertain} "
            "attempt(s) ended without an answer (timeout, dropped connection) and are charged "
            "their worst case",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    stopped = budget.get("stopped")
    if not stopped:
        return
    refused = result.summary().budget_refused
    reason = stopped.removeprefix("not called: ")
    command = (
        selection.continue_command()
        if selection is not None
        else result.rerecord_command(suite_arg=suite_arg, fixtures=fixtures)
    )
    console.print(
        f"budget: {reason}; {refused} sample(s) were not called (missing). "
        f"Continue, paying only for the gaps, with: {command}",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
