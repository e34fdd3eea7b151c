"""The run dialog's logic without widgets: its choices as a RunRequest, and the prompt preview."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text

from store import Store
from workbench.config import Settings
from workbench.render.display import literal, printable

MODEL_KINDS = [
    ("default", "gguf:default (embedded SmolLM2, CPU)"),
    ("gguf", "a local GGUF model (name or path)"),
    ("openai", "OpenAI"),
    ("anthropic", "Anthropic"),
    ("openai-compatible", "OpenAI-compatible server (URL)"),
]


MODEL_TITLES = dict(MODEL_KINDS)


@dataclass
class RunChoice:
    """What the run dialog's form says."""

    model_kind: str = "default"
    model_name: str = ""
    base_url: str | None = None
    setting: str = "claim"
    template: str = "auto"
    name: str | None = None
    scope: str = "claim"
    """claim, marked or filter."""
    claim_id: int | None = None
    marked: list[int] = field(default_factory=list)
    filter_text: str = ""
    options: str = ""
    """`key=value` words: concurrency, and any `--param` (temperature=0.2 max_tokens=256)."""
    search: str = ""
    """A search backend (fts, searxng, tavily) for a search run; empty: none."""

    @property
    def model(self) -> str:
        if self.model_kind == "default":
            return "gguf:default"
        return f"{self.model_kind}:{self.model_name}"

    def problem(self) -> str | None:
        """What is missing before the runner can even be asked, or None."""
        if self.model_kind != "default" and not self.model_name:
            return "give the model's name (or the GGUF file's path)"
        if self.model_kind == "openai-compatible" and not self.base_url:
            return "an OpenAI-compatible server needs its base URL, e.g. http://127.0.0.1:8000/v1"
        if self.scope == "claim" and self.claim_id is None:
            return "no claim is highlighted"
        if self.scope == "marked" and not self.marked:
            return "no rows are marked (space marks rows in the table)"
        return self._options_problem()

    def _options_problem(self) -> str | None:
        words = self.options.split()
        bad = [w for w in words if "=" not in w or not w.partition("=")[0]]
        if bad:
            return f"options are key=value words (e.g. concurrency=16 temperature=0.2), not {bad[0]!r}"
        concurrency = self._option_pairs().get("concurrency")
        if concurrency is not None and not (concurrency.isdigit() and int(concurrency) >= 1):
            return f"concurrency must be a whole number of at least 1, not {concurrency!r}"
        return None

    def _option_pairs(self) -> dict[str, str]:
        return dict(word.split("=", 1) for word in self.options.split() if "=" in word)

    def request(self):
        """The runner's RunRequest for this choice."""
        from workbench.runs.engine import RunRequest

        ids = {"claim": [self.claim_id], "marked": list(self.marked)}.get(self.scope)
        params = self._option_pairs()
        concurrency = params.pop("concurrency", None)
        if self.search:
            params["search"] = self.search
        return RunRequest(
            model=self.model,
            setting=self.setting,
            prompt=self.template,
            filter="" if ids is not None else self.filter_text,
            claim_ids=ids,
            base_url=self.base_url if self.model_kind == "openai-compatible" else None,
            name=self.name,
            params=params,
            concurrency=int(concurrency) if concurrency else None,
        )


def checking_text(choice: RunChoice) -> str:
    """What starting the run does first, for the model chosen (said while it happens)."""
    if choice.model_kind in ("default", "gguf"):
        doing = f"loading {choice.model} (a local model: a few seconds the first time)"
    elif choice.model_kind == "openai-compatible":
        doing = f"the server at {choice.base_url or '?'} and its key"
    else:
        doing = f"the {MODEL_TITLES.get(choice.model_kind, choice.model_kind)} key"
    if "+image" in choice.setting and choice.model_kind not in ("default", "gguf"):
        doing += "; asking the model once whether it takes images"
    if choice.search:
        doing += f"; the {choice.search} search backend"
    return f"checking the setup: {doing}, the template and the claims…"


def setting_names() -> list[str]:
    """Every input setting (context x evidence)."""
    from workbench.prompting import all_settings

    return all_settings()


