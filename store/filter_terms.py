"""The filter language's words: a filter split into terms, each with its place in the text.

    label:Refuted -"a phrase" run:gpt4 wrong   ->   Term(field="label", op=":", value="Refuted"), ...

Compiling the terms to SQL is store.filters' job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from store.filter_outcome import FilterError

_TERM = re.compile(r'(-?)(?:"((?:[^"\\]|\\.)*)"|([^\s"]+(?:"(?:[^"\\]|\\.)*")?))')
_FIELD = re.compile(r"^([A-Za-z_][A-Za-z0-9_.\-]*)(<=|>=|:|<|>|=)(.*)$", re.S)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""Control characters (tab, newline and carriage return separate terms like spaces)."""


@dataclass
class Term:
    negated: bool
    field: str | None  # None for full-text words
    op: str | None
    value: str
    start: int
    end: int
    quoted: bool = False


def parse_terms(text: str) -> list[Term]:
    """Split the filter into terms, keeping each one's position for error messages."""
    control = _CONTROL.search(text)
    if control:  # e.g. a pasted NUL, which SQLite's full-text engine cannot take
        raise FilterError(
            f"a filter is plain text, and this one holds the control character \\x{ord(control.group()):02x}",
            control.start(),
            control.end(),
        )
    terms: list[Term] = []
    pos = 0
    while pos < len(text):
        if text[pos].isspace():
            pos += 1
            continue
        m = _TERM.match(text, pos)
        if not m or m.end() == pos:
            raise FilterError(f"unbalanced quote in {text[pos:]!r}", pos, len(text))
        if m.end() < len(text) and text[m.end()] == '"':
            raise FilterError(f"unbalanced quote in {text[pos:]!r}", pos, len(text))
        negated = m.group(1) == "-"
        if m.group(2) is not None:
            terms.append(Term(negated, None, None, _unescape(m.group(2)), pos, m.end(), True))
        else:
            terms.append(_field_term(m.group(3), negated, pos, m.end()))
        pos = m.end()
    return terms


def _field_term(raw: str, negated: bool, start: int, end: int) -> Term:
    m = _FIELD.match(raw)
    if not m:
        return Term(negated, None, None, raw, start, end)
    name, op, value = _field_name(m.group(1)), m.group(2), m.group(3)
    quoted = value.startswith('"')
    if quoted:
        if len(value) < 2 or not value.endswith('"'):
            raise FilterError(f"unbalanced quote in {raw!r}", start, end)
        value = _unescape(value[1:-1])
    if value == "" and not quoted:
        raise FilterError(f"{name}{op} needs a value", start, end)
    return Term(negated, name, op, value, start, end, quoted)


def _field_name(raw: str) -> str:
    """Field names are read in any case, except an attribute's own name: attributes are
    named as the file named them (attr.location_ISO_code)."""
    if raw[:5].lower() == "attr.":
        return "attr." + raw[5:]
    return raw.lower()


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)
