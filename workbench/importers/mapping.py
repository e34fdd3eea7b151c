"""Field mappings: which of a file's fields is which of ours (Inspect's FieldSpec idea,
made fact-check aware: evidence items, label spaces, one record holding many claims).

A mapping comes from a profile (a TOML file, see profiles/) and/or the command line:

    --map claim=statement --map label=verdict --map id=meta.id
    --map evidence=evidences[] --map evidence.text=evidence --map evidence.title=article
    --map attr.speaker=speaker --map explode=segmented_response[]

A value is a path (paths.py), a list of paths (the first one present), or a constant
written with a leading "=" ("=page", "=true").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workbench.errors import WorkbenchError
from workbench.importers.paths import MISSING, Context, Path, PathError, parse_path

CLAIM_FIELDS = (
    "id",
    "claim",
    "label",
    "question",
    "response",
    "claim_start",
    "claim_end",
    "reference_time",
    "claim_date",
    "importance",
    "task",
    "domain",
    "source",
    "justification",
    "article_url",
    "article_text",
    "images",
    "attributes",
)
PREDICTION_FIELDS = (
    "id",
    "claim",
    "verdict",
    "raw_verdict",
    "status",
    "explanation",
    "raw_output",
    "parsed",
    "error",
    "model",
    "attributes",
)
EVIDENCE_PARTS = (
    "kind",
    "url",
    "title",
    "text",
    "answer",
    "passage",
    "passage_start",
    "passage_end",
    "cited",
    "question",
    "answer_type",
    "explanation",
    "attributes",
)
EVIDENCE_KINDS = ("passage", "page", "qa", "article")


class MappingError(WorkbenchError, ValueError):
    """A mapping or profile that cannot be used; the message says what and where."""


@dataclass(frozen=True)
class Value:
    """What a mapping gives one field: the first present of some paths, or a constant."""

    paths: tuple[Path, ...] = ()
    constant: Any = MISSING

    def get(self, context: Context) -> Any:
        if self.constant is not MISSING:
            return self.constant
        if len(self.paths) == 1:
            return self.paths[0].first(context)
        for path in self.paths:
            found = path.first(context)
            if found is not MISSING and found is not None:
                return found
        return MISSING

    @property
    def text(self) -> str:
        if self.constant is not MISSING:
            return f"={self.constant}"
        return " | ".join(path.text for path in self.paths)

    @property
    def root_keys(self) -> set[str]:
        return {key for path in self.paths if (key := path.root_key) is not None}


def parse_value(spec: Any, where: str) -> Value:
    """A Value from a profile or --map: "path", ["path", "other"], "=constant", or a TOML scalar."""
    if isinstance(spec, (bool, int, float)):
        return Value(constant=spec)
    specs = spec if isinstance(spec, list) else [spec]
    if not specs or not all(isinstance(item, str) for item in specs):
        raise MappingError(f"{where}: a path, a list of paths or a constant, not {spec!r}")
    if len(specs) == 1 and specs[0].startswith("="):
        return Value(constant=_constant(specs[0][1:]))
    try:
        return Value(tuple(parse_path(item) for item in specs))
    except PathError as error:
        raise MappingError(f"{where}: {error}") from None


def _constant(text: str) -> Any:
    return {"true": True, "false": False}.get(text.lower(), text)


@dataclass
class EvidenceMapping:
    """One group of evidence items: `each` fans out to the items (None: the claim itself is
    the one item); parts and attributes are read from each item."""

    each: Path | None = None
    parts: dict[str, Value] = field(default_factory=dict)
    attributes: dict[str, Value] = field(default_factory=dict)

    @property
    def root_keys(self) -> set[str]:
        keys = {self.each.root_key} if self.each is not None and self.each.root_key else set()
        if self.each is None:
            for value in (*self.parts.values(), *self.attributes.values()):
                keys |= value.root_keys
        return keys


@dataclass
class LabelPlan:
    """How gold labels become a label space."""

    space: str | None = None
    """A built-in space's name, "own" (the file's labels), or None (found from the labels)."""
    classes: list[str] | None = None
    """For an own space: the gold classes in order (None: every label the file has)."""
    map: dict[str, str] = field(default_factory=dict)
    """File label -> label (renames and folds; matched ignoring case and spacing)."""
    abstain: str | None = None
    excluded: list[str] = field(default_factory=list)
    name: str | None = None
    """An own space's name (default: the profile's)."""


@dataclass
class FieldMapping:
    """Everything a profile or the command line says about reading one kind of file."""

    name: str = "custom"
    description: str = ""
    kind: str = "claims"
    """claims (a benchmark) or predictions (answers made elsewhere, imported as a run)."""
    fields: dict[str, Value] = field(default_factory=dict)
    attributes: dict[str, Value] = field(default_factory=dict)
    evidence: list[EvidenceMapping] = field(default_factory=list)
    labels: LabelPlan = field(default_factory=LabelPlan)
    explode: Path | None = None
    """One claim per element this fans out to (e.g. each segment of an answer)."""
    keep_unknown: bool = True
    """Top-level fields nothing reads are kept as attributes."""
    merge_rows: bool = False
    """Consecutive rows with the same id are one claim (one row per evidence item)."""
    transform: str | None = None
    """A built-in function for a file no mapping can describe (transforms.py)."""
    date_formats: tuple[str, ...] = ()
    detect: list[list[str]] = field(default_factory=list)
    """Alternative sets of fields whose presence in the first record picks this profile."""
    detect_row: dict[str, str] = field(default_factory=dict)
    """For headerless CSV/TSV: column position -> regular expression its first row matches."""
    detect_match: dict[str, str] = field(default_factory=dict)
    """Field -> regular expression its value in the first record must match too."""
    read: dict[str, Any] = field(default_factory=dict)
    """columns, records, quoting, format: how to read the file (formats.ReadOptions)."""
    cluster: str | None = None
    """The field whose claims are not independent (JSFactCheckBench: the question they answer):
    intervals and paired tests resample its values unless --cluster says otherwise."""
    given: set[str] = field(default_factory=set)
    """Fields the user mapped on the command line (a path there must exist in the file)."""
    source_text: str | None = None
    """The profile's TOML, when it came from a file."""
    spec: dict = field(default_factory=dict)
    """Everything above as profile tables (with the command line's pairs laid over)."""


