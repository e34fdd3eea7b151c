"""Fact-checkers' ratings folded into a label space, through the rating map (ratings.toml:
rating -> meaning, then per label space meaning -> label), extended by the config's
[ratings] and by `import --rating-map FILE`.

Each textual rating is folded once for the whole import, in this order: the command line
(--label-map RATING=MEANING|LABEL, --exclude-label RATING), the rating map (the whole
rating, then its first words), then its number (ratingValue between worstRating and
bestRating; every review with that rating must agree). A rating none of these folds stops
the import, listed with its count and where it first appears.
"""

from __future__ import annotations

import dataclasses
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from store import LabelSpace
from workbench import labels
from workbench.importers.common import LabelReader
from workbench.importers.mapping import MappingError
from workbench.importers.reading import BadInput

MAP_FILE = Path(__file__).with_name("ratings.toml")
MEANINGS = ("true", "mostly-true", "mixed", "misleading", "mostly-false", "false", "unproven", "excluded")
EXCLUDED = "excluded"
EXCLUDED_LABEL = "Unevaluable"
"""Where `excluded` ratings go in a space that has no excluded label of its own."""
_CUTS = ".:;!?(–—[|"
SHOWN = 12


def squash_rating(text: str) -> str:
    """Case, accents, spacing and punctuation dropped: 'Pants on Fire!' -> 'pantsonfire'."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if ch.isalnum() and not unicodedata.combining(ch))


@dataclass
class RatingMap:
    """Rating (squashed) -> meaning, and per label space meaning -> label."""

    ratings: dict[str, str] = field(default_factory=dict)
    folds: dict[str, dict[str, str]] = field(default_factory=dict)
    spelled: dict[str, str] = field(default_factory=dict)
    """Squashed rating -> as the map writes it (for people)."""

    def meaning(self, rating: str) -> tuple[str, str] | None:
        """(meaning, how) for a textual rating: by the whole of it, or by its first words."""
        found = self.ratings.get(squash_rating(rating))
        if found:
            return found, "the rating map"
        cut = min((rating.find(mark) for mark in _CUTS if rating.find(mark) > 0), default=-1)
        head = rating[:cut] if cut > 0 else " ".join(rating.split()[:3])
        found = self.ratings.get(squash_rating(head)) if head.strip() and head != rating else None
        return (found, f"its first words {head.strip()!r}") if found else None

    def add(self, table: dict, origin: str) -> None:
        """Lay a [ratings] table (and [folds.SPACE] tables) over the map."""
        for rating, meaning in (table.get("ratings") or {}).items():
            meaning = str(meaning).strip().lower()
            if meaning not in MEANINGS:
                raise MappingError(f"{origin}: rating {rating!r} = {meaning!r}: the meanings are {', '.join(MEANINGS)}")
            self.ratings[squash_rating(str(rating))] = meaning
            self.spelled[squash_rating(str(rating))] = str(rating)
        for space, folds in (table.get("folds") or {}).items():
            unknown = sorted(set(folds) - set(MEANINGS))
            if unknown:
                raise MappingError(
                    f"{origin}: [folds.{space}] names {', '.join(unknown)}; the meanings are {', '.join(MEANINGS)}"
                )
            self.folds.setdefault(space, {}).update({k: str(v) for k, v in folds.items()})


def rating_map(extra: Path | None = None, configured: dict[str, str] | None = None) -> RatingMap:
    """The built-in map, the config's [ratings] over it, then an import's --rating-map file."""
    found = RatingMap()
    found.add(tomllib.loads(MAP_FILE.read_text(encoding="utf-8")), str(MAP_FILE))
    if configured is None:
        from workbench.config import config_path, load_settings

        found.add({"ratings": load_settings().ratings}, f"{config_path()} [ratings]")
    else:
        found.add({"ratings": configured}, "[ratings]")
    if extra is not None:
        try:
            found.add(tomllib.loads(Path(extra).read_text(encoding="utf-8")), str(extra))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise MappingError(f"{extra}: not a readable rating map: {error}") from None
    return found


def numeric_meaning(value, best, worst) -> str | None:
    """A number on the reviewer's scale as a meaning: its worst end false, its best end
    true, the middle mixed, the rest mostly-false / mostly-true (schema.org's defaults: 1 to 5)."""
    if value is None:
        return None
    best = 5 if best is None else best
    worst = 1 if worst is None else worst
    if best == worst:
        return None
    position = (value - worst) / (best - worst)
    if not -1e-9 <= position <= 1 + 1e-9:
        return None
    if position <= 1e-9:
        return "false"
    if position >= 1 - 1e-9:
        return "true"
    if abs(position - 0.5) < 1e-9:
        return "mixed"
    return "mostly-false" if position < 0.5 else "mostly-true"


@dataclass
class _Seen:
    count: int = 0
    first: object = None
    """The first draft with this rating (where the error points)."""
    numbers: set = field(default_factory=set)


def rating_reader(plan, existing: LabelSpace | None, drafts) -> LabelReader | None:
    """The label reader of a ClaimReview import (the pipeline's hook for transforms that fold
    their own labels; `drafts()` reads the file's claims once more); None for --label-space
    own, where the ratings are the labels."""
    space = _space(plan, existing)
    if space is None:
        return None
    ratings = rating_map(plan.request.extra_files.get("ratings"))
    folds = ratings.folds.get(space.name)
    if folds is None:
        raise MappingError(
            f"the rating map folds ratings into {', '.join(sorted(ratings.folds))}, not the"
            f" {space.name} label space: add a [folds.{space.name}] table to a --rating-map file"
        )
    seen = _ratings_in(drafts())
    folded, how, unmapped = {}, [], []
    for rating, found in seen.items():
        label, why = _fold(rating, found, plan.mapping.labels, ratings, folds, space)
        if label is None:
            unmapped.append((rating, found, why))
        else:
            folded[rating] = label
            how.append((label, rating, found.count, why))
    if any(label == EXCLUDED_LABEL for label in folded.values()) and EXCLUDED_LABEL not in space.all_gold:
        space = dataclasses.replace(space, excluded=[*space.excluded, EXCLUDED_LABEL])
    if unmapped:
        raise _unmapped(unmapped, space)
    _note(plan, how, space)
    return LabelReader(space, folded, folds_noted=True)


def _space(plan, existing: LabelSpace | None) -> LabelSpace | None:
    asked = plan.request.label_space or existing or plan.mapping.labels.space or "jsfactcheck"
    if isinstance(asked, LabelSpace):
        return asked
    if asked == "own":
        return None
    if asked not in labels.BUILTIN_SPACES:
        raise MappingError(
            f"unknown label space {asked!r}; built-in: {', '.join(labels.BUILTIN_SPACES)},"
            " or own (the fact-checkers' ratings as they are)"
        )
    return labels.BUILTIN_SPACES[asked]


def _ratings_in(drafts) -> dict[str, _Seen]:
    """Every textual rating of the file, with its count, first review and numbers (a first pass)."""
    seen: dict[str, _Seen] = {}
    for draft in drafts:
        rating = draft.fields["raw_label"]
        if rating is None:
            continue
        found = seen.setdefault(rating, _Seen(first=draft))
        found.count += 1
        attributes = draft.fields["attributes"]
        numbers = (attributes.get("rating_value"), attributes.get("best_rating"), attributes.get("worst_rating"))
        if numbers[0] is not None:
            found.numbers.add(numbers)
    return seen


def _fold(
    rating: str, found: _Seen, asked, ratings: RatingMap, folds: dict, space: LabelSpace
) -> tuple[str | None, str]:
    """(label, how) for one rating; (None, why not) when nothing folds it."""
    given = asked.map.get(rating) or {squash_rating(k): v for k, v in asked.map.items()}.get(squash_rating(rating))
    if given is not None:
        meaning = given.strip().lower()
        return (_label(meaning, folds, space) if meaning in MEANINGS else given), "--label-map"
    if squash_rating(rating) in {squash_rating(label) for label in asked.excluded}:
        return _label(EXCLUDED, folds, space), "--exclude-label"
    meant = ratings.meaning(rating)
    if meant is not None:
        label = _label(meant[0], folds, space)
        return (label, meant[1]) if label else (None, f"means {meant[0]}, which {space.name} has no label for")
    meanings = {numeric_meaning(*numbers) for numbers in found.numbers}
    if len(meanings) == 1 and None not in meanings:
        (meaning,) = meanings
        label = _label(meaning, folds, space)
        if label:
            return label, f"its number, {_scale(found.numbers)}"
    if len(meanings) > 1:
        return None, f"its numbers disagree ({_scale(found.numbers)})"
    return None, "not in the rating map"


def _label(meaning: str, folds: dict, space: LabelSpace) -> str | None:
    if meaning == EXCLUDED:
        return folds.get(EXCLUDED) or (space.excluded[0] if space.excluded else EXCLUDED_LABEL)
    return folds.get(meaning)


def _scale(numbers: set) -> str:
    shown = sorted(numbers, key=lambda n: tuple(x if x is not None else -1 for x in n))[:3]
    return ", ".join(
        f"{value} of {1 if worst is None else worst}-{5 if best is None else best}" for value, best, worst in shown
    )


def _unmapped(unmapped: list, space: LabelSpace) -> BadInput:
    unmapped.sort(key=lambda item: -item[1].count)
    listed = "; ".join(
        f"{rating!r} ({found.count:,}, first on {_where(found.first)}: {why})" for rating, found, why in unmapped[:30]
    )
    more = f"; and {len(unmapped) - 30} more" if len(unmapped) > 30 else ""
    first = min(
        (found.first for _, found, _ in unmapped), key=lambda d: (d.reader.located.record, d.reader.located.line or 0)
    )
    example = unmapped[0][0]
    return first.reader.fail(
        first.source_names.get("raw_label", "rating"),
        f"{len(unmapped):,} rating{'s' if len(unmapped) != 1 else ''} cannot be folded into {space.name}"
        f" ({', '.join(space.all_gold)}): {listed}{more}. Fold each: give it a meaning under [ratings] in your"
        f" config or a --rating-map file ({', '.join(MEANINGS)}), or --label-map {example!r}=MEANING_OR_LABEL,"
        f" or keep it out of scores with --exclude-label {example!r}",
    )


def _where(draft) -> str:
    located = draft.reader.located
    return f"line {located.line}" if located.line is not None else f"record {located.record}"


def _note(plan, how: list, space: LabelSpace) -> None:
    """One note per label: the ratings folded into it, commonest first (how, when not the map)."""
    for label in dict.fromkeys(label for label, *_ in sorted(how, key=lambda item: -item[2])):
        mine = sorted((item for item in how if item[0] == label), key=lambda item: -item[2])
        parts = [
            f"{rating!r} {count:,}" + ("" if why == "the rating map" else f" (by {why})")
            for _, rating, count, why in mine
        ]
        plan.warnings.note(
            f"ratings folded into {space.name} {label}: "
            + ", ".join(parts[:SHOWN])
            + (f", and {len(parts) - SHOWN} more" if len(parts) > SHOWN else "")
        )


__all__ = ["MEANINGS", "RatingMap", "numeric_meaning", "rating_map", "rating_reader", "squash_rating"]
