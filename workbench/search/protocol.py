"""How a search run talks to its model: the tools (native tool calling) or the text
protocol (SEARCH: / READ: lines), the instructions (prompts/search_agent.toml), and the
results as the model reads them."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from workbench.prompting import TemplateError, placeholders, read_template_file, template_files

TOOLS = [
    {
        "name": "search",
        "description": "Search the web (or the document collection) and get numbered results.",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "The query."}},
            "required": ["query"],
            "additionalProperties": False,
        },
    },
    {
        "name": "read",
        "description": "Read the text of one result, by its number.",
        "parameters": {
            "type": "object",
            "properties": {"result": {"type": "integer", "description": "Its number."}},
            "required": ["result"],
            "additionalProperties": False,
        },
    },
]
SEARCH_IMAGES = {
    "name": "search_images",
    "description": "Search the web for images and get numbered image results.",
    "parameters": {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "The query."}},
        "required": ["query"],
        "additionalProperties": False,
    },
}
VIEW_IMAGE = {
    "name": "view_image",
    "description": "Look at one image result, by its number.",
    "parameters": {
        "type": "object",
        "properties": {"image": {"type": "integer", "description": "Its number."}},
        "required": ["image"],
        "additionalProperties": False,
    },
}
SEARCH_BY_IMAGE = {
    "name": "search_by_image",
    "description": "Find pages that show the claim's own image (a reverse image search).",
    "parameters": {
        "type": "object",
        "properties": {"image": {"type": "integer", "description": ("Which of the claim's images (1 for the first).")}},
        "required": [],
        "additionalProperties": False,
    },
}
READ_CHARS = 4000
"""At most this much of a page is handed to the model (a page can be a book)."""
_ACTION = re.compile(r"^\s*(SEARCH|READ|IMAGES|VIEW|REVERSE)\s*:\s*(.*?)\s*$", re.IGNORECASE | re.MULTILINE)
_TEXT_TOOLS = {
    "search": "search",
    "read": "read",
    "images": "search_images",
    "view": "view_image",
    "reverse": "search_by_image",
}
_KEYS = {
    "native": {"max_searches"},
    "text": {"max_searches"},
    "results": {"query", "results"},
    "none": {"query"},
    "limit": {"max_searches"},
}
_IMAGE_KEYS = {
    "images_native": set(),
    "images_text": set(),
    "view_native": {"max_images"},
    "view_text": {"max_images"},
    "by_image_native": set(),
    "by_image_text": set(),
    "image_results": {"query", "results"},
    "no_images": {"query"},
    "by_image_results": {"number", "results"},
    "blind": set(),
}
"""Wording for image search; a user's copy of the file without them gets the built-in ones."""


@dataclass(frozen=True)
class Wording:
    """prompts/search_agent.toml (or the user's copy in prompts_dir)."""

    native: str
    text: str
    results: str
    none: str
    limit: str
    content_hash: str
    images: dict[str, str] = field(default_factory=dict)
    """The image-search wording (_IMAGE_KEYS)."""


def load_wording(extra: Path | None = None) -> Wording:
    files = template_files("search_agent", extra)
    if not files:
        raise TemplateError("no search_agent.toml among the prompt templates")
    file = read_template_file(files[0])
    data = file.data
    _check(file.path, data, _KEYS)
    images = {key: data[key] for key in _IMAGE_KEYS if isinstance(data.get(key), str)}
    if len(images) < len(_IMAGE_KEYS):  # an older copy: the built-in file's image wording
        built_in = read_template_file(files[-1])
        _check(built_in.path, built_in.data, _IMAGE_KEYS)
        images = {**built_in.data, **images}
    _check(file.path, images, _IMAGE_KEYS)
    return Wording(*(data[key] for key in _KEYS), file.content_hash, {key: images[key] for key in _IMAGE_KEYS})


def _check(path: Path, data: dict, keys: dict[str, set[str]]) -> None:
    for key, allowed in keys.items():
        if not isinstance(data.get(key), str):
            raise TemplateError(f"{path}: `{key}` must be text")
        unknown = placeholders(data[key], f"{path}: {key}") - allowed
        if unknown:
            raise TemplateError(f"{path}: {key} uses unknown placeholder(s) {', '.join(sorted(unknown))}")


