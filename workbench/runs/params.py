"""Run parameters: their types, defaults per kind of model, and which of them define the
configuration (and so the config key and the cache key)."""

from __future__ import annotations

from typing import Any

from workbench.runs.types import RunSetupError

PARAM_TYPES: dict[str, type] = {
    "temperature": float,
    "max_tokens": int,
    "seed": int,
    "timeout": float,
    "attempts": int,
    "json": bool,
    "json_format": str,
    "n_ctx": int,
    "n_threads": int,
    "n_batch": int,
    "n_gpu_layers": int,
    "prefix_cache_mb": int,
    "mmproj": str,
    "vision_handler": str,
    "search": str,
    "search_url": str,
    "max_steps": int,
    "max_searches": int,
    "search_results": int,
    "tools": str,
    "claim_tokens": int,
    "image_search": bool,
    "vision": bool,
    "max_images": int,
}
PARAM_HELP = {
    "temperature": "sampling temperature (default 0)",
    "max_tokens": "answer length cap (default 512)",
    "seed": "sampling seed (default 0)",
    "timeout": "seconds per API request (default 60)",
    "attempts": "tries per claim before it is recorded as an error (default 4)",
    "json": "ask for a JSON answer (default: the template's choice)",
    "json_format": "API models: schema, object or off (how JSON is enforced)",
    "n_ctx": "gguf: context length (default 4096)",
    "n_threads": "gguf: CPU threads",
    "n_batch": "gguf: prompt tokens per batch (default 512; answers do not depend on it, see docs/models.md)",
    "prefix_cache_mb": "gguf: memory for prompt prefixes kept between claims (default 512; 0: none)",
    "n_gpu_layers": "gguf: layers offloaded to a GPU",
    "mmproj": "gguf: the vision projector file of a multimodal model (lets it take images)",
    "vision_handler": "gguf: llama-cpp-python's chat handler for it (default Llava15ChatHandler)",
    "search": "a search run: fts, searxng or tavily (see --search)",
    "search_url": "the search backend's address (searxng, or another tavily endpoint)",
    "max_steps": "search runs: model turns per claim (default 6)",
    "max_searches": "search runs: searches per claim (default 4)",
    "search_results": "search runs: results shown per search (default 5)",
    "tools": "search runs: native tool calls or a text protocol (default: native, text for gguf)",
    "claim_tokens": "search runs: tokens sent and written per claim before it must answer (default: no limit)",
    "image_search": "search runs: image search tools too (searxng, serper; see --image-search)",
    "vision": "search runs with image search: the model takes images (default: asked once with a 2x2 picture)",
    "max_images": "search runs with image search: retrieved images a claim's model may look at (default 3)",
}
GGUF_ONLY = {"n_ctx", "n_threads", "n_batch", "n_gpu_layers", "mmproj", "vision_handler", "prefix_cache_mb"}
API_ONLY = {"json_format", "timeout"}
# How a run goes, not what it answers: left out of the configuration.
# n_batch and prefix_cache_mb: the answers are the same whatever they are (llama_engine).
OPERATIONAL = {"timeout", "attempts", "n_threads", "n_batch", "prefix_cache_mb"}
_TRUE, _FALSE = {"true", "yes", "1", "on"}, {"false", "no", "0", "off"}


def parse_param_pairs(pairs: list[str]) -> dict[str, str]:
    """`key=value` strings (from --param) as a dict; RunSetupError on a malformed one."""
    params = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise RunSetupError(f"--param wants key=value, not {pair!r}")
        params[key.strip()] = value.strip()
    return params


def effective_params(given: dict[str, Any], scheme: str) -> dict[str, Any]:
    """Typed params with this kind of model's defaults filled in."""
    params = {key: coerce(key, value) for key, value in given.items()}
    wrong = (GGUF_ONLY if scheme != "gguf" else API_ONLY) & set(params)
    if wrong:
        kind = "gguf models" if scheme != "gguf" else "API models"
        raise RunSetupError(f"--param {', '.join(sorted(wrong))} only applies to {kind}")
    defaults: dict[str, Any] = {"max_tokens": 512, "seed": 0, "attempts": 4}
    if scheme != "anthropic":  # the Messages API is sent a temperature only when asked
        defaults["temperature"] = 0.0
    if scheme == "gguf":
        defaults["n_ctx"] = 4096
    else:
        defaults["timeout"] = 60.0
    merged = {**defaults, **params}
    if merged.get("prefix_cache_mb") is not None and merged["prefix_cache_mb"] < 0:
        raise RunSetupError("--param prefix_cache_mb cannot be negative (0 keeps no prefixes)")
    for key in (
        "max_tokens",
        "attempts",
        "n_ctx",
        "n_batch",
        "max_steps",
        "max_searches",
        "search_results",
        "claim_tokens",
        "max_images",
    ):
        if key in merged and merged[key] is not None and merged[key] < 1:
            raise RunSetupError(f"--param {key} must be at least 1")
    if merged.get("temperature") is not None and merged["temperature"] < 0:
        raise RunSetupError("--param temperature cannot be negative")
    return merged


def coerce(key: str, value: Any) -> Any:
    """A param value as its type (strings from the command line are converted)."""
    if key not in PARAM_TYPES:
        raise RunSetupError(f"unknown --param {key!r}; known: {', '.join(sorted(PARAM_TYPES))}")
    kind = PARAM_TYPES[key]
    if value is None or (isinstance(value, kind) and not (kind is int and isinstance(value, bool))):
        return value
    text = str(value).strip().lower()
    try:
        if kind is bool:
            if text not in _TRUE | _FALSE:
                raise ValueError
            return text in _TRUE
        if kind is str:
            return str(value)
        return kind(text)
    except ValueError:
        raise RunSetupError(f"--param {key}={value} is not a valid {kind.__name__}") from None


def configuration_params(params: dict[str, Any]) -> dict[str, Any]:
    """The params that change answers (the part that goes into the config key)."""
    return {k: v for k, v in params.items() if k not in OPERATIONAL}