def mapping_from_dict(spec: dict, name: str = "custom") -> FieldMapping:
    """A FieldMapping from a profile's tables (TOML) or from --map pairs (as the same dict)."""
    mapping = FieldMapping(
        name=str(spec.get("name", name)),
        description=str(spec.get("description", "")),
        kind=str(spec.get("kind", "claims")),
    )
    if mapping.kind not in ("claims", "predictions"):
        raise MappingError(f"kind: claims or predictions, not {mapping.kind!r}")
    known = PREDICTION_FIELDS if mapping.kind == "predictions" else CLAIM_FIELDS
    mapping.fields = _values(spec.get("fields", {}), known, "fields")
    mapping.attributes = {
        str(key): parse_value(path, f"attributes.{key}") for key, path in spec.get("attributes", {}).items()
    }
    evidence = spec.get("evidence", [])
    for index, group in enumerate(evidence if isinstance(evidence, list) else [evidence]):
        mapping.evidence.append(_evidence(group, f"evidence[{index}]"))
    mapping.labels = _labels(spec.get("labels", {}))
    if spec.get("explode"):
        mapping.explode = _path(spec["explode"], "explode")
    mapping.keep_unknown = bool(spec.get("keep_unknown", True))
    mapping.merge_rows = bool(spec.get("merge_rows", False))
    mapping.transform = spec.get("transform")
    mapping.date_formats = tuple(spec.get("read", {}).get("date_formats", ()))
    detect = spec.get("detect", [])
    mapping.detect = (
        [list(item) for item in detect]
        if detect and isinstance(detect[0], list)
        else ([list(detect)] if detect else [])
    )
    mapping.detect_row = {str(key): str(value) for key, value in spec.get("detect_row", {}).items()}
    mapping.detect_match = {str(key): str(value) for key, value in spec.get("detect_match", {}).items()}
    mapping.read = dict(spec.get("read", {}))
    mapping.cluster = str(spec["cluster"]) if spec.get("cluster") else None
    return mapping


