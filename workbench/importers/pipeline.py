"""An import from start to end: the source and its format, the profile or mapping, the label
space, then the claims one by one (checked) for the store or for a dry run.

    plan = plan_import(ImportRequest(Path("climate-fever.jsonl")))     # picks climate-fever
    reader = label_reader(plan)                                        # may read the labels first
    for fields, digest in checked_claims(plan, reader): ...
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from store import LabelSpace
from workbench import labels
from workbench.importers.claim_drafts import draft_claims
from workbench.importers.common import LabelReader, check_claims, own_space, own_space_note
from workbench.importers.formats import ReadOptions, first_row, read_records
from workbench.importers.mapping import FieldMapping, MappingError, map_pairs, mapping_from_dict, merge_specs
from workbench.importers.plans import HEADER_KEY, ImportPlan, ImportRequest
from workbench.importers.profiles import FALLBACK, detect, load_profile
from workbench.importers.reading import BadInput
from workbench.importers.sniffing import DELIMITER_NAMES, Overrides
from workbench.importers.sources import FILE_FORMATS, Source, open_source
from workbench.importers.transforms import LABEL_READERS
from workbench.importers.warnings import ImportWarnings


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
