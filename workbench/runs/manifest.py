"""A run's manifest: everything besides the model that shapes its answers, so that two runs
can be checked for being like for like before their scores are compared.

    manifest = run_manifest(store, run)
    differences(manifest_a, manifest_b)   # what differs besides the model, key by key

Keys are what a user names with `compare --varies` (a group such as `params` covers every
`params.X`): dataset, claims (the data's content hash and count), subset, template,
setting, params.X, engine.X, versions.X, judge (a judge run's target's manifest).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from store import Run, Store
from workbench.choices import DATA_VERSION_KEY
from workbench.words import counted

MODEL_KEYS = ("model", "model_identity")
"""What a comparison of two models expects to differ."""
VARY_GROUPS = ("dataset", "claims", "subset", "template", "setting", "params", "engine", "versions", "judge")
"""What --varies accepts (a group, or one key of it such as params.temperature)."""
VERSIONED_PACKAGES = ("factcheck-workbench", "llama-cpp-python", "openai", "anthropic")
"""The packages whose versions shape a run's answers (recorded when it is made)."""


@dataclass(frozen=True)
class Difference:
    """One manifest key whose value differs between run A and run B."""

    key: str
    a: Any
    b: Any

    @property
    def group(self) -> str:
        return self.key.split(".", 1)[0]


def run_manifest(store: Store, run: Run) -> dict[str, Any]:
    """The run's manifest, flat: one key per thing that can differ (params.X, engine.X, ...)."""
    count = store.runs.claim_count(run.id)
    recorded = run.versions.get(DATA_VERSION_KEY)
    manifest: dict[str, Any] = {
        "model": run.model,
        "model_identity": _identity_text(run.model_identity),
        "dataset": _dataset_name(store, run),
        "claims": f"{counted(count, 'claim')}, sha256 {recorded[:16]}"
        if recorded
        else f"{counted(count, 'claim')} (their content was not recorded when the run was made)",
        "subset": run.subset_filter or "(claims named one by one)",
        "template": f"{run.prompt_name} {run.prompt_hash[:12]}"
        if run.prompt_name and run.prompt_hash
        else run.prompt_name,
        "setting": run.setting,
    }
    manifest |= _flat("params", run.params)
    manifest |= _flat("engine", run.engine)
    manifest |= _flat("versions", {k: v for k, v in run.versions.items() if k in VERSIONED_PACKAGES})
    if run.target_run_id is not None:  # a judge run: what it judged is part of what it is
        target = store.runs.get(run.target_run_id)
        if target is not None:
            manifest |= _flat("judge", run_manifest(store, target))
    return manifest


def differences(a: dict[str, Any], b: dict[str, Any], ignore: Iterable[str] = MODEL_KEYS) -> list[Difference]:
    """Every key whose value differs between two manifests, besides the model's own keys."""
    skipped = set(ignore)
    keys = [k for k in dict.fromkeys([*a, *b]) if k not in skipped]
    return [Difference(k, a.get(k), b.get(k)) for k in keys if a.get(k) != b.get(k)]


def unexplained(found: list[Difference], varies: Iterable[str]) -> list[Difference]:
    """The differences the user has not named with --varies (a group names all its keys)."""
    named = set(varies)
    return [d for d in found if d.key not in named and d.group not in named]


def check_varies(names: Iterable[str]) -> list[str]:
    """--varies values, split at commas; ValueError naming an unknown group."""
    found = []
    for name in names:
        for part in (p.strip() for p in name.split(",")):
            if part and part.split(".", 1)[0] not in VARY_GROUPS:
                raise ValueError(
                    f"--varies {part!r}: not a part of a run's manifest (parts: {', '.join(VARY_GROUPS)},"
                    " or one key such as params.temperature)"
                )
            if part:
                found.append(part)
    return found


def _flat(group: str, values: dict[str, Any]) -> dict[str, Any]:
    return {f"{group}.{key}": value for key, value in sorted(values.items())}


def _identity_text(identity: dict[str, Any]) -> str:
    """The model's identity in one line: a file's hash, or an API model id and date."""
    return ", ".join(f"{key} {value}" for key, value in sorted(identity.items()) if value not in (None, ""))


def _dataset_name(store: Store, run: Run) -> str | None:
    if run.dataset_id is None:
        return None
    space_name = store.datasets.name_of(run.dataset_id)
    return space_name if space_name is not None else str(run.dataset_id)
