"""One check, before the first model call, of every model a command will call.

`workbench run`, `contamination run`, the TUI's run dialog (and what later calls models:
judges, search agents) name their models as ModelCalls and get back opened backends, or
one RunSetupError that lists every problem at once: a spec that cannot be read, params
that do not apply, a missing API key, a base URL that is not a URL, a GGUF file that is
missing or that llama.cpp cannot load (it is loaded here, once per process). So a missing
key is said before an hour of local work, not after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workbench.backends import Backend, BackendError, ModelSpec, ModelSpecError, open_backend, parse_model_spec
from workbench.config import Settings, load_settings
from workbench.runs.params import effective_params
from workbench.runs.types import RunSetupError


@dataclass(frozen=True)
class ModelCall:
    """A model a command is about to call, and in which role (named in messages)."""

    role: str
    """e.g. "model", "target model", "extractor", "judge"."""
    model: str
    base_url: str | None = None
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CheckedModel:
    """A model that passed the checks: its spec, typed params and opened backend."""

    call: ModelCall
    spec: ModelSpec
    params: dict[str, Any]
    backend: Backend


def preflight(calls: list[ModelCall], settings: Settings | None = None) -> list[CheckedModel]:
    """Check every model in `calls` (in order); RunSetupError listing each one that cannot work."""
    settings = settings or load_settings()
    checked, problems = [], []
    for call in calls:
        try:
            checked.append(check_model(call, settings))
        except (ModelSpecError, RunSetupError) as error:
            problems.append(_problem(call, str(error), len(calls)))
        except BackendError as error:
            problems.append(_problem(call, error.message, len(calls)))
    if problems:
        raise RunSetupError("; ".join(problems))
    return checked


def check_model(call: ModelCall, settings: Settings) -> CheckedModel:
    """One model: its spec, its params for that kind of model, its backend opened (a key
    found, a GGUF file read and loaded)."""
    spec = parse_model_spec(call.model, call.base_url)
    params = effective_params(call.params, spec.scheme)
    backend = open_backend(spec, params, settings)
    if spec.scheme == "gguf":
        backend.load()  # a file llama.cpp cannot load is reported before any work
    return CheckedModel(call, spec, params, backend)


def check_takes_images(model: CheckedModel, store=None) -> None:
    """RunSetupError unless the model takes images: a GGUF model needs its vision projector
    (--param mmproj=PATH); an API model is asked once about a 2x2 picture, and a refusal of
    the image (HTTP 400/415/422) is reported with the server's reason. With `store`, an
    answer to the picture is remembered in the response cache: the same model is not asked
    again (a re-run costs nothing)."""
    import asyncio

    from store import CachedResponse
    from store.records import to_json
    from workbench.backends import CompletionRequest
    from workbench.backends.images import probe_image, probe_messages
    from workbench.runs.requests import cache_key

    role = f"{model.call.role} {model.call.model}"
    if model.spec.scheme == "gguf":
        if not getattr(model.backend, "takes_images", False):
            raise RunSetupError(
                f"the {role} is a text-only GGUF model and the setting sends images: give its vision"
                " projector with --param mmproj=PATH (and --param vision_handler=NAME unless it is"
                " a LLaVA-1.5 model), or drop +image from the setting"
            )
        return
    picture = probe_image()
    request = CompletionRequest(
        probe_messages("probe"), max_tokens=5, temperature=0.0, seed=None, images={"probe": picture}
    )
    key = cache_key(model.backend.identity, request)
    if store is not None and store.runs.cached_response(key) is not None:
        return  # this model answered about the picture before

    async def ask():  # its own client: the run's must not be tied to this event loop
        backend = open_backend(model.spec, model.params, load_settings())
        try:
            return await backend.complete(request)
        finally:
            await backend.aclose()

    try:
        answer = asyncio.run(ask())
        if store is not None:
            store.runs.cache_response(
                key,
                to_json(model.backend.identity),
                CachedResponse(answer.text, answer.tokens_in, answer.tokens_out, answer.finish_reason),
            )
    except BackendError as error:
        if error.status in (400, 415, 422):
            raise RunSetupError(
                f"the {role} does not take images (asked once with a 2x2 picture: {error.message});"
                " use a vision model, or drop +image from the setting"
            ) from None
        # Anything else (a timeout, a refused connection) the run itself will meet and report.


def model_takes_images(model: CheckedModel, store=None) -> bool:
    """Whether the model takes images (check_takes_images' question, answered yes or no)."""
    try:
        check_takes_images(model, store)
    except RunSetupError:
        return False
    return True


def _problem(call: ModelCall, message: str, count: int) -> str:
    """The message, naming the model when more than one is checked."""
    return message if count == 1 else f"{call.role} {call.model}: {message}"
