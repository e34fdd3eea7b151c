"""Model backends behind one async protocol: a local GGUF (llama-cpp-python), OpenAI or
any OpenAI-compatible server, and Anthropic. See `specs` for the model specs users type."""

from workbench.backends.base import Backend, BackendError, Completion, CompletionRequest, ToolCall, scrub
from workbench.backends.specs import DEFAULT_MODEL, SCHEMES, ModelSpec, ModelSpecError, open_backend, parse_model_spec

__all__ = [
    "Backend",
    "BackendError",
    "Completion",
    "CompletionRequest",
    "DEFAULT_MODEL",
    "ModelSpec",
    "ModelSpecError",
    "SCHEMES",
    "ToolCall",
    "open_backend",
    "parse_model_spec",
    "scrub",
]
