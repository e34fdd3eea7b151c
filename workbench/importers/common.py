"""What every import shares: draft claims, the label space a file's labels go into,
duplicate ids, and a digest of each claim's content (tells updated from unchanged)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from store import LabelSpace
from workbench import labels
from workbench.importers.reading import BadInput, RecordReader
from workbench.importers.warnings import ImportWarning, ImportWarnings


@dataclass
class DraftClaim:
    """A claim read from a file, before its label is put in the label space."""

    reader: RecordReader
    fields: dict
    """store.Claim's fields; `raw_label` holds the file's label (None: no gold label)."""
    source_names: dict[str, str] = field(default_factory=dict)
    """Claim field -> the file's name for it, for messages (text -> claim)."""


@dataclass
class LabelReader:
    """Turns the file's labels into gold labels of one label space."""

    space: LabelSpace
    map: dict[str, str] = field(default_factory=dict)
    """File label -> label, before the space's own spellings (keys compared squashed)."""
    own: bool = False
    """The space is the file's own labels (no synonyms: only case and spacing are forgiven)."""
    folds_noted: bool = False
    """Its folds are listed in the notes already (a ClaimReview import lists its ratings')."""

    def __post_init__(self):
        self._map = {labels.squash(key): value for key, value in self.map.items()}
        self._own = {labels.squash(name): name for name in self.space.all_gold}

    def gold(self, raw: str) -> str | None:
        """The gold label for a file label, or None when the space has no place for it."""
        mapped = self.mapped(raw)
        if self.own:
            return self._own.get(labels.squash(mapped))
        return labels.normalise_gold(mapped, self.space)

    def mapped(self, raw: str) -> str:
        """The label after --label-map (the file's own when no map names it)."""
        return self.map.get(raw) or self._map.get(labels.squash(raw), raw)


def own_space(
    name: str, classes: list[str], abstain: str | None = None, excluded: list[str] | None = None
) -> LabelSpace:
    """A label space made of a file's own labels (excluded ones kept but not scored)."""
    excluded = [label for label in (excluded or []) if label]
    gold = [label for label in classes if label not in excluded and label != abstain]
    return LabelSpace(name=name, labels=gold, abstain=abstain, excluded=excluded)


def own_space_note(name: str, found: list[str], asked: str | None) -> str:
    """Why the file's own labels are its label space: `asked` by an option or a profile, or
    because no built-in space takes them (then yes/no get a word: they are no verdicts)."""
    listed = ", ".join(found[:8]) + (", ..." if len(found) > 8 else "")
    if asked:
        return f"the file's own labels are its label space {name!r}, as {asked} asks: {listed}"
    note = (
        f"no built-in label space takes the labels ({listed}) by its names or documented synonyms: the"
        f" file's own labels, as the file spells them, are its label space {name!r}"
    )
    if {labels.squash(label) for label in found} & labels.ANSWER_WORDS:
        note += (
            "; yes and no answer a question rather than name a verdict (--label-space realfactbench reads"
            " them as true and false)"
        )
    return note


def check_claims(
    drafts: Iterable[DraftClaim], reader: LabelReader | None, warnings: ImportWarnings, counts: Counter, path
) -> Iterator[tuple[dict, str]]:
    """Gold labels into the space, duplicate ids refused, each claim with its digest.

    A label the space has no place for is remembered, and after the last claim they are
    named together with their counts (nothing is written). A claim without a label is
    kept unlabelled (left out of scores); `counts` gathers the gold labels.
    """
    seen: dict[str, int | None] = {}
    unknown: Counter[str] = Counter()
    first_unknown: dict[str, DraftClaim] = {}
    unlabelled: list[ImportWarning] = []
    folds: Counter[tuple[str, str]] = Counter()
    total = 0
    for draft in drafts:
        total += 1
        _check_duplicate_id(draft, seen)
        raw = draft.fields["raw_label"]
        if raw is None:
            draft.fields["label"] = None
            counts[None] += 1
            unlabelled.append(_no_label(draft))
        else:
            gold = reader.gold(raw) if reader is not None else None
            if gold is None:
                unknown[raw] += 1
                first_unknown.setdefault(raw, draft)
                continue
            _note_recased(draft, raw, gold, reader, warnings)
            if gold != raw:
                folds[raw, gold] += 1
            draft.fields["label"] = gold
            counts[gold] += 1
        yield draft.fields, content_hash(draft.fields)
    if not total:
        raise BadInput(path, "no claims in the file")
    if unknown:
        raise _unknown_labels(unknown, first_unknown, reader)
    if folds and not reader.folds_noted:
        warnings.note(folds_note(folds, reader))
    if unlabelled and len(unlabelled) < total:
        for warning in unlabelled:  # some claims have a label and these do not: an oddity each
            warnings.add(warning)


