"""An import from start to end: the source and its format, the profile or mapping, the label
space, then the claims one by one (checked) for the store or for a dry run.

    plan = plan_import(ImportRequest(Path("climate-fever.jsonl")))     # picks climate-fever
    reader = label_reader(plan)                                        # may read the labels first
    for fields, digest in checked_claims(plan, reader): ...
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from store import LabelSpace
from workbench import labels
from workbench.importers import values as convert
from workbench.importers.advice import FieldCensus, census_of, header_hint, named_profile, refusal, with_advice
from workbench.importers.common import DraftClaim, LabelReader, check_claims, own_space, own_space_note
from workbench.importers.formats import ReadOptions, first_row, read_records
from workbench.importers.images import attach_images
from workbench.importers.mapper import RecordMapper, fields_listing, record_shown
from workbench.importers.mapping import FieldMapping, MappingError, map_pairs, mapping_from_dict, merge_specs
from workbench.importers.profiles import FALLBACK, detect, load_profile
from workbench.importers.reading import BadInput, Located, decode_json
from workbench.importers.sniffing import DELIMITER_NAMES, Overrides
from workbench.importers.sources import FILE_FORMATS, Source, open_source
from workbench.importers.transforms import LABEL_READERS, TRANSFORMS, TransformContext
from workbench.importers.warnings import ImportWarnings

HEADER_KEY = "_dataset"


@dataclass
class ImportRequest:
    """What a user asked to import, as `workbench import` takes it."""

    path: Path
    format: str = "auto"
    """A file format (jsonl, json, csv, tsv, parquet, arrow), or a profile's name (older spelling)."""
    profile: str | None = None
    maps: list[str] = field(default_factory=list)
    """--map FIELD=PATH pairs, laid over the profile."""
    dataset: str | None = None
    label_space: str | LabelSpace | None = None
    """A built-in space's name, "own", or a LabelSpace."""
    label_maps: list[str] = field(default_factory=list)
    abstain: str | None = None
    excluded: list[str] = field(default_factory=list)
    split: str | None = None
    columns: list[str] | None = None
    strict: bool = False
    extra_files: dict[str, Path] = field(default_factory=dict)
    encoding: str | None = None
    """--encoding: the file's text encoding (default: read from its bytes)."""
    delimiter: str | None = None
    """--delimiter: a CSV's delimiter (default: sniffed)."""
    header: bool | None = None
    """--header / --no-header: whether a CSV's first row names its columns (default: sniffed)."""


@dataclass
class ImportPlan:
    """A checked request: where the records come from and how each becomes claims."""

    request: ImportRequest
    source: Source
    mapping: FieldMapping
    read: ReadOptions
    warnings: ImportWarnings
    how_picked: str
    """How the profile was chosen, in words ("detected", "--profile", ...)."""
    header: dict | None = None
    """The `_dataset` line of a workbench JSONL file."""
    also_fit: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.request.dataset or (self.header or {}).get("name") or self.source.name_hint


def plan_import(request: ImportRequest, kind: str = "claims") -> ImportPlan:
    """The source opened, the profile (of this kind: claims or predictions) chosen or detected,
    the mapping made; nothing read beyond the first record."""
    profile_name = request.profile
    file_format = request.format
    if file_format not in ("auto", *FILE_FORMATS):  # `--format averitec`: the older spelling of a profile
        profile_name, file_format = profile_name or file_format, "auto"
    if file_format == "auto" and profile_name in ("jsonl", "csv"):
        profile_name, file_format = None, profile_name
    source = open_source(
        Path(request.path), file_format, request.split, Overrides(request.encoding, request.delimiter, request.header)
    )
    warnings = ImportWarnings(strict=request.strict)
    first, row = _first(source, request)
    if first is None and row is None:
        raise BadInput(source.files[0], "the file is empty")
    base, how, also = _base_mapping(source, profile_name, first, row, request, kind)
    mapping = _with_overrides(base, request)
    columns = request.columns or (mapping.read.get("columns") if row is not None else None)
    read = ReadOptions(
        columns=list(columns) if columns and source.format in ("csv", "tsv") else None,
        records=mapping.read.get("records"),
        quoting=mapping.read.get("quoting"),
        warnings=warnings,
    )
    plan = ImportPlan(request, source, mapping, read, warnings, how, also_fit=also)
    for note in source.shape.notes if source.shape is not None else ():
        warnings.note(note)
    if first is not None and HEADER_KEY in first:
        plan.header = _header(plan, first, 1)
    return plan


