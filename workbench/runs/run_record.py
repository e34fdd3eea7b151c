"""The run as stored: the config key that says two runs are the same run, the model as
typed, the versions of packages and data it was made with, and finding or creating its row.
"""

from __future__ import annotations

import hashlib
from importlib import metadata
from pathlib import Path

from store import Run, Store
from store.records import to_json
from workbench.backends import ModelSpec
from workbench.backends.specs import names_a_file
from workbench.choices import DATA_VERSION_KEY
from workbench.prompting import Setting, Template
from workbench.runs.continuing import Choice, choose_run
from workbench.runs.manifest import VERSIONED_PACKAGES
from workbench.runs.params import configuration_params
from workbench.runs.types import RunRequest


def task_config_key(identity: dict, task, params: dict, claim_ids: list[int]) -> str:
    """The hash of everything that defines a task run's answers, and its claims."""
    return hashlib.sha256(
        to_json(
            {
                "kind": task.kind,
                "identity": identity,
                "task": task.configuration(),
                "params": configuration_params(params),
                "claims": claim_ids,
            }
        ).encode()
    ).hexdigest()


def config_key(
    identity: dict, template: Template, setting: Setting, json_answer: bool, params: dict, claim_ids: list[int]
) -> str:
    """The hash of everything that defines a run's answers, and its claims."""
    return hashlib.sha256(
        to_json(
            {
                "kind": "verdict",
                "identity": identity,
                "template": template.name,
                "template_hash": template.content_hash,
                "setting": setting.name,
                "json": json_answer,
                "params": configuration_params(params),
                "claims": claim_ids,
            }
        ).encode()
    ).hexdigest()


def engine_of(backend) -> dict:
    """A local backend's engine settings (threads, batch size, build); {} for API models."""
    settings = getattr(backend, "engine_settings", None)
    return settings() if settings is not None else {}


def engine_changes(run: Run, engine: dict) -> list[str]:
    """The engine settings that differ from when the run was created, as `name old -> new`."""
    return [
        f"{name} {run.engine.get(name)} -> {value}"
        for name, value in engine.items()
        if run.engine and run.engine.get(name) != value
    ]


def find_or_create_run(
    store, request, resuming, key, spec, template, setting, params, identity, claim_ids, dataset_id, engine
) -> tuple[Run, bool, Choice]:
    """The run this configuration answers into: an unfinished one it continues, or a new one."""
    searched = f"-search-{params['search']}" if params.get("search") else ""
    default_name = f"{spec.short_name}-{template.name}-{setting.name}{searched}"
    choice = choose_run(store, key, request.name, default_name, resuming)
    if choice.run is not None:
        return choice.run, True, choice
    run = Run(
        name=choice.name,
        dataset_id=dataset_id,
        model=_model_text(spec),
        model_identity=identity,
        prompt_name=template.name,
        prompt_hash=template.content_hash,
        setting=setting.name,
        params=params,
        subset_filter=_subset_text(request),
        config_key=key,
        versions=package_versions() | data_version(store, claim_ids),
        engine=engine,
    )
    return store.runs.create(run, claim_ids), False, choice


def stored_model_text(spec: ModelSpec) -> str:
    """The spec as runs (and contamination scores) store it."""
    return _model_text(spec)


def _model_text(spec: ModelSpec) -> str:
    """The spec as stored: a GGUF path made absolute so a resume works from any folder; a
    local model's name (gguf:llama3.2:3b) as typed, found again on resume (the config key,
    which holds the file's sha256, says whether it is still the same file)."""
    if spec.scheme == "gguf" and spec.name != "default" and names_a_file(spec.name):
        return f"gguf:{Path(spec.name).expanduser().resolve()}"
    return spec.text


def _subset_text(request: RunRequest) -> str | None:
    if request.claim_ids is not None:
        return None
    parts = [
        f'dataset:"{request.dataset}"' if request.dataset else "",
        request.filter or "",
        f"(first {request.limit})" if request.limit else "",
    ]
    return " ".join(p for p in parts if p) or None


def data_version(store: Store, claim_ids: list[int]) -> dict[str, str]:
    """The content hash of the claims a run is made on (its manifest compares it between runs:
    the same subset of an edited dataset is not the same data)."""
    return {DATA_VERSION_KEY: store.claims.content_hash(claim_ids)}


def package_versions() -> dict[str, str]:
    """Versions of the packages that shape a run's answers."""
    versions = {}
    for name in VERSIONED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions
