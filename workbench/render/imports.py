"""What an import did, or would do (a dry run), as lines for the terminal; everything from
the file shown literally."""

from __future__ import annotations

import json
from collections import Counter

from rich.text import Text

from store import as_dict
from workbench.render.display import literal, one_line

FIRST_TEXT_CHARS = 160
"""How much of a long text a dry run shows of each of the first claims."""


def import_summary(report, show_warnings: bool = False) -> list[Text]:
    """The counts line, the labels, the notes and the warnings (all of them, or one line a kind)."""
    plan, counts, dataset = report.plan, report.counts, report.dataset
    head = literal(dataset.name, "bold")
    head.append_text(
        literal(
            f" ({_how(plan)}): {counts.added:,} added, {counts.updated:,} updated,"
            f" {counts.unchanged:,} unchanged ({dataset.claim_count:,} claim{'' if dataset.claim_count == 1 else 's'})"
        )
    )
    return [
        head,
        _labels_line(dataset.label_space, report.label_counts),
        *_notes(plan.warnings),
        *_warnings(plan.warnings, show_warnings),
    ]


def dry_run_lines(preview) -> list[Text]:
    """Format, profile, mapping, the first claims as they will be stored, labels, every warning."""
    plan = preview.plan
    lines = [
        Text("dry run: nothing is written", style="bold"),
        literal(
            f"file: {plan.source.path} ({plan.source.format}, {len(plan.source.files)} data file"
            f"{'s' if len(plan.source.files) != 1 else ''}"
            + (f", split {plan.source.split}" if plan.source.split else "")
            + ")"
        ),
        literal(
            f"profile: {_how(plan)}"
            + (f"; it also fits {', '.join(plan.also_fit[1:])}" if len(plan.also_fit) > 1 else "")
        ),
        literal(f"dataset: {plan.name}"),
        Text("mapping:", style="bold"),
        *_mapping_lines(plan.mapping),
        literal(f"claims: {preview.claims:,}"),
        _labels_line(preview.space, preview.label_counts),
    ]
    for number, claim in enumerate(preview.first, start=1):
        lines.append(Text(f"claim {number} as stored:", style="bold"))
        lines.append(
            literal(
                json.dumps(_shortened(as_dict(claim, exclude_none=True, exclude={"id"})), ensure_ascii=False, indent=1)
            )
        )
    return lines + _notes(plan.warnings) + _warnings(plan.warnings, show_all=True)


def _how(plan) -> str:
    return f"profile {plan.mapping.name}, {plan.how_picked}; {plan.source.format}"


def _labels_line(space, counts: Counter) -> Text:
    kind = "built-in" if space.name in ("averitec", "jsfactcheck", "realfactbench") else "the file's own"
    line = literal(f"label space {space.name} ({kind}): ")
    shown = [f"{label} {counts.get(label, 0):,}" for label in space.labels]
    shown += [f"{label} {counts.get(label, 0):,} (kept, not scored)" for label in space.excluded]
    line.append_text(literal(", ".join(shown)))
    if space.abstain:
        line.append_text(literal(f"; abstain label {space.abstain}"))
    if counts.get(None):
        line.append_text(literal(f"; {counts[None]:,} without a gold label (left out of scores)"))
    return line


def _notes(warnings) -> list[Text]:
    return [literal(f"note: {note}", "dim") for note in warnings.notes]


def _warnings(warnings, show_all: bool) -> list[Text]:
    if not len(warnings):
        return []
    lines = [
        Text(
            f"{len(warnings):,} warning{'s' if len(warnings) != 1 else ''}"
            + ("" if show_all else " (--warnings lists every one; --strict refuses them):"),
            style="yellow",
        )
    ]
    if show_all:
        lines += [literal(f"  {item}") for item in warnings.items]
    else:
        lines += [literal(f"  {line}") for line in warnings.summary()]
    return lines


def _mapping_lines(mapping) -> list[Text]:
    if mapping.transform:
        return [literal(f"  read by the built-in function {mapping.transform!r} (see docs/formats.md)")]
    lines = [literal(f"  {name:<15} <- {value.text}") for name, value in mapping.fields.items()]
    lines += [literal(f"  attr.{name:<10} <- {value.text}") for name, value in mapping.attributes.items()]
    if mapping.explode is not None:
        lines.append(literal(f"  one claim per  <- {mapping.explode.text}"))
    for group in mapping.evidence:
        each = group.each.text if group.each is not None else "(the record itself)"
        parts = ", ".join(f"{name} <- {value.text}" for name, value in group.parts.items())
        attributes = ", ".join(f"attr.{name} <- {value.text}" for name, value in group.attributes.items())
        lines.append(
            literal(f"  evidence       <- {each}: {one_line(parts + (', ' + attributes if attributes else ''))}")
        )
    if mapping.keep_unknown:
        lines.append(literal("  (every other field is kept as attr.NAME)", "dim"))
    return lines


def _shortened(value):
    """A claim for showing: long texts cut (the import keeps them whole)."""
    if isinstance(value, str) and len(value) > FIRST_TEXT_CHARS:
        return value[:FIRST_TEXT_CHARS] + f"… ({len(value):,} characters)"
    if isinstance(value, dict):
        return {key: _shortened(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shortened(item) for item in value]
    return value


def predictions_summary(report, dry_run: bool) -> list[Text]:
    """What a predictions import did (or would do): the run, the matches, the answers."""
    plan = report.plan
    if report.already is not None:
        run = report.already
        return [
            literal(
                f"run {run.name} (id {run.id}) already holds the predictions of this file (the same"
                f" bytes, {report.matched:,} matched): nothing added. --run NEW_NAME imports them again"
                " as another run."
            )
        ]
    head = Text("dry run: nothing is written\n", style="bold") if dry_run else Text()
    if report.run is not None:
        head.append_text(literal(f"run {report.run.name} (id {report.run.id}, model {report.run.model}): "))
    head.append_text(
        literal(
            f"{report.matched:,} predictions matched by {report.matched_by}"
            f" (profile {plan.mapping.name}, {plan.how_picked})"
        )
    )
    statuses = ", ".join(f"{count:,} {status}" for status, count in report.statuses.most_common())
    lines = [head, literal(f"answers: {statuses}")]
    if report.unmatched:
        shown = ", ".join(repr(one_line(key, 40)) for key in report.unmatched[:5])
        lines.append(
            literal(
                f"{len(report.unmatched):,} predictions match no claim and were left out: {shown}"
                + (", ..." if len(report.unmatched) > 5 else ""),
                "yellow",
            )
        )
    if report.without:
        lines.append(
            literal(f"{report.without:,} claims of the dataset have no prediction in this file (not in the run)", "dim")
        )
    return lines + _notes(plan.warnings) + _warnings(plan.warnings, show_all=False)
