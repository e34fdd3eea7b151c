"""Finding the GGUF models already on this machine, where other tools keep them.

    Hugging Face hub cache   $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub:
                             models--ORG--REPO/snapshots/REVISION/**.gguf (links into blobs/)
    LM Studio                ~/.lmstudio/models and ~/.cache/lm-studio/models: PUBLISHER/REPO/*.gguf
    Ollama                   $OLLAMA_MODELS, else ~/.ollama/models (and the Linux service's
                             /usr/share/ollama/.ollama/models): manifests/HOST/NAMESPACE/NAME/TAG
                             name the blob (blobs/sha256-HEX) holding the GGUF
    models_dirs              folders named in the config file, searched for *.gguf

Only folders and Ollama's small JSON manifests are read here; the GGUF headers are read
by `describe` (for `workbench models`), never the weights. Vision projectors (mmproj
files, Ollama's projector layer) are not models: they are attached to the model beside
them. A split model (NAME-00001-of-00003.gguf) is one model, named by its first part.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

OLLAMA_MODEL = "application/vnd.ollama.image.model"
OLLAMA_PROJECTOR = "application/vnd.ollama.image.projector"
OLLAMA_REGISTRY = "registry.ollama.ai"
_SHARD = re.compile(r"^(?P<stem>.+)-(?P<part>\d{5})-of-(?P<parts>\d{5})$")


@dataclass(frozen=True)
class FoundModel:
    """A GGUF model found on this machine."""

    name: str
    """What `--model gguf:NAME` takes (made unique across sources, see catalog)."""
    source: str
    """hf, lmstudio, ollama, dir or bundled."""
    path: Path
    """The GGUF file (the first part of a split model)."""
    size: int
    """Bytes on disk, every part of a split model counted."""
    projector: Path | None = None
    """A vision projector beside it (mmproj), which `--param mmproj=PATH` would load."""
    parts: int = 1
    aliases: tuple[str, ...] = ()
    """Other names a user may type for it (the file's stem, an Ollama name without :latest)."""


@dataclass(frozen=True)
class FindingProblem:
    """Something found that cannot be used as a model: the file (or manifest) and why."""

    source: str
    path: Path
    message: str


@dataclass
class Found:
    """Every model found, and every problem met on the way."""

    models: list[FoundModel] = field(default_factory=list)
    problems: list[FindingProblem] = field(default_factory=list)
    searched: list[tuple[str, Path]] = field(default_factory=list)
    """(source, folder) for every place looked in that exists."""


def hf_cache_dir() -> Path:
    """The Hugging Face hub cache, as huggingface_hub finds it."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    return Path.home() / ".cache" / "huggingface" / "hub"


def lmstudio_dirs() -> list[Path]:
    home = Path.home()
    return [home / ".lmstudio" / "models", home / ".cache" / "lm-studio" / "models"]


def ollama_dirs() -> list[Path]:
    if os.environ.get("OLLAMA_MODELS"):
        return [Path(os.environ["OLLAMA_MODELS"]).expanduser()]
    return [Path.home() / ".ollama" / "models", Path("/usr/share/ollama/.ollama/models")]


def find_local_models(models_dirs: list[Path] | None = None) -> Found:
    """Every GGUF model in the places above, in a stable order (source, then name)."""
    found = Found()
    _from_hf_cache(hf_cache_dir(), found)
    for folder in lmstudio_dirs():
        _from_folder(folder, "lmstudio", found)
    for folder in ollama_dirs():
        _from_ollama(folder, found)
    for folder in models_dirs or []:
        _from_folder(Path(folder).expanduser(), "dir", found)
    return found


# ---- Hugging Face hub cache ---------------------------------------------------------------


def _from_hf_cache(cache: Path, found: Found) -> None:
    if not cache.is_dir():
        return
    found.searched.append(("hf", cache))
    for repo in sorted(cache.glob("models--*")):
        org_repo = repo.name.removeprefix("models--").replace("--", "/")
        snapshot = _current_snapshot(repo)
        if snapshot is None:
            continue
        for group in _gguf_groups(snapshot, found, "hf"):
            _add(found, "hf", f"{org_repo}/{group.relative_stem}", group)


def _current_snapshot(repo: Path) -> Path | None:
    """The revision refs/main names, else the newest snapshot folder."""
    snapshots = repo / "snapshots"
    if not snapshots.is_dir():
        return None
    main = repo / "refs" / "main"
    try:
        revision = main.read_text(encoding="utf-8").strip() if main.is_file() else ""
    except OSError:
        revision = ""
    if revision and (snapshots / revision).is_dir():
        return snapshots / revision
    folders = [p for p in snapshots.iterdir() if p.is_dir()]
    return max(folders, key=lambda p: p.stat().st_mtime) if folders else None


# ---- plain folders: LM Studio and models_dirs -------------------------------------------


def _from_folder(folder: Path, source: str, found: Found) -> None:
    if not folder.is_dir():
        return
    found.searched.append((source, folder))
    for group in _gguf_groups(folder, found, source):
        _add(found, source, group.relative_stem, group)


@dataclass
class _Group:
    """The GGUF files of one model in a folder: its parts, and the projector beside it."""

    first: Path
    relative_stem: str
    parts: list[Path]
    projector: Path | None = None


def _gguf_groups(root: Path, found: Found, source: str) -> list[_Group]:
    """The models under `root` (split parts joined, projectors attached to their folder)."""
    groups: dict[tuple[Path, str], _Group] = {}
    projectors: dict[Path, list[Path]] = {}
    for path in sorted(root.rglob("*.gguf"), key=lambda p: str(p).lower()):
        if not path.is_file():  # a link whose blob is gone
            found.problems.append(
                FindingProblem(
                    source,
                    path,
                    f"{path} is a link to a file that is not there"
                    " (a download that did not finish, or a cleaned cache)",
                )
            )
            continue
        if "mmproj" in path.name.lower():
            projectors.setdefault(path.parent, []).append(path)
            continue
        stem, part = path.stem, None
        match = _SHARD.match(stem)
        if match:
            stem, part = match["stem"], int(match["part"])
        relative = (path.parent / stem).relative_to(root).as_posix()
        group = groups.setdefault((path.parent, stem), _Group(path, relative, []))
        group.parts.append(path)
        if part == 1:
            group.first = path
    for group in groups.values():
        beside = projectors.get(group.first.parent)
        group.projector = beside[0] if beside else None
    return list(groups.values())


def _add(found: Found, source: str, name: str, group: _Group) -> None:
    size = sum(_size(p) for p in group.parts)
    stem = Path(group.relative_stem).name
    aliases = tuple(a for a in (stem, group.first.name) if a != name)
    found.models.append(FoundModel(name, source, group.first, size, group.projector, len(group.parts), aliases))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


# ---- Ollama --------------------------------------------------------------------------------


def _from_ollama(store: Path, found: Found) -> None:
    manifests = store / "manifests"
    if not manifests.is_dir():
        return
    found.searched.append(("ollama", store))
    for manifest in sorted(p for p in manifests.rglob("*") if p.is_file()):
        parts = manifest.relative_to(manifests).parts
        if len(parts) != 4:  # HOST/NAMESPACE/NAME/TAG
            continue
        _from_manifest(store, manifest, _ollama_name(*parts), found)


def _ollama_name(host: str, namespace: str, name: str, tag: str) -> str:
    """The name `ollama list` shows: llama3.2:3b, user/model:tag, hf.co/org/repo:tag."""
    if host == OLLAMA_REGISTRY:
        return f"{name}:{tag}" if namespace == "library" else f"{namespace}/{name}:{tag}"
    return f"{host}/{namespace}/{name}:{tag}"


def _from_manifest(store: Path, manifest: Path, name: str, found: Found) -> None:
    try:
        layers = json.loads(manifest.read_text(encoding="utf-8")).get("layers")
    except (OSError, UnicodeDecodeError, ValueError, AttributeError) as error:
        found.problems.append(
            FindingProblem(
                "ollama",
                manifest,
                f"ollama model {name}: its manifest {manifest} cannot be read ({type(error).__name__})",
            )
        )
        return
    by_type = {layer.get("mediaType"): layer.get("digest") for layer in layers or [] if isinstance(layer, dict)}
    digest = by_type.get(OLLAMA_MODEL)
    if not isinstance(digest, str):
        return  # not a GGUF model (e.g. a safetensors import): nothing llama.cpp can run
    blob = _blob(store, digest)
    if not blob.is_file():
        found.problems.append(
            FindingProblem(
                "ollama",
                manifest,
                f"ollama model {name}: its manifest {manifest} names the blob {blob.name}, which"
                f" is not in {blob.parent} (an interrupted pull? `ollama pull {name}` again)",
            )
        )
        return
    projector = by_type.get(OLLAMA_PROJECTOR)
    projector_path = _blob(store, projector) if isinstance(projector, str) else None
    aliases = (name.removesuffix(":latest"),) if name.endswith(":latest") else ()
    found.models.append(
        FoundModel(
            name,
            "ollama",
            blob,
            _size(blob),
            projector_path if projector_path and projector_path.is_file() else None,
            aliases=aliases,
        )
    )


def _blob(store: Path, digest: str) -> Path:
    """blobs/sha256-HEX for the digest sha256:HEX."""
    return store / "blobs" / digest.replace(":", "-")
