"""The publisher step: claims checked by a publisher on the user's allow-list.

The list is the user's (the IFCN signatories, say; the workbench ships none): one
publisher a line, by name ("Harbour Truth") or by site ("harbourtruth.example", an address
works too); blank lines and # comments are skipped. A site matches its subdomains; a name
matches ignoring case, accents, spacing and punctuation.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from store import CurationRow
from workbench.curation import CurationError


def _squashed(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if ch.isalnum() and not unicodedata.combining(ch))


def _host(text: str | None) -> str | None:
    if not text:
        return None
    host = urlsplit(text if "://" in text else "//" + text).hostname
    return host.lower().removeprefix("www.") if host else None


@dataclass
class AllowList:
    path: Path
    sites: dict[str, str] = field(default_factory=dict)
    """Host -> the line as written."""
    names: dict[str, str] = field(default_factory=dict)
    """Squashed name -> the line as written."""

    @property
    def entries(self) -> list[str]:
        return [*self.names.values(), *self.sites.values()]

    def match(self, name: str | None, site: str | None) -> str | None:
        """The entry a publisher matches, or None."""
        host = _host(site)
        while host:
            if host in self.sites:
                return self.sites[host]
            host = host.partition(".")[2] if host.count(".") > 1 else None
        return self.names.get(_squashed(name)) if name else None


def read_allow_list(path: Path) -> AllowList:
    """The allow-list in a file; CurationError naming the file (and line) when it cannot be used."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise CurationError(f"{path}: no such file (--publishers names your allow-list of publishers)") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CurationError(f"{path}: cannot be read as UTF-8 text: {error}") from None
    found = AllowList(path)
    for number, line in enumerate(text.splitlines(), start=1):
        entry = line.split("#", 1)[0].strip()
        if not entry:
            continue
        if " " not in entry and "." in entry:
            host = _host(entry)
            if not host:
                raise CurationError(f"{path}:{number}: {entry!r} is neither a publisher's name nor a site")
            found.sites[host] = entry
        elif _squashed(entry):
            found.names[_squashed(entry)] = entry
        else:
            raise CurationError(f"{path}:{number}: {entry!r} names no publisher")
    if not found.entries:
        raise CurationError(f"{path}: names no publisher (one name or site a line)")
    return found


def not_allowed(rows: list[CurationRow], allowed: AllowList) -> tuple[dict[int, str], list[str]]:
    """(claim id -> why for the claims whose publisher is not allowed, the entries nothing matched)."""
    removed, used = {}, set()
    for row in rows:
        name, site = row.attributes.get("publisher"), row.attributes.get("publisher_site")
        entry = allowed.match(name if isinstance(name, str) else None, site if isinstance(site, str) else None)
        if entry is not None:
            used.add(entry)
        elif not name and not site:
            removed[row.id] = "no publisher named in the review"
        else:
            shown = " ".join(part for part in (str(name or ""), f"({site})" if site else "") if part)
            removed[row.id] = f"publisher {shown} is not on the allow-list {allowed.path.name}"
    return removed, [entry for entry in allowed.entries if entry not in used]


__all__ = ["AllowList", "not_allowed", "read_allow_list"]
