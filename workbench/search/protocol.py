"""How a search run talks to its model: the tools (native tool calling) or the text
protocol (SEARCH: / READ: lines), the instructions (prompts/search_agent.toml), and the
results as the model reads them."""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from workbench.prompt_templates import TemplateError, placeholders, template_dirs

TOOLS = [
    {"name": "search", "description": "Search the web (or the document collection) and get numbered results.",
     "parameters": {"type": "object", "properties": {"query": {"type": "string", "description": "The query."}},
                    "required": ["query"], "additionalProperties": False}},
    {"name": "read", "description": "Read the text of one result, by its number.",
     "parameters": {"type": "object", "properties": {"result": {"type": "integer", "description": "Its number."}},
                    "required": ["result"], "additionalProperties": False}},
]
READ_CHARS = 4000
"""At most this much of a page is handed to the model (a page can be a book)."""
_ACTION = re.compile(r"^\s*(SEARCH|READ)\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
_KEYS = {"native": {"max_searches"}, "text": {"max_searches"}, "results": {"query", "results"},
         "none": {"query"}, "limit": {"max_searches"}}


@dataclass(frozen=True)
class Wording:
    """prompts/search_agent.toml (or the user's copy in prompts_dir)."""

    native: str
    text: str
    results: str
    none: str
    limit: str
    content_hash: str


def load_wording(extra: Path | None = None) -> Wording:
    path = next((folder / "search_agent.toml" for folder in reversed(template_dirs(extra))
                 if (folder / "search_agent.toml").is_file()), None)
    if path is None:
        raise TemplateError("no search_agent.toml among the prompt templates")
    raw = path.read_bytes()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise TemplateError(f"{path}: not valid TOML: {error}") from None
    for key, allowed in _KEYS.items():
        if not isinstance(data.get(key), str):
            raise TemplateError(f"{path}: `{key}` must be text")
        unknown = placeholders(data[key], f"{path}: {key}") - allowed
        if unknown:
            raise TemplateError(f"{path}: {key} uses unknown placeholder(s) {', '.join(sorted(unknown))}")
    import hashlib

    return Wording(*(data[key] for key in _KEYS), hashlib.sha256(raw).hexdigest())


@dataclass(frozen=True)
class Action:
    """A tool use the model asked for, however it asked."""

    tool: str
    """search, read, or what the model called (an unknown tool)."""
    query: str | None = None
    result: int | None = None
    arguments: str | None = None
    problem: str | None = None
    """Why it cannot be done (malformed arguments, an unknown tool)."""


def native_action(name: str, arguments: str) -> Action:
    try:
        given = json.loads(arguments or "{}")
    except ValueError:
        return Action(name, arguments=arguments, problem=f"the arguments of {name} are not JSON: {arguments[:80]!r}")
    if not isinstance(given, dict):
        return Action(name, arguments=arguments, problem=f"the arguments of {name} are not an object")
    if name == "search":
        query = given.get("query")
        if not isinstance(query, str) or not query.strip():
            return Action(name, arguments=arguments, problem="search needs a query (text)")
        return Action("search", query=query.strip(), arguments=arguments)
    if name == "read":
        number = given.get("result")
        if isinstance(number, bool) or not isinstance(number, int):
            return Action(name, arguments=arguments, problem="read needs a result number")
        return Action("read", result=number, arguments=arguments)
    return Action(name, arguments=arguments, problem=f"there is no tool {name!r}; the tools are search and read")


def text_action(text: str) -> Action | None:
    """A SEARCH: or READ: line in a text-protocol answer (None: the model answered)."""
    found = _ACTION.search(text or "")
    if found is None:
        return None
    tool, value = found.group(1).lower(), found.group(2).strip().strip('"')
    if tool == "search":
        return Action("search", query=value, arguments=value) if value else None
    number = value.lstrip("[#").rstrip("]")
    if not number.isdigit():
        return Action("read", arguments=value, problem=f"READ needs a result number, not {value[:40]!r}")
    return Action("read", result=int(number), arguments=value)


def results_text(wording: Wording, query: str, shown: list[tuple[int, object]]) -> str:
    """The results as the model reads them: numbered, title, date, address, snippet."""
    if not shown:
        return wording.none.format(query=query)
    lines = []
    for number, result in shown:
        date = f" ({result.published[:10]})" if result.published else ""
        lines.append(f"[{number}] {result.title or '(no title)'}{date} {result.url or ''}".rstrip())
        if result.snippet:
            lines.append("    " + " ".join(result.snippet.split())[:400])
    return wording.results.format(query=query, results="\n".join(lines))
