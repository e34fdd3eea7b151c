"""A sweep: one model over the same claims in several settings (JSFactCheckBench's twelve),
one run per setting, prepared together and answered together (engine.execute_runs), so
each claim's settings are asked back to back and a local model evaluates what their
prompts share once."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from store import Store
from workbench.prompting import template_settings
from workbench.runs.setup import prepare_run, resolve_template
from workbench.runs.types import PreparedRun, RunRequest, RunSetupError

ALL = "all"


@dataclass
class Sweep:
    runs: list[PreparedRun]
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(setting, why): settings `all` left out because the claims cannot be shown in them."""


def prepare_sweep(store: Store, request: RunRequest, settings: list[str]) -> Sweep:
    """A prepared run per setting (`all`: every setting the template words). Every run is
    checked before any work; if one cannot be used, the runs this call created are removed
    again and the error says which setting failed (a setting `all` added that the claims
    lack evidence for is skipped instead, and said)."""
    wanted, expanded = _settings(store, request, settings)
    sweep, created = Sweep([]), []
    try:
        for setting in wanted:
            named = f"{request.name}-{setting}" if request.name else None
            try:
                prepared = prepare_run(store, dataclasses.replace(request, setting=setting, name=named))
            except RunSetupError as error:
                if setting in expanded and "cannot be used: " in str(error):
                    sweep.skipped.append((setting, _reason(str(error))))
                    continue
                raise RunSetupError(f"setting {setting}: {error}") from None
            sweep.runs.append(prepared)
            if not prepared.resumed:
                created.append(prepared.run.id)
    except BaseException:
        for run_id in created:  # nothing half-made stays behind
            store.runs.delete(run_id)
        raise
    if not sweep.runs:
        raise RunSetupError("no setting of the sweep can be used: " + "; ".join(why for _s, why in sweep.skipped))
    return sweep


def _settings(store: Store, request: RunRequest, settings: list[str]) -> tuple[list[str], set[str]]:
    """The settings asked for, `all` expanded, in order without repeats; and those `all` added."""
    expanded: set[str] = set()
    wanted: list[str] = []
    for setting in settings:
        if setting.strip().lower() == ALL:
            extra = [s for s in template_settings(resolve_template(store, request)) if s not in wanted]
            expanded.update(extra)
            wanted.extend(extra)
        elif setting not in wanted:
            wanted.append(setting)
    return wanted, expanded


def _reason(message: str) -> str:
    """'2 of 2 selected claims have no ...' out of check_claims_have's message."""
    reason = message.split("cannot be used: ", 1)[1]
    return reason.split(" (e.g. claim", 1)[0]
