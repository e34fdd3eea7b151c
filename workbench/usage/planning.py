"""Time and money for prepared runs, before they start: their estimate, and their budget."""

from __future__ import annotations

from store import Store
from workbench.backends import CompletionRequest, ModelSpecError, parse_model_spec
from workbench.config import config_path
from workbench.prompting import PromptError, answer_mode, parse_setting, render
from workbench.runs.params import effective_params
from workbench.runs.requests import verdict_request
from workbench.runs.run_record import stored_model_text
from workbench.runs.setup import resolve_template, selected_claims
from workbench.runs.types import PreparedRun, RunRequest, RunSetupError
from workbench.usage.budget import Budget, open_budget
from workbench.usage.estimate import Estimate, estimate, history_of, sample_claims
from workbench.usage.prices import PriceTable
from workbench.usage.summary import run_usage


def estimate_runs(store: Store, prepared_runs: list[PreparedRun], prices: PriceTable) -> Estimate | None:
    """The pending work of verdict runs (one model), estimated from their prompts; None for
    runs built turn by turn (search runs, pipeline steps)."""
    if not prepared_runs or any(p.task is not None or p.search is not None for p in prepared_runs):
        return None
    model = prepared_runs[0].run.model
    requests, pending = [], 0
    for prepared in prepared_runs:
        pending += len(prepared.pending_claim_ids)
        for claim in sample_claims(store, prepared.pending_claim_ids):
            try:
                requests.append(verdict_request(prepared, claim))
            except PromptError:
                continue
    if pending and not requests:
        return None
    history = history_of(store, model, prepared_runs[0].run.prompt_name)
    return estimate(requests, pending, prices.for_model(model), history, prepared_runs[0].concurrency)


def estimate_request(store: Store, request: RunRequest, prices: PriceTable) -> Estimate:
    """The estimate for a run not yet prepared (the run dialog): nothing is created or loaded.
    RunSetupError when the request cannot be a run (the dialog says why on Start)."""
    try:
        spec = parse_model_spec(request.model, request.base_url)
        params = effective_params(request.params, spec.scheme)
        setting = parse_setting(request.setting)
    except (ModelSpecError, PromptError) as error:
        raise RunSetupError(str(error)) from None
    claim_ids = selected_claims(store, request)
    template = resolve_template(store, request)
    json_answer = answer_mode(template, params.get("json")) == "json"
    requests = []
    for claim in sample_claims(store, claim_ids):
        try:
            rendered = render(claim, template, setting, json_answer)
        except PromptError:
            continue
        requests.append(
            CompletionRequest(rendered.messages, int(params["max_tokens"]), json_schema=rendered.json_schema)
        )
    model = stored_model_text(spec)
    history = history_of(store, model, template.name)
    return estimate(requests, len(claim_ids), prices.for_model(model), history, request.concurrency or 1)


def budget_for(
    store: Store, prepared_runs: list[PreparedRun], limit: float, prices: PriceTable, kept: bool = False
) -> Budget:
    """A --max-cost budget over these runs (what they spent before counts); BudgetError if
    it cannot be kept or is smaller than the first request could cost. `kept`: the limit is
    the one the run kept, not one the user just gave (errors say so)."""
    model = prepared_runs[0].run.model
    price = prices.for_model(model)
    spent = 0.0
    for prepared in prepared_runs:
        cost = run_usage(store, prepared.run, prices, judges=False).cost
        spent = None if cost is None or spent is None else spent + cost
    first = next((p for p in prepared_runs if p.pending_claim_ids), None)
    request = None
    if first is not None and first.task is None:
        claim = store.runs.claims(first.pending_claim_ids[:1])
        try:
            request = verdict_request(first, claim[0]) if claim else None
        except PromptError:
            request = None
    hint = f'add [prices."{model}"] with input and output (dollars per million tokens) to {config_path()}'
    return open_budget(limit, model, price, spent, request, hint, kept)