def folds_note(folds: Counter, reader: LabelReader) -> str:
    """Every spelling of the file read as another label of the space, with its count:
    "labels folded into realfactbench: 'True' as true 81, 'FALSE' as false 119"."""
    order = {label: n for n, label in enumerate(reader.space.all_gold)}
    listed = sorted(folds.items(), key=lambda item: (order.get(item[0][1], len(order)), -item[1], item[0][0]))
    shown = [
        f"{raw!r} as {gold} {count:,}" + (" (--label-map)" if reader.mapped(raw) != raw else "")
        for (raw, gold), count in listed
    ]  # all of them: a spelling not listed would be lost
    return f"labels folded into {reader.space.name}: {', '.join(shown)}"


def _no_label(draft: DraftClaim) -> ImportWarning:
    located = draft.reader.located
    return ImportWarning(
        str(draft.reader.path),
        "no gold label (kept unlabelled, left out of scores)",
        located.line,
        located.record if located.line is None else None,
        draft.source_names.get("raw_label", "label"),
        "claim without a gold label",
    )


def _note_recased(draft: DraftClaim, raw: str, gold: str, reader: LabelReader, warnings: ImportWarnings) -> None:
    if reader.own and raw != gold and raw not in reader.map and labels.squash(raw) == labels.squash(gold):
        located = draft.reader.located
        warnings.add(
            ImportWarning(
                str(draft.reader.path),
                f"label {raw!r} read as {gold!r}",
                located.line,
                located.record if located.line is None else None,
                draft.source_names.get("raw_label", "label"),
                "label in another case",
            )
        )


def _unknown_labels(unknown: Counter, first: dict[str, DraftClaim], reader: LabelReader | None) -> BadInput:
    listed = ", ".join(
        f"{label!r} ({count:,}, first on {_where(first[label])})" for label, count in unknown.most_common()
    )
    draft = min(first.values(), key=lambda d: (d.reader.located.record, d.reader.located.line or 0))
    if reader is None:
        return draft.reader.fail(draft.source_names.get("raw_label", "label"), f"no label space for labels {listed}")
    space = reader.space
    # Suggest the file's own labels only where they are not already the space (a profile may
    # name its own classes: then only a map helps).
    advice = "map them with --label-map FILE_LABEL=LABEL" + ("" if reader.own else ", or import with --label-space own")
    return draft.reader.fail(
        draft.source_names.get("raw_label", "label"),
        f"unknown labels {listed}; the {space.name} label space has {', '.join(space.all_gold)} ({advice})",
    )


def _where(draft: DraftClaim) -> str:
    located = draft.reader.located
    return f"line {located.line}" if located.line is not None else f"record {located.record}"


def _check_duplicate_id(draft: DraftClaim, seen: dict[str, int | None]) -> None:
    external_id = draft.fields["external_id"]
    located = draft.reader.located
    if external_id in seen:
        first = seen[external_id]
        raise draft.reader.fail(
            draft.source_names.get("external_id", "id"),
            f"duplicate id {external_id!r} (first on {'line' if located.line is not None else 'record'} {first})",
        )
    seen[external_id] = located.line if located.line is not None else located.record


def content_hash(fields: dict) -> str:
    """A digest of everything read for a claim (plain data, so this is cheap).

    Keys are sorted and empty values left out, so the same claim read by two readers
    (a JSFactCheckBench file, then its `workbench export`) counts as unchanged.
    """
    if fields.get("images"):  # an image is its content: the same picture under another path is the same
        fields = {**fields, "images": [image.get("sha256") or image.get("url") for image in fields["images"]]}
    payload = json.dumps(_canonical(fields), default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def _canonical(value):
    if type(value) is dict:
        return {
            key: _canonical(item)
            for key, item in sorted(value.items())
            if item is not None
            and item != ""
            and item != []
            and item != {}
            and not (key == "is_cited" and item is False)
        }
    if type(value) is list:
        return [_canonical(item) for item in value]
    return value
