"""Local model files made in the test: tiny GGUF headers, Hugging Face cache and Ollama store layouts."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

TEMPLATE = "{% for message in messages %}{{ message['content'] }}{% endfor %}"


def tiny_gguf(
    path: Path,
    *,
    context: int = 2048,
    file_type: int | None = 15,
    chat_template: str | None = TEMPLATE,
    projector: bool = False,
    name: str = "tiny",
) -> Path:
    """A real GGUF file with two small tensors (96 weights) and the header facts asked for."""
    import gguf

    path.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(path), arch="clip" if projector else "llama")
    writer.add_name(name)
    if projector:
        writer.add_type("mmproj")
    else:
        writer.add_context_length(context)
    if file_type is not None:
        writer.add_file_type(file_type)
    if chat_template is not None:
        writer.add_chat_template(chat_template)
    writer.add_tensor("token_embd.weight", np.zeros((8, 4), dtype=np.float32))
    writer.add_tensor("output.weight", np.zeros((16, 4), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def hf_model(cache: Path, repo: str, filename: str, **facts) -> Path:
    """A file as huggingface_hub leaves it: a blob named by hash, linked from a snapshot."""
    folder = cache / f"models--{repo.replace('/', '--')}"
    blob = tiny_gguf(folder / "blobs" / "incoming.gguf", **facts)
    digest = hashlib.sha256(blob.read_bytes()).hexdigest()
    blob = blob.rename(folder / "blobs" / digest)
    revision = "0123456789abcdef0123456789abcdef01234567"
    link = folder / "snapshots" / revision / filename
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(os.path.relpath(blob, link.parent))
    (folder / "refs").mkdir(exist_ok=True)
    (folder / "refs" / "main").write_text(revision)
    return link


def ollama_model(
    store: Path,
    name: str,
    tag: str,
    blob_file: Path | None = None,
    namespace: str = "library",
    projector: Path | None = None,
) -> Path:
    """A manifest as `ollama pull` writes it, naming a GGUF blob (made here unless given)."""
    blobs = store / "blobs"
    blobs.mkdir(parents=True, exist_ok=True)
    source = blob_file or tiny_gguf(store / "incoming.gguf")
    digest = "sha256:" + hashlib.sha256(source.read_bytes()).hexdigest()
    blob = blobs / digest.replace(":", "-")
    if not blob.exists():
        blob.symlink_to(source) if blob_file else source.rename(blob)
    layers = [
        {"mediaType": "application/vnd.ollama.image.model", "digest": digest, "size": blob.stat().st_size},
        {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:" + "0" * 64, "size": 12},
    ]
    if projector is not None:
        projector_digest = "sha256:" + hashlib.sha256(projector.read_bytes()).hexdigest()
        projector.rename(blobs / projector_digest.replace(":", "-"))
        layers.append({"mediaType": "application/vnd.ollama.image.projector", "digest": projector_digest})
    manifest = store / "manifests" / "registry.ollama.ai" / namespace / name / tag
    manifest.parent.mkdir(parents=True, exist_ok=True)
    manifest.write_text(json.dumps({"schemaVersion": 2, "layers": layers}))
    return manifest
