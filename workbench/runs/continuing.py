"""Which run a `run` command answers into: a new one, or an unfinished one it continues.

- `--resume RUN`: that run, under its own name (its configuration must not have changed);
- `--name NAME`: run NAME when it exists with this configuration and is unfinished (the
  same command again), otherwise a NEW run (NAME, or NAME-2 when the name is taken), even
  if another run with this configuration is unfinished: a name the user gave is never
  answered into a run of another name;
- no name: the newest unfinished run with this configuration, otherwise a new run.

"Unfinished" includes a finished run with errors to retry.
"""

from __future__ import annotations

from dataclasses import dataclass

from store import Run, Store
from workbench.runs.types import RunSetupError


@dataclass(frozen=True)
class Choice:
    """The run to answer into, and what the user should be told about the choice."""

    run: Run | None
    """The run to continue; None: create a new run named `name`."""
    name: str | None = None
    """A new run's name (unique; NAME-2 when NAME is taken)."""
    taken_by: Run | None = None
    """The run that already holds the name the user asked for."""
    unfinished_twin: Run | None = None
    """An unfinished run with the same configuration that this new named run does not continue."""


def choose_run(store: Store, key: str, asked_name: str | None, default_name: str, resuming: Run | None) -> Choice:
    """Continue a run or name a new one, as the module docstring says (RunSetupError when
    a resumed run's configuration changed)."""
    if resuming is not None:
        if resuming.config_key != key:
            raise RunSetupError(
                f"cannot resume {resuming.name}: its configuration changed since it started (the template"
                f" file, the model file or its parameters differ); start a new run instead"
            )
        return Choice(resuming)
    if asked_name:
        named = store.runs.get(asked_name)
        named = named if named is not None and named.name == asked_name else None  # not a run whose id is NAME
        if named is not None and named.config_key == key and _unfinished(store, named):
            return Choice(named)
        latest = store.runs.latest_with_config(key)
        twin = latest if latest is not None and _unfinished(store, latest) else None
        return Choice(None, store.runs.unique_name(asked_name), named, twin)
    latest = store.runs.latest_with_config(key)
    if latest is not None and _unfinished(store, latest):
        return Choice(latest)
    return Choice(None, store.runs.unique_name(default_name))


def _unfinished(store: Store, run: Run) -> bool:
    return run.status != "finished" or bool(store.runs.pending_claim_ids(run.id))