def _values(table: dict, known: tuple[str, ...], where: str) -> dict[str, Value]:
    values = {}
    for key, spec in table.items():
        if key not in known:
            raise MappingError(f"{where}: no field {key!r} to map{_close(key, known)}; ours are {', '.join(known)}")
        values[key] = parse_value(spec, f"{where}.{key}")
    return values


def _evidence(group: Any, where: str) -> EvidenceMapping:
    if not isinstance(group, dict):
        raise MappingError(f"{where}: a table of evidence parts, not {group!r}")
    named = group.get("attributes") if isinstance(group.get("attributes"), dict) else {}
    # attributes = "PATH" takes a whole object; an [evidence.attributes] table names each one.
    parts = {key: value for key, value in group.items() if key != "each" and not (key == "attributes" and named)}
    mapped = EvidenceMapping(each=_path(group["each"], f"{where}.each") if group.get("each") else None)
    mapped.parts = _values(parts, EVIDENCE_PARTS, where)
    mapped.attributes = {str(key): parse_value(path, f"{where}.attributes.{key}") for key, path in named.items()}
    kind = mapped.parts.get("kind")
    if kind is not None and kind.constant is not MISSING and kind.constant not in EVIDENCE_KINDS:
        raise MappingError(f"{where}.kind: {kind.constant!r} is not one of {', '.join(EVIDENCE_KINDS)}")
    return mapped


def _labels(table: dict) -> LabelPlan:
    excluded = table.get("excluded", [])
    return LabelPlan(
        space=table.get("space"),
        classes=list(table["classes"]) if table.get("classes") else None,
        map={str(key): str(value) for key, value in table.get("map", {}).items()},
        abstain=table.get("abstain"),
        excluded=list(excluded if isinstance(excluded, list) else [excluded]),
        name=table.get("name"),
    )


def _path(spec: Any, where: str) -> Path:
    if not isinstance(spec, str):
        raise MappingError(f"{where}: a path, not {spec!r}")
    try:
        return parse_path(spec)
    except PathError as error:
        raise MappingError(f"{where}: {error}") from None


def _close(key: str, known: tuple[str, ...]) -> str:
    import difflib  # only to suggest a name for a misspelled one

    close = difflib.get_close_matches(key, known, n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def map_pairs(pairs: list[str]) -> dict:
    """--map FIELD=PATH pairs as the dict a profile's tables make (to merge over one)."""
    spec: dict = {"fields": {}, "attributes": {}}
    evidence: dict = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key or not value.strip():
            raise MappingError(f"--map wants FIELD=PATH, not {pair!r} (e.g. --map claim=statement)")
        value = value.strip()
        if key == "explode":
            spec["explode"] = value
        elif key.startswith("attr."):
            spec["attributes"][key[5:]] = value
        elif key == "evidence":
            evidence["each"] = value
        elif key.startswith("evidence.attr."):
            evidence.setdefault("attributes", {})[key[len("evidence.attr.") :]] = value
        elif key.startswith("evidence."):
            evidence[key[len("evidence.") :]] = value
        else:
            spec["fields"][key] = value
    if evidence:
        spec["evidence"] = [evidence]
    return spec


def merge_specs(base: dict, over: dict) -> dict:
    """A profile's tables with --map pairs laid over them (a pair replaces the same field)."""
    merged = {**base}
    merged["fields"] = {**base.get("fields", {}), **over.get("fields", {})}
    merged["attributes"] = {**base.get("attributes", {}), **over.get("attributes", {})}
    if over.get("explode"):
        merged["explode"] = over["explode"]
    if over.get("evidence"):
        groups = [dict(group) for group in base.get("evidence", [])] or [{}]
        extra = over["evidence"][0]
        first = {**groups[0], **{k: v for k, v in extra.items() if k != "attributes"}}
        if extra.get("attributes"):  # named attributes join (or replace a whole-object path)
            named = groups[0].get("attributes") if isinstance(groups[0].get("attributes"), dict) else {}
            first["attributes"] = {**named, **extra["attributes"]}
        groups[0] = first
        merged["evidence"] = groups
    return merged