def template_names(settings: Settings) -> list[str]:
    """'auto' then every template file (built in and the user's prompts_dir)."""
    from workbench.prompting import available_templates

    return ["auto", *sorted(available_templates(settings.prompts_dir))]


def preview_text(store: Store, choice: RunChoice, settings: Settings) -> Text:
    """The exact messages the highlighted claim would be sent, or why it cannot be."""
    from workbench.prompting import PromptError, TemplateError, load_template, parse_setting, render

    if choice.claim_id is None:
        return Text("highlight a claim to see its prompt", style="dim")
    claim = store.claims.get(choice.claim_id)
    if claim is None:
        return Text(f"claim {choice.claim_id} is gone", style="dim")
    name = choice.template
    if name == "auto":
        dataset = store.datasets.get(claim.dataset) if claim.dataset else None
        name = dataset.label_space.name if dataset else "jsfactcheck"
    try:
        template = load_template(name, settings.prompts_dir)
        rendered = render(claim, template, parse_setting(choice.setting))
    except (TemplateError, PromptError) as error:
        return literal(f"cannot render this claim: {error}", "bold red")
    text = Text(f"template {printable(template.name)} · setting {printable(choice.setting)}\n", style="dim")
    for message in rendered.messages:
        text.append(f"── {printable(message['role'])} ──\n", style="bold")
        text.append_text(literal(message["content"]))
        text.append("\n")
    if rendered.json_schema is not None:
        labels = rendered.json_schema["properties"]
        first = next(iter(labels))
        allowed = ", ".join(printable(v) for v in labels[first].get("enum", []))
        text.append(f"── answer constrained to JSON: {first} one of {allowed}", style="dim")
    return text


def estimate_line(store: Store, choice: RunChoice, settings: Settings) -> Text:
    """What the run will take: prompt and generated tokens, money, a local model's time."""
    from workbench.render.usage import estimate_text
    from workbench.runs.types import RunSetupError
    from workbench.usage.planning import estimate_request
    from workbench.usage.prices import price_table

    if choice.problem():
        return Text("")
    try:
        estimate = estimate_request(store, choice.request(), price_table(settings))
    except RunSetupError as error:
        return literal(f"no estimate: {error}", "dim")
    return literal(estimate_text(estimate), "dim")


def budget_note(store: Store, prepared, settings: Settings) -> str | None:
    """What budget a continued run goes on under (the --max-cost it keeps), or None; the
    budget is checked as the command line checks it (BudgetError when it cannot hold)."""
    from workbench.usage.prices import money, price_table
    from workbench.usage.run_budget import keep_budget

    budget, _ = keep_budget(store, [prepared], None, price_table(settings))
    if budget is None:
        return None
    return (
        f"{printable(prepared.run.name)} goes on under the budget it keeps: {money(budget.limit)}"
        f" ({money(budget.spent)} spent so far); it stops before a request could pass it"
    )


def local_model_names(settings: Settings) -> tuple[list[str], object]:
    """Every local model's name and aliases (for type-ahead), and the catalog they came from."""
    from workbench.backends.model_catalog import catalog

    found = catalog(settings.models_dirs, with_bundled=False)
    names = [name for model in found.models for name in (model.name, *model.aliases)]
    return list(dict.fromkeys(names)), found


def model_hint(name: str, found) -> Text:
    """How a typed gguf: name resolves: the model and its header facts, or why it does not."""
    from workbench.backends.model_catalog import LocalModelError, describe, resolve
    from workbench.backends.specs import names_a_file
    from workbench.render.models import parameters_text, size_text

    if not name:
        count = len(found.models) if found is not None else 0
        return Text(f"{count:,} local models found (`workbench models` lists them); type a name or a path", style="dim")
    if found is None or names_a_file(name):
        return Text("")
    try:
        model = resolve(name, found)
    except LocalModelError as error:
        return literal(str(error), "yellow")
    facts = describe(model)
    if facts.problem:
        return literal(facts.problem, "red")
    text = literal(
        f"→ gguf:{model.name} · {facts.quantisation} · {parameters_text(facts.parameters)} params · "
        f"context {f'{facts.context_length:,}' if facts.context_length else '?'} · {size_text(model.size)}",
        "dim",
    )
    if not facts.has_chat_template:
        text.append(" · no chat template", style="yellow")
    return text