def _base_mapping(
    source: Source,
    profile_name: str | None,
    first: dict | None,
    row: list[str] | None,
    request: ImportRequest,
    kind: str,
) -> tuple[FieldMapping, str, list[str]]:
    fallback = FALLBACK if kind == "claims" else "predictions"
    if profile_name:
        found = load_profile(profile_name)
        if found.kind != kind:
            command = "workbench import-predictions" if found.kind == "predictions" else "workbench import"
            raise MappingError(f"profile {profile_name!r} reads {found.kind}; use it with `{command}`")
        return found, "--profile", []
    if kind == "claims" and first is not None and HEADER_KEY in first:
        return load_profile(FALLBACK), "a _dataset header line", []
    found, fit = detect(first, row, kind=kind)
    if found is not None:
        return found, "detected", fit
    if fit:
        raise MappingError(f"{source.path}: fits the profiles {', '.join(fit)} equally; choose one with --profile")
    if row is not None and request.columns is None:
        delimiter = DELIMITER_NAMES.get(source.shape.delimiter, repr(source.shape.delimiter))
        raise BadInput(
            source.path,
            f"a CSV/TSV without a header row (read as {delimiter}-delimited) that no profile"
            " knows; name its columns with --columns a,b,c, say --header if its first row names them,"
            " --delimiter CHAR if its rows are split at the wrong character, or choose a --profile",
        )
    return load_profile(fallback), "no other profile fits", []


def _first(source: Source, request: ImportRequest) -> tuple[dict | None, list[str] | None]:
    """The first record, or (for delimited text without a header row) the first row. A first
    row that a headerless profile's `detect_row` fits is data, whatever the sniffer thought."""
    shape = source.shape
    if shape is not None and request.columns is not None and request.header is not True:
        shape.header, shape.columns = False, None  # --columns names a file without a header row
    if source.format in ("csv", "tsv") and request.columns is None and shape is not None:
        row = first_row(source)
        if not shape.header or (request.header is None and detect(None, row)[1]):
            shape.header, shape.columns = False, None
            return None, row
    probe = ReadOptions(columns=request.columns, warnings=ImportWarnings())
    located = next(
        iter(
            read_records(
                Source(
                    source.path, source.files[:1], source.format, source.split, source.splits, source.features, shape
                ),
                probe,
            )
        ),
        None,
    )
    return (located.value if located else None), None


def _with_overrides(base: FieldMapping, request: ImportRequest) -> FieldMapping:
    """The profile with the command line's --map pairs and label options laid over it; the
    result's `spec` is the whole of it as profile tables (what --save-profile writes)."""
    import tomllib

    spec = tomllib.loads(base.source_text) if base.source_text else {}
    if request.maps and base.transform:
        raise MappingError(
            f"profile {base.name!r} reads its files with a built-in function; --map does not apply"
            " (map the file from scratch with --profile workbench --map ...)"
        )
    over = map_pairs(list(request.maps))
    if over.get("explode") and not spec.get("explode"):
        spec = _rooted_at_record(spec)
    spec = merge_specs(spec, over) if request.maps else spec
    table = spec.setdefault("labels", {})
    for pair in request.label_maps:
        raw, sep, label = pair.partition("=")
        if not sep or not raw.strip() or not label.strip():
            raise MappingError(f"--label-map wants FILE_LABEL=LABEL, not {pair!r}")
        table.setdefault("map", {})[raw.strip()] = label.strip()
    if request.abstain:
        table["abstain"] = request.abstain
    if request.excluded:  # beside the profile's own
        known = table.get("excluded") or []
        table["excluded"] = list(dict.fromkeys([*(known if isinstance(known, list) else [known]), *request.excluded]))
    if isinstance(request.label_space, str):
        table["space"] = request.label_space
        table.pop("classes", None) if request.label_space != "own" else None
    mapping = mapping_from_dict(spec, base.name)
    mapping.name = f"{base.name}+map" if request.maps else base.name
    mapping.transform = base.transform
    mapping.given = set(over["fields"]) | {f"attr.{key}" for key in over["attributes"]}
    mapping.spec = spec
    return mapping


