"""How verdicts, flags and untrusted text look on screen (Rich Text, never markup).

Every outcome has its own symbol as well as its own colour, so the looks survive
NO_COLOR, monochrome terminals and colour-blind readers.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from store import Prediction
from workbench.render.display import literal, one_line, printable


@dataclass(frozen=True)
class Look:
    symbol: str
    word: str
    style: str


LOOKS = {
    "right": Look("✓", "right", "green"),
    "wrong": Look("✗", "wrong", "bold red"),
    "unscored": Look("•", "unscored gold", "cyan"),
    "abstain": Look("∅", "abstained", "yellow"),
    "parse_failure": Look("?", "parse failure", "bold magenta"),
    "error": Look("!", "API error", "bold reverse red"),
    "none": Look("·", "no answer yet", "dim"),
}


def outcome(status: str | None, verdict: str | None, gold: str | None, scored: set[str] | None = None) -> str:
    """right / wrong / unscored / abstain / parse_failure / error / none."""
    if status is None:
        return "none"
    if status != "ok":
        return status if status in LOOKS else "error"
    if scored is not None and gold not in scored:
        return "unscored"
    return "right" if verdict == gold else "wrong"


def verdict_mark(status: str | None, verdict: str | None, gold: str | None, scored: set[str] | None = None) -> Text:
    """One-cell marker for the claims table."""
    look = LOOKS[outcome(status, verdict, gold, scored)]
    return Text(look.symbol, style=look.style)


def verdict_line(prediction: Prediction | None, gold: str | None, scored: set[str] | None = None) -> Text:
    """'✗ Refuted  (gold Supported)', '? parse failure', '∅ abstained: unknown', '! API error: …'."""
    if prediction is None:
        look = LOOKS["none"]
        return Text(f"{look.symbol} {look.word}", style=look.style)
    kind = outcome(prediction.status, prediction.verdict, gold, scored)
    look = LOOKS[kind]
    line = Text(f"{look.symbol} ", style=look.style)
    if kind in ("right", "wrong", "unscored"):
        line.append(printable(prediction.verdict), style=look.style)
        if kind == "wrong":
            line.append(f"  (gold {printable(gold)})", style="dim")
    elif kind == "abstain":
        line.append(look.word, style=look.style)
        if prediction.verdict or prediction.raw_verdict:
            line.append(": " + one_line(prediction.verdict or prediction.raw_verdict, 40))
    elif kind == "parse_failure":
        line.append(look.word, style=look.style)
        if prediction.raw_verdict:
            line.append(": " + one_line(prediction.raw_verdict, 40))
    else:
        line.append(look.word, style=look.style)
        if prediction.error:
            line.append(": " + one_line(prediction.error, 60))
    return line


FLAG_MARKS = {
    "contaminated": ("C", "contaminated (seen in training data)"),
    "not-contaminated": ("N", "checked by a person: not contaminated"),
    "curated-out": ("X", "curated out: a curation step (or a person) took it out of the benchmark"),
}
"""The workbench's own flag kinds' letters; a kind's sub-kinds (curated-out:date) share its
letter. Any other kind shows its first letter, in lower case where it would read as one of
these (a kind of your own called "cherry-picked" is ⚑c, never ⚑C)."""


def flag_letter(kind: str) -> str:
    """The one letter a flag kind shows in the flag column."""
    known = FLAG_MARKS.get(kind.partition(":")[0])
    if known is not None:
        return known[0]
    letter = printable(kind)[:1].upper()
    return letter.lower() if letter in {mark for mark, _ in FLAG_MARKS.values()} else letter


def flag_marks(kinds: list[str]) -> Text:
    """Compact flag column: ⚑ plus each kind's letter, once (C contaminated, X curated out)."""
    if not kinds:
        return Text("")
    letters = "".join(dict.fromkeys(flag_letter(kind) for kind in kinds))
    return Text("⚑" + letters, style="bold yellow")


def flag_legend() -> Text:
    """What each flag mark means, a line each (the help screen)."""
    text = Text()
    for mark, meaning in FLAG_MARKS.values():
        text.append(f"  ⚑{mark}", style="bold yellow")
        text.append(f"  {meaning}\n")
    text.append("  ⚑a", style="bold yellow")
    text.append("  any other kind: its first letter (lower case where it would read as C, N or X)\n")
    return text


def field_line(name: str, value: object, width: int = 15) -> Text:
    """'name            value', both literal (an attribute's name comes from the data file)."""
    name = printable(name)
    line = Text(f"{name:<{width - 1}} ", style="bold")  # a long name still leaves a space
    line.append_text(literal(value))
    return line


def legend() -> Text:
    """One line explaining the verdict markers."""
    line = Text()
    for key in ("right", "wrong", "abstain", "parse_failure", "error", "none"):
        look = LOOKS[key]
        line.append(look.symbol, style=look.style)
        line.append(f" {look.word}  ")
    return line


def flip_pane(claim, answers) -> Text:
    """A flipped claim read whole: its text and gold label, then each run's verdict and
    explanation (`answers`: (run, prediction) pairs, the base run first)."""
    text = Text()
    text.append_text(literal(claim.external_id, "bold"))
    text.append("  gold ")
    text.append_text(literal(claim.label or "—", "bold"))
    text.append("\n")
    text.append_text(literal(claim.text))
    for run, prediction in answers:
        text.append("\n\n")
        text.append_text(literal(run.name, "bold underline"))
        text.append("  ")
        text.append_text(verdict_line(prediction, claim.label))
        explanation = prediction.explanation if prediction is not None else None
        if explanation:
            text.append("\n")
            text.append_text(literal(explanation))
    return text
