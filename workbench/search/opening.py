"""Opening any search backend by name: the ones in backends.py, and Serper (serper.py,
which builds on backends.py and so is reached from here, not from there)."""

from __future__ import annotations

from store import Store
from workbench.config import Settings
from workbench.search.backends import SearchBackend, check_search, open_search
from workbench.search.serper import SERPER_URL, SerperSearch


def open_any(name: str, url: str | None, store: Store, settings: Settings) -> SearchBackend:
    """The backend a run asked for; SearchError says what is missing (never a key)."""
    if name == "serper":
        return SerperSearch(url or SERPER_URL, {"X-API-KEY": check_search(name, url, settings)})
    return open_search(name, url, store, settings)
