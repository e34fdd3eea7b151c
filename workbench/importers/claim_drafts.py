"""The claims each record of a planned import makes, in file order: read, mapped (or made
by a profile's built-in reader), rows with one id merged, and the mapping checked against
what the file held once the last record is read."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from workbench.importers import values as convert
from workbench.importers.advice import FieldCensus, census_of, header_hint, named_profile, refusal, with_advice
from workbench.importers.common import DraftClaim
from workbench.importers.formats import ReadOptions, read_records
from workbench.importers.images import attach_images
from workbench.importers.mapper import RecordMapper, fields_listing, record_shown
from workbench.importers.mapping import MappingError
from workbench.importers.plans import HEADER_KEY, ImportPlan
from workbench.importers.reading import BadInput, Located, decode_json
from workbench.importers.transforms import TRANSFORMS, TransformContext
from workbench.importers.warnings import ImportWarnings


def draft_claims(plan: ImportPlan, warnings: ImportWarnings | None = None) -> Iterator[DraftClaim]:
    """Every record's claims, in file order; a `_dataset` first line becomes plan.header.

    Raises (after the last record) when a --map field matched no record, or no record had
    claim text: the import that consumes this then rolls back.
    """
    warnings = warnings if warnings is not None else plan.warnings
    read = ReadOptions(plan.read.columns, plan.read.records, plan.read.quoting, warnings, plan.read.meter)
    mapper = RecordMapper(plan.mapping, plan.source.path, warnings)
    transform = TRANSFORMS.get(plan.mapping.transform or "")
    context = TransformContext(plan.source.path, warnings, dict(plan.request.extra_files))
    records = read_records(plan.source, read)
    first = next(records, None)
    if first is not None and HEADER_KEY in first.value:
        first = None  # the _dataset line: read by plan_import
    drafts = (
        _claims(located, plan, mapper, transform, context)
        for located in itertools.chain([first] if first else [], records)
    )
    flat = (draft for claims in drafts for draft in claims)
    yield from (_merged(flat) if plan.mapping.merge_rows else flat)
    _check_mapping_met_the_file(plan, mapper)
    _note(plan, mapper, warnings)


def _claims(located: Located, plan: ImportPlan, mapper: RecordMapper, transform, context) -> list[DraftClaim]:
    if plan.source.format in ("csv", "tsv"):
        _decode_json_cells(located, plan)
    try:
        drafts = transform(located, context) if transform is not None else mapper.claims(located)
    except BadInput as error:
        raise with_advice(plan, error, _census(plan)) from None
    except (KeyError, TypeError, AttributeError, IndexError) as error:
        if transform is None:
            raise
        # A built-in reader met a shape it was not written for: refused, not a traceback.
        where = BadInput(
            located.path or plan.source.path,
            f"cannot be read ({type(error).__name__} {error})",
            line=located.line,
            record=None if located.line else located.record,
        )
        raise refusal(plan, where, _census(plan)) from None
    for draft in drafts:
        if draft.fields.get("images"):
            where = convert.Where(
                str(draft.reader.path), located.line, record_shown(located), context.warnings, located
            )
            attach_images(draft, plan.source.folder, where)
    return drafts


def _decode_json_cells(located: Located, plan: ImportPlan) -> None:
    """CSV cells that a mapping reads as a list or object hold JSON (as `export --format csv` writes)."""
    mapping = plan.mapping
    keys = {group.each.root_key for group in mapping.evidence if group.each is not None}
    keys |= {mapping.explode.root_key} if mapping.explode is not None else set()
    if "attributes" in mapping.fields:
        keys |= mapping.fields["attributes"].root_keys
    record = located.value
    for key in keys:
        value = record.get(key)
        if isinstance(value, str) and not value.strip():
            record[key] = None  # an empty cell where a list or object is read: none
        elif isinstance(value, str) and value.lstrip().startswith(("[", "{")):
            record[key] = decode_json(located.path or plan.source.path, value, located.line, field=key)


def _merged(drafts: Iterator[DraftClaim]) -> Iterator[DraftClaim]:
    """Consecutive drafts with one id as one claim: evidence joined, differing attributes listed."""
    current: DraftClaim | None = None
    listed: set[str] = set()
    for draft in drafts:
        if current is not None and draft.fields["external_id"] == current.fields["external_id"]:
            _merge_into(current.fields, draft.fields, listed)
            continue
        if current is not None:
            yield current
        current, listed = draft, set()
    if current is not None:
        yield current


def _merge_into(fields: dict, more: dict, listed: set[str]) -> None:
    """`more`'s evidence after `fields`'; an attribute that differs becomes the list of its values."""
    for item in more.get("evidence") or []:
        fields["evidence"].append({**item, "rank": len(fields["evidence"])})
    attributes = fields["attributes"]
    for key, value in (more.get("attributes") or {}).items():
        if key not in attributes:
            attributes[key] = value
        elif key in listed:
            attributes[key].append(value)
        elif attributes[key] != value:
            attributes[key] = [attributes[key], value]
            listed.add(key)


def _census(plan: ImportPlan) -> FieldCensus:
    """What the file's fields hold, read once more for an error."""
    return census_of(
        read_records(
            plan.source, ReadOptions(plan.read.columns, plan.read.records, plan.read.quoting, ImportWarnings())
        )
    )


def _check_mapping_met_the_file(plan: ImportPlan, mapper: RecordMapper) -> None:
    path = plan.source.path
    exploded = plan.mapping.explode is not None
    for name in sorted(plan.mapping.given):
        value = plan.mapping.attributes.get(name[5:]) if name.startswith("attr.") else plan.mapping.fields.get(name)
        # With explode a path without $ reads the element: its fields are the ones to look in.
        keys = [
            (read.root_key, mapper.element_fields_seen if exploded and read.up == 0 else mapper.fields_seen)
            for read in (value.paths if value is not None else ())
            if read.root_key is not None
        ]
        if keys and not any(key in found for key, found in keys):
            key, found = keys[0]
            whose = "the file's" if found is mapper.fields_seen else "the exploded elements'"
            raise MappingError(
                f"{path}: --map {name}={value.text}: no record has a field {key!r};"
                f" {whose} fields are {fields_listing(found)}"
            )
    if mapper.skipped and not mapper.produced:
        error = mapper.first_skipped.error(mapper.claim_name(), f"no record has claim text in {mapper.claim_name()!r}")
        if named_profile(plan):
            raise refusal(plan, error, _census(plan))
        error.message += f"; {_census(plan).claim_advice()}{header_hint(plan)}"
        raise error


def _note(plan: ImportPlan, mapper: RecordMapper, warnings: ImportWarnings) -> None:
    if mapper.positional_ids:
        count = mapper.positional_ids
        warnings.note(
            f"{count:,} record{' has' if count == 1 else 's have'} no id: the position in the file"
            " (0, 1, ...) is the id, stable as long as the file's order is"
        )
    if mapper.kept_unknown:
        kept = ", ".join(f"{key}" for key, _ in mapper.kept_unknown.most_common(12))
        more = f" and {len(mapper.kept_unknown) - 12} more" if len(mapper.kept_unknown) > 12 else ""
        warnings.note(f"fields no mapping reads are kept as attributes (filter them as attr.NAME): {kept}{more}")
