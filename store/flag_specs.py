"""Which flags a user means by `contaminated`, `contaminated@MODEL` or `contaminated@run`.

Contamination is a property of a claim *for a model*: the pipeline's flags name the model
they were found for, people's flags usually name none. So:

    contaminated              every flag of that kind, whichever model it names
    contaminated@MODEL        flags of that kind found for MODEL, plus those naming no
                              model (a person's flag holds for every model)
    contaminated@run          the same for the model of the run in question
    any                       any flag at all (any@MODEL works too)

A kind also matches its sub-kinds, written KIND:PART: `curated-out` matches the flags of
every curation step (curated-out:date, curated-out:duplicate, ...), `curated-out:duplicate`
only those of one.

MODEL is spelt as runs store it (`workbench runs` shows it): gguf:default, openai:gpt-4.1-mini.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

RUN_MODEL = "run"


class FlagSpecError(ValueError):
    """A flag spec that names nothing, or a model no flag was found for."""


@dataclass(frozen=True)
class FlagSpec:
    kind: str
    """The flag kind, or "any"."""
    model: str | None = None
    """The model the flags must hold for; RUN_MODEL for the run being scored."""

    @classmethod
    def parse(cls, text: str) -> FlagSpec:
        kind, at, model = (text or "").strip().partition("@")
        if not kind.strip():
            raise FlagSpecError(f"flag spec {text!r} names no kind (e.g. contaminated, contaminated@MODEL)")
        if at and not model.strip():
            raise FlagSpecError(f"flag spec {text!r}: name a model after @, or `run` for the run's own model")
        return cls(kind.strip(), _unquoted(model.strip()) if at else None)

    def __str__(self) -> str:
        return self.kind if self.model is None else f"{self.kind}@{self.model}"

    @property
    def per_run(self) -> bool:
        return self.model == RUN_MODEL

    def for_model(self, model: str) -> FlagSpec:
        """This spec with `@run` replaced by a concrete model."""
        return FlagSpec(self.kind, model) if self.per_run else self

    def condition(self, run_id: int | None = None) -> tuple[str, list]:
        """SQL over `flags f` matching the spec, and its parameters; `@run` needs `run_id`."""
        clauses, params = [], []
        if self.kind.lower() != "any":
            clauses.append("(f.kind = ? COLLATE NOCASE OR f.kind LIKE ? ESCAPE '\\')")
            params += [self.kind, _escaped(self.kind) + ":%"]
        if self.per_run:
            if run_id is None:
                raise FlagSpecError(f"{self}: @run needs a run (put run:NAME before it)")
            clauses.append("(f.model = '' OR f.model = (SELECT model FROM runs WHERE id = ?))")
            params.append(run_id)
        elif self.model is not None:
            clauses.append("(f.model = '' OR f.model = ?)")
            params.append(self.model)
        return " AND ".join(clauses) or "1", params


def _escaped(kind: str) -> str:
    """A kind as a literal LIKE prefix (its % and _ are not wildcards)."""
    return kind.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _unquoted(model: str) -> str:
    """A model name typed in quotes (`contaminated@"gguf:/models/my model.gguf"`), unquoted."""
    if len(model) >= 2 and model[0] == model[-1] == '"':
        return re.sub(r"\\(.)", r"\1", model[1:-1])
    return model


def check_flag_model(db, spec: FlagSpec) -> None:
    """FlagSpecError when the spec names a model no flag was found for and the pipeline never
    scored (most often a typo, which would otherwise quietly count people's flags only)."""
    if spec.model is None or spec.per_run:
        return
    # A model the contamination pipeline scored has flags, even if none: zero of them.
    if db.execute(
        "SELECT 1 FROM flags WHERE model = ? UNION ALL SELECT 1 FROM contamination_scores"
        " WHERE target_model = ? LIMIT 1",
        [spec.model, spec.model],
    ).fetchone():
        return
    known = [
        r[0]
        for r in db.execute(
            "SELECT model FROM flags WHERE model != '' UNION SELECT target_model FROM contamination_scores"
            " ORDER BY 1 LIMIT 8"
        )
    ]
    listing = f"flags name {', '.join(known)}" if known else "no flag names a model yet"
    raise FlagSpecError(
        f"no flag was found for model {spec.model!r} ({listing}; models are spelt as `workbench runs` shows them)"
    )


__all__ = ["FlagSpec", "FlagSpecError", "RUN_MODEL", "check_flag_model"]
