"""Every key of every screen, found in the code: the help screen lists them and the docs'
keys reference is generated from them, so neither can drift from the bindings.

    for title, owner in binding_owners(WorkbenchApp): owner.BINDINGS ...
"""

from __future__ import annotations

import difflib
import importlib
from pathlib import Path

from textual.binding import Binding
from textual.keys import format_key

import workbench.tui

ORDER = (
    "WorkbenchApp",
    "ClaimsScreen",
    "ClaimTable",
    "FilterBar",
    "ClaimDetailScreen",
    "VerdictList",
    "TriageScreen",
    "AgreementScreen",
    "AdjudicationScreen",
    "MetricsScreen",
    "ContaminationScreen",
    "FlagDialog",
    "ScopeSet",
    "RunDialog",
    "RunPicker",
    "TextViewer",
    "TextPrompt",
    "ConfirmDialog",
    "DatasetsScreen",
    "HelpScreen",
)
"""The order a user meets them; anything else with keys follows, by module."""
TITLES = {
    "WorkbenchApp": "Everywhere",
    "ClaimsScreen": "Claims browser",
    "ClaimTable": "Claims table",
    "FilterBar": "Filter bar",
    "ClaimDetailScreen": "Claim detail",
    "VerdictList": "Verdicts",
    "TriageScreen": "Triage",
    "AgreementScreen": "Agreement (a in triage)",
    "AdjudicationScreen": "Adjudication (d in triage)",
    "MetricsScreen": "Metrics (m)",
    "ContaminationScreen": "Contamination (C)",
    "FlagDialog": "Flag dialog",
    "ScopeSet": "Flag dialog: which claims",
    "RunDialog": "Run dialog",
    "RunPicker": "Runs shown (v)",
    "TextViewer": "Raw output",
    "TextPrompt": "Text prompt",
    "ConfirmDialog": "Confirmation",
    "DatasetsScreen": "Datasets (D)",
    "HelpScreen": "Help",
}


def own_bindings(owner: type) -> list[Binding]:
    """The bindings a class declares itself (not those it inherits)."""
    return [binding for binding in owner.__dict__.get("BINDINGS", []) if isinstance(binding, Binding)]


def binding_owners(app_class: type) -> list[tuple[str, type]]:
    """(title, class) for every class of the TUI that binds keys, the app first."""
    found = {app_class.__name__: app_class}
    for module in _tui_modules():
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == module.__name__
                and own_bindings(value)
                and value.__name__ not in found
            ):
                found[value.__name__] = value
    rank = {name: position for position, name in enumerate(ORDER)}
    names = sorted(found, key=lambda name: (rank.get(name, len(ORDER)), found[name].__module__, name))
    return [(title_of(found[name]), found[name]) for name in names]


def unknown_binding_ids(app_class: type, wanted: list[str]) -> list[tuple[str, str | None]]:
    """(id, the closest known id or None) for each id in `wanted` that no binding has."""
    known = sorted(
        {binding.id for _, owner in binding_owners(app_class) for binding in own_bindings(owner) if binding.id}
    )
    return [
        (given, next(iter(difflib.get_close_matches(given, known, n=1, cutoff=0.6)), None))
        for given in wanted
        if given not in known
    ]


def title_of(owner: type) -> str:
    """How the help names a screen: its KEYS_TITLE, our title, or its class name in words."""
    given = getattr(owner, "KEYS_TITLE", None) or TITLES.get(owner.__name__)
    if given:
        return given
    words = "".join(f" {c}" if c.isupper() else c for c in owner.__name__).strip()
    return words[:1] + words[1:].lower()


def _tui_modules():
    """Every module of the TUI (screens/ and widgets/ are namespace packages: walked as files)."""
    root = Path(workbench.tui.__file__).parent
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] not in ("__main__", "__init__"):
            yield importlib.import_module(".".join(("workbench", "tui", *parts)))


def keys_markdown(app_class: type) -> str:
    """The keys reference page: every screen's keys, as the code binds them."""
    lines = [
        "# Keys",
        "",
        "<!-- Generated from the TUI's bindings by `make docs`; edit the code, not this page. -->",
        "",
        "Every key of every screen, as the code binds it. Each binding has an id: remap it in the",
        'config\'s `[keymap]` table (`"claims.flag" = "ctrl+f"`). `?` or F1 on any screen shows the',
        "keys that apply there.",
        "",
    ]
    for title, owner in binding_owners(app_class):
        lines += [f"## {title}", "", "| keys | does | id |", "|---|---|---|"]
        for binding in _merged(own_bindings(owner)):
            keys = ", ".join(_code(shown_key(key)) for key in binding.key.split(","))
            does = binding.description or binding.action
            if binding.tooltip:
                does += f": {binding.tooltip}"
            lines.append(f"| {keys} | {_cell(does)} | `{binding.id or ''}` |")
        lines.append("")
    return "\n".join(lines)


def shown_key(key: str) -> str:
    """A bound key as the footer and the help show it (`?`, `/`, `]`, `esc`), not Textual's
    name for it (`question_mark`, `slash`, `right_square_bracket`); modifiers spelled out
    (`ctrl+f`), as the config's `[keymap]` takes them."""
    modifiers, name = Binding(key.strip(), "").parse_key()
    return "+".join([*modifiers, format_key(name)])


def _merged(bindings: list[Binding]) -> list[Binding]:
    merged: dict[str, Binding] = {}
    for binding in bindings:
        key = binding.id or binding.action
        known = merged.get(key)
        merged[key] = (
            binding
            if known is None
            else Binding(
                f"{known.key},{binding.key}",
                known.action,
                known.description,
                known.show,
                id=known.id,
                tooltip=known.tooltip,
            )
        )
    return list(merged.values())


def _code(key: str) -> str:
    """A key as Markdown code inside a table cell (a backquote key in double backquotes)."""
    return _cell(f"`` {key} ``" if "`" in key else f"`{key}`")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