def _rooted_at_record(spec: dict) -> dict:
    """A profile written for whole records, used with --map explode=...: its paths go on
    reading the record's fields (the --map pairs say what to read of each element), so a
    record's id, response or source reach every claim it makes."""
    spec = dict(spec)
    for table in ("fields", "attributes"):
        spec[table] = {key: _from_record(value) for key, value in spec.get(table, {}).items()}
    spec["evidence"] = [
        {**group, "each": _from_record(group["each"])} if group.get("each") else group
        for group in spec.get("evidence", [])
    ]
    return spec


def _from_record(value):
    if isinstance(value, list):
        return [_from_record(item) for item in value]
    if isinstance(value, str) and value.strip() and value.strip()[0] not in "=$^#.":
        return "$" + value.strip()
    return value


# -- the claims --------------------------------------------------------------------------------


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


def _header(plan: ImportPlan, record: dict, line: int) -> dict:
    header = record[HEADER_KEY]
    if not isinstance(header, dict):
        raise BadInput(plan.source.path, "the _dataset line must hold an object", line=line, field=HEADER_KEY)
    header = dict(header)
    if header.get("label_space") is not None:
        try:
            header["space"] = labels.space_from_header(header["label_space"])
        except (ValueError, KeyError, TypeError) as error:
            raise BadInput(plan.source.path, str(error), line=line, field=f"{HEADER_KEY}.label_space") from None
    return header


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


# -- labels -------------------------------------------------------------------------------------


def label_reader(plan: ImportPlan, existing: LabelSpace | None = None) -> LabelReader:
    """The label space the claims go into: the one asked for, else the profile's, else the
    one of the dataset being updated (`existing`). A space that depends on the labels
    themselves (none declared, or the file's own without its classes) needs a first pass."""
    own_reader = LABEL_READERS.get(plan.mapping.transform or "")  # a transform that folds its labels
    reader = own_reader(plan, existing, lambda: draft_claims(plan, ImportWarnings())) if own_reader else None
    if reader is not None:
        return reader
    plan_labels = plan.mapping.labels
    declared = plan.request.label_space or (plan.header or {}).get("space") or plan_labels.space or existing
    excluded = plan_labels.excluded
    if isinstance(declared, LabelSpace):
        return LabelReader(
            labels.with_excluded(declared, excluded), plan_labels.map, own=declared.name not in labels.BUILTIN_SPACES
        )
    if declared and declared != "own":
        if declared not in labels.BUILTIN_SPACES:
            raise MappingError(
                f"unknown label space {declared!r}; built-in: {', '.join(labels.BUILTIN_SPACES)},"
                " or own (the file's labels)"
            )
        return LabelReader(labels.with_excluded(labels.BUILTIN_SPACES[declared], excluded), plan_labels.map)
    named_profile = plan.mapping.name not in (FALLBACK, "custom") and not plan.mapping.name.endswith("+map")
    name = plan_labels.name or (plan.mapping.name if named_profile else plan.name)
    if declared == "own" and plan_labels.classes:
        return LabelReader(
            own_space(name, plan_labels.classes, plan_labels.abstain, plan_labels.excluded), plan_labels.map, own=True
        )
    found = file_labels(plan)
    if not found:
        raise BadInput(
            plan.source.path,
            "no claim has a gold label (a test split?): say which labels they are"
            " checked in with --label-space NAME (averitec, jsfactcheck, realfactbench), or pick a"
            " --profile",
        )
    mapped = labels.distinct(plan_labels.map.get(raw, raw) for raw in found)
    space = None if declared == "own" else labels.detect_space(set(mapped))
    if space is not None:
        return LabelReader(labels.with_excluded(space, excluded), plan_labels.map)
    asked = (
        None
        if declared != "own"
        else ("--label-space own" if plan.request.label_space == "own" else f"the profile {plan.mapping.name}")
    )
    plan.warnings.note(own_space_note(name, mapped, asked))
    return LabelReader(own_space(name, mapped, plan_labels.abstain, plan_labels.excluded), plan_labels.map, own=True)


def file_labels(plan: ImportPlan) -> Counter:
    """Every label the file's claims carry, with counts, in order of first appearance."""
    found: Counter = Counter()
    for draft in draft_claims(plan, ImportWarnings()):
        raw = draft.fields["raw_label"]
        if raw is not None:
            found[raw] += 1
    return found


def checked_claims(plan: ImportPlan, reader: LabelReader, counts: Counter) -> Iterator[tuple[dict, str]]:
    """The claims as the store takes them, labels in the space, each with its digest."""
    yield from check_claims(draft_claims(plan), reader, plan.warnings, counts, plan.source.path)
