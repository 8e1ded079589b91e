"""``planeval compare BASE CAND``: flips, per-check deltas and a paired significance test."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from harness._cli._output import fail_input, print_json
from harness._errors import InputError


def compare_command(
    base: Annotated[Path, typer.Argument(metavar="BASE", help="The base run folder.")],
    cand: Annotated[Path, typer.Argument(metavar="CAND", help="The candidate run folder.")],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            metavar="text|markdown|json|html",
            help="What to print (html: a page on stdout).",
        ),
    ] = "text",
    base_model: Annotated[
        str | None,
        typer.Option("--base-model", metavar="MODEL", help="Compare only this model of BASE."),
    ] = None,
    cand_model: Annotated[
        str | None,
        typer.Option("--cand-model", metavar="MODEL", help="...against this model of CAND."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="Bootstrap seed.")] = 0,
    unparseable: Annotated[
        str,
        typer.Option(
            "--unparseable",
            metavar="zero|exclude",
            help="Metrics: unparseable answers count as zero or are left out (exclude).",
        ),
    ] = "zero",
) -> None:
    """Compare a candidate run with a base run of the same suite."""
    if fmt not in ("text", "markdown", "json", "html"):
        fail_input(f"--format must be text, markdown, json or html, not {fmt!r}")
    if unparseable not in ("zero", "exclude"):
        fail_input(f"--unparseable must be zero or exclude, not {unparseable!r}")
    from harness.compare import compare_runs, comparison_to_dict, render_markdown, render_text
    from harness.compare._metrics import compare_metrics, render_metric_comparison
    from harness.compare._pooled import compare_pooled, render_pooled
    from harness.report import load_run

    try:
        b, c = load_run(base), load_run(cand)
        result = compare_runs(b, c, base_model=base_model, cand_model=cand_model, seed=seed)
        metrics = compare_metrics(b, c, result.pairs, convention=unparseable)  # type: ignore[arg-type]
        pooled = compare_pooled(b, c, result.pairs, convention=unparseable)  # type: ignore[arg-type]
    except InputError as exc:
        fail_input(exc)
    if fmt == "json":
        print_json(
            {
                **comparison_to_dict(result),
                "pooled_metrics": [m.to_dict() for m in pooled],
                "metrics": [m.to_dict() for m in metrics],
            }
        )
    elif fmt == "html":
        from harness.compare import render_compare_html
        from harness.compare._metrics import render_metric_comparison_html
        from harness.compare._pooled import render_pooled_html

        page = render_compare_html(result)
        section = render_pooled_html(pooled) + render_metric_comparison_html(metrics)
        sys.stdout.write(page.replace("</body>", section + "</body>", 1) if section else page)
    else:
        if fmt == "text":
            for w in [*b.warnings, *c.warnings]:
                typer.echo(f"planeval: warning: {w}", err=True)
        sys.stdout.write(render_text(result) if fmt == "text" else render_markdown(result))
        if pooled:
            sys.stdout.write("\n" + render_pooled(pooled, markdown=fmt == "markdown"))
        if metrics:
            sys.stdout.write("\n" + render_metric_comparison(metrics, markdown=fmt == "markdown"))