@dataclass(frozen=True)
class Action:
    """A tool use the model asked for, however it asked."""

    tool: str
    """search, read, search_images, view_image, search_by_image, or what the model called
    (an unknown tool)."""
    query: str | None = None
    result: int | None = None
    """The number of the result (read), image (view_image) or claim image (search_by_image)."""
    arguments: str | None = None
    problem: str | None = None
    """Why it cannot be done (malformed arguments, an unknown tool)."""


def tools_for(image_search: bool, vision: bool, by_image: bool) -> list[dict]:
    """The native tools a claim's model is given: search and read, and with image search
    search_images, view_image (a model that takes images) and search_by_image (a backend
    that has it, for a claim with an image)."""
    tools = list(TOOLS)
    if image_search:
        tools.append(SEARCH_IMAGES)
        tools += [VIEW_IMAGE] if vision else []
        tools += [SEARCH_BY_IMAGE] if by_image else []
    return tools


def native_action(name: str, arguments: str, known: tuple[str, ...] = ("search", "read")) -> Action:
    """The action a native tool call asks for; `known`: the tools the model was given."""
    try:
        given = json.loads(arguments or "{}")
    except ValueError:
        return Action(name, arguments=arguments, problem=f"the arguments of {name} are not JSON: {arguments[:80]!r}")
    if not isinstance(given, dict):
        return Action(name, arguments=arguments, problem=f"the arguments of {name} are not an object")
    if name not in known:
        return Action(name, arguments=arguments, problem=f"there is no tool {name!r}; the tools are {_listing(known)}")
    if name in ("search", "search_images"):
        query = given.get("query")
        if not isinstance(query, str) or not query.strip():
            return Action(name, arguments=arguments, problem=f"{name} needs a query (text)")
        return Action(name, query=query.strip(), arguments=arguments)
    key = "result" if name == "read" else "image"
    number = given.get(key, 1 if name == "search_by_image" else None)
    if isinstance(number, bool) or not isinstance(number, int):
        return Action(
            name, arguments=arguments, problem=f"{name} needs {'a result' if key == 'result' else 'an image'} number"
        )
    return Action(name, result=number, arguments=arguments)


def text_action(text: str, known: tuple[str, ...] = ("search", "read")) -> Action | None:
    """A SEARCH:, READ:, IMAGES:, VIEW: or REVERSE: line in a text-protocol answer (None:
    the model answered). `known`: the tools this model was taught."""
    found = _ACTION.search(text or "")
    if found is None:
        return None
    tool, value = _TEXT_TOOLS[found.group(1).lower()], found.group(2).strip().strip('"')
    if tool not in known:
        return Action(
            tool,
            arguments=value,
            problem=f"there is no {found.group(1).upper()} line here; write {_listing([_line(t) for t in known])}",
        )
    if tool in ("search", "search_images"):
        return Action(tool, query=value, arguments=value) if value else None
    if tool == "search_by_image" and not value:
        return Action(tool, result=1, arguments=value)
    number = value.lstrip("[#").rstrip("]")
    if not number.isdigit():
        return Action(tool, arguments=value, problem=f"{found.group(1).upper()} needs a number, not {value[:40]!r}")
    return Action(tool, result=int(number), arguments=value)


def _line(tool: str) -> str:
    return next(word.upper() for word, name in _TEXT_TOOLS.items() if name == tool) + ":"


def _listing(names) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


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


def image_lines(shown: list[tuple[int, object]], vision: bool) -> str:
    """Image results as the model reads them: numbered, title, site and page (a model that
    takes images is also told the picture's address; one that does not, only where it is)."""
    lines = []
    for number, result in shown:
        date = f" ({result.published[:10]})" if result.published else ""
        where = " · ".join(part for part in (result.source, result.url) if part) or "(no page)"
        lines.append(f"[image {number}] {' '.join((result.title or '(no title)').split())[:160]}{date} — {where}")
        if vision and result.image_url:
            lines.append(f"    picture: {result.image_url}")
    return "\n".join(lines)
