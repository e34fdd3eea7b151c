"""Counts in words: "1 attempt", "2 attempts", "1,204 claims" (no rich, no click: any layer may use it)."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`count` and `noun`, the noun plural unless the count is exactly one (`plural`
    when adding an s is wrong, e.g. counted(n, "entry", "entries"))."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
