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


def _problem(call: ModelCall, message: str, count: int) -> str:
    """The message, naming the model when more than one is checked."""
    return message if count == 1 else f"{call.role} {call.model}: {message}"
