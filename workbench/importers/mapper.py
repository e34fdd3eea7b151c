"""A field mapping applied to records: each record becomes one claim (or, with `explode`,
one per element), with its evidence items, in the shape the checks and the store take."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from workbench.importers import evidence_shapes as shapes
from workbench.importers import values as convert
from workbench.importers.common import DraftClaim
from workbench.importers.coverage import ReadTree
from workbench.importers.evidence_items import ItemWhere, evidence_kind, note_empty_item, note_oddities
from workbench.importers.images import image_references
from workbench.importers.mapping import EvidenceMapping, FieldMapping, Value
from workbench.importers.paths import MISSING, Context, PathError
from workbench.importers.reading import BadInput, Located, RecordReader
from workbench.importers.warnings import ImportWarnings
from workbench.nlp.passages import find_passage

_SHORT = ("question", "task", "domain", "source", "article_url")
_LONG = ("response", "article_text", "justification")
_DATES = ("reference_time", "claim_date")


class RecordMapper:
    """Records -> draft claims under one mapping, counting what it met on the way."""

    def __init__(self, mapping: FieldMapping, path: Path, warnings: ImportWarnings):
        self.mapping, self.path, self.warnings = mapping, path, warnings
        self.tree = ReadTree.of(mapping)
        self.fields_seen: set[str] = set()
        self.element_fields_seen: set[str] = set()
        """With explode: the fields of the elements that became claims."""
        self.kept_unknown: Counter[str] = Counter()
        self.positional_ids = 0
        self._positional_record = -1
        self.skipped = 0
        self.produced = 0
        self.first_skipped: convert.Where | None = None
        # How the file names each of our fields (for messages), worked out once.
        self.names = {
            name: (value.text.lstrip("$").lstrip(".") or name if value.paths else name)
            for name, value in mapping.fields.items()
        }
        fields = mapping.fields
        self.short = [(name, fields[name]) for name in _SHORT if name in fields]
        self.long = [(name, fields[name]) for name in _LONG if name in fields]
        self.dates = [(name, fields[name]) for name in _DATES if name in fields]
        self.unmapped = {name: None for name in (*_SHORT, *_LONG, *_DATES) if name not in fields}

    def claims(self, located: Located) -> list[DraftClaim]:
        """The claims of one record (none when it has no claim text: a warning says so)."""
        record = located.value
        self.fields_seen.update(record)
        where = convert.Where(
            str(located.path or self.path), located.line, record_shown(located), self.warnings, located
        )
        try:
            contexts = self.mapping.explode.items(Context.of(record)) if self.mapping.explode else [Context.of(record)]
            if self.mapping.explode:
                for context in contexts:
                    if isinstance(context.value, dict):
                        self.element_fields_seen.update(context.value)
            drafts = [
                self._claim(located, where, context, len(contexts) > 1 or self.mapping.explode is not None)
                for context in contexts
            ]
        except PathError as error:
            raise where.error(None, str(error)) from None
        kept = [draft for draft in drafts if draft is not None]
        self.produced += len(kept)
        return kept

    def claim_name(self) -> str:
        return self._name("claim")

    def _claim(self, located: Located, where: convert.Where, context: Context, exploded: bool) -> DraftClaim | None:
        fields = self.mapping.fields
        text = convert.text(self._get("claim", context), where, self._name("claim"))
        if text is None:
            where.warn(self._name("claim"), "no claim text (this record is skipped)", "record without claim text")
            self.skipped += 1
            self.first_skipped = self.first_skipped or where
            return None
        claim = {
            "external_id": self._external_id(located, where, context, exploded),
            "text": text,
            "raw_label": convert.label(self._get("label", context), where, self._name("label")),
            "importance": convert.choice(
                self._get("importance", context), where, "importance", ["Main", "Sub", "Irrelevant"]
            ),
            "claim_start": convert.integer(self._get("claim_start", context), where, "claim_start"),
            "claim_end": convert.integer(self._get("claim_end", context), where, "claim_end"),
            **self.unmapped,
            **{name: convert.text(value.get(context), where, self.names[name]) for name, value in self.short},
            **{name: convert.text(value.get(context), where, self.names[name], long=True) for name, value in self.long},
            **{
                name: convert.date(value.get(context), where, self.names[name], self.mapping.date_formats)
                for name, value in self.dates
            },
            "images": image_references(self._get("images", context), where, self._name("images")),
        }
        pointers: dict[str, Any] = {}
        claim["evidence"] = self.evidence_items(context, where, pointers)
        claim["attributes"] = self._attributes(
            context, where, fields.get("attributes"), self.mapping.attributes, exploded
        )
        self._keep_pointers(claim["attributes"], pointers, where)
        locate_claim(claim)
        reader = RecordReader(located.path or self.path, located, show_record=record_shown(located) is not None)
        return DraftClaim(
            reader,
            claim,
            {"text": self._name("claim"), "raw_label": self._name("label"), "external_id": self._name("id")},
        )

    def _get(self, name: str, context: Context) -> Any:
        value = self.mapping.fields.get(name)
        return value.get(context) if value is not None else MISSING

    def _name(self, name: str) -> str:
        """How the file calls one of our fields (for messages): its path, or our name."""
        return self.names.get(name, name)

    def _external_id(self, located: Located, where: convert.Where, context: Context, exploded: bool) -> str:
        value = self.mapping.fields.get("id")
        found = convert.identifier(value.get(context) if value else MISSING, where, self._name("id"))
        from_record = value is None or all(path.up == -1 for path in value.paths)
        if found is None:
            found = located.key if located.key is not None else str(located.record)
            if located.key is None and located.record != self._positional_record:
                self.positional_ids += 1  # records, not the claims an exploded record makes
                self._positional_record = located.record
            from_record = True
        if exploded and from_record:
            return f"{found}-{context.positions[0]}"
        return found

    def _attributes(
        self, context: Context, where: convert.Where, whole: Value | None, named: dict[str, Value], exploded: bool
    ) -> dict:
        attributes: dict[str, Any] = {}
        if whole is not None:
            found = whole.get(context)
            if isinstance(found, dict):
                attributes.update(convert.attribute_value(found, where, whole.text))
            elif found is not MISSING and found is not None:
                raise where.error(whole.text, f"attributes must be an object, not {type(found).__name__}")
        for name, value in named.items():
            found = value.get(context)
            if found is not MISSING:  # a null the file holds is kept as null
                attributes[name] = convert.attribute_value(found, where, value.text)
        item = context.value if exploded else None
        for name, value in self.tree.claim_leftovers(context.record, item):
            self._keep(attributes, name, value, where)
        return attributes

    def _keep(self, attributes: dict, name: str, value: Any, where: convert.Where) -> None:
        """A value no mapping reads: an attribute (a CSV's attr.NAME column is that attribute)."""
        if name == "_dataset":
            return  # the header line of a workbench file, read by the import plan
        if name.startswith("attr.") and "." not in name[5:]:
            if value not in (None, ""):
                attributes[name[5:]] = convert.attribute_value(convert.attribute_cell(value), where, name)
            return
        if not self.mapping.keep_unknown:
            where.warn(
                name,
                "a field no mapping reads, dropped (the profile sets keep_unknown = false)",
                "unread field dropped",
            )
            return
        key = name
        while key in attributes:  # a named attribute took the name: this value is kept beside it
            key += "'"
        attributes[key] = convert.attribute_value(value, where, name)
        self.kept_unknown[name.split(".")[0].split("[")[0]] += 1

    def evidence_items(self, context: Context, where: convert.Where, pointers: dict | None = None) -> list[dict]:
        """The claim's evidence items, whatever shape the file gives them (evidence_shapes.py);
        values that are no passage (pointer arrays, numbers) go into `pointers`, under the
        file's name for their list, for the caller to keep."""
        items: list[dict] = []
        for index, group in enumerate(self.mapping.evidence):
            name = shapes.list_name(group.each) if group.each is not None else "evidence"
            contexts, whole = (
                shapes.item_contexts(group.each, context, where, name, group.parts)
                if group.each is not None
                else ([context], False)
            )
            for item_context in contexts:
                if group.each is not None and shapes.pointer(item_context.value, group.parts):
                    if pointers is not None:
                        pointers.setdefault(name, []).append(item_context.value)
                    continue
                item = self._item(group, item_context, where, len(items), index)
                if item is not None:
                    items.append(item)
            if pointers and whole and name in pointers:
                (pointers[name],) = pointers[name]  # the field itself, not a list of it
        return items

    def _keep_pointers(self, attributes: dict, pointers: dict, where: convert.Where) -> None:
        """Evidence that is no passage, kept whole as an attribute (beside one of the same name)."""
        for name, value in pointers.items():
            key = name
            while key in attributes:
                key += "'"
            attributes[key] = convert.attribute_value(value, where, name)
            self.warnings.note(shapes.POINTERS_NOTE.format(name=name, key=key))

    def _item(
        self, group: EvidenceMapping, context: Context, where: convert.Where, rank: int, index: int
    ) -> dict | None:
        parts = group.parts
        at = ItemWhere(where, group, context, rank)  # names a part only if a message needs it

        def get(part: str) -> Any:
            value = parts.get(part)
            return value.get(context) if value is not None else MISSING

        question_value = get("question")
        text_part = "answer" if "answer" in parts else "text"
        answer_value = get(text_part)
        if answer_value is MISSING and group.each is not None and shapes.passage(context.value, parts):
            text_part, answer_value = ".", context.value  # a string item is one passage
        item = {
            "kind": evidence_kind(get("kind"), question_value, at, "kind"),
            "rank": rank,
            "url": convert.text(get("url"), at, "url"),
            "title": convert.text(get("title"), at, "title"),
            "text": convert.text(answer_value, at, text_part, long=True),
            "passage": convert.text(get("passage"), at, "passage", long=True),
            "passage_start": convert.integer(get("passage_start"), at, "passage_start"),
            "passage_end": convert.integer(get("passage_end"), at, "passage_end"),
            "is_cited": convert.boolean(get("cited"), at, "cited"),
            "question": convert.text(question_value, at, "question"),
            "answer_type": convert.text(get("answer_type"), at, "answer_type"),
            "explanation": convert.text(get("explanation"), at, "explanation", long=True),
            "attributes": self._item_attributes(group, parts.get("attributes"), context, at),
        }
        for name, value in self.tree.item_leftovers(index, context.value):
            self._keep(item["attributes"], name, value, at)
        starts = convert.sentence_starts(answer_value)
        if starts is not None:  # sentences with line breaks of their own: where each one starts
            item["attributes"]["sentence_starts"] = starts
        if not (item["text"] or item["question"] or item["url"] or item["title"] or item["passage"]):
            if shapes.empty(context.value):
                note_empty_item(context, at, text_part, item["attributes"])
                return None
            at.warn(
                text_part,
                "an evidence item with no text, question, url, title or passage (kept for its"
                f" {', '.join(shapes.held(context.value)) or 'value'})",
                "evidence item without text",
            )
        if context.value is MISSING and item["kind"] == "qa":
            item["attributes"]["no_answers"] = True  # a question with an empty list of answers
        note_oddities(item, question_value, context, at, text_part, "question" in parts)
        locate_passage(item, at, "passage")
        return item

    def _item_attributes(
        self, group: EvidenceMapping, whole: Value | None, context: Context, where: convert.Where
    ) -> dict:
        attributes: dict[str, Any] = {}
        if whole is not None:
            found = whole.get(context)
            if isinstance(found, dict):
                attributes.update(convert.attribute_value(found, where, "attributes"))
        for key, value in group.attributes.items():
            found = value.get(context)
            if found is not MISSING:
                attributes[key] = convert.attribute_value(found, where, key)
        return attributes


def record_shown(located: Located) -> int | None:
    """The record's position, for messages where a line does not say which record (JSON, Parquet)."""
    return located.record if located.line is None or located.show_record else None


def locate_claim(fields: dict) -> None:
    """Find the claim's place in its response when the file gave no offsets."""
    response, text = fields.get("response"), fields.get("text")
    if response and text and fields.get("claim_start") is None:
        start = response.find(text)
        if start >= 0:
            fields["claim_start"], fields["claim_end"] = start, start + len(text)


def locate_passage(item: dict, where: convert.Where, field: str) -> None:
    """Offsets of a quoted passage in its page; a passage not in the page is kept unplaced."""
    passage, text = item.get("passage"), item.get("text")
    if not passage or item.get("passage_start") is not None:
        return
    if not text:
        item["text"] = passage
        text = passage
    span = find_passage(text, passage)  # also despite full/half-width forms and line breaks
    if span is None:
        where.warn(
            field,
            "the quoted passage does not occur in the page text (kept, not highlighted)",
            "quoted passage not in its page",
        )
        return
    item["passage_start"], item["passage_end"] = span


def fields_listing(fields: set[str], limit: int = 30) -> str:
    names = sorted(fields)
    return ", ".join(names[:limit]) + (f", ... ({len(names)} in all)" if len(names) > limit else "")


__all__ = ["RecordMapper", "fields_listing", "locate_claim", "locate_passage", "BadInput"]
