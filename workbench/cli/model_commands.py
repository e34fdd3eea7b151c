"""`workbench models`: the GGUF models on this machine, by the names --model gguf:NAME takes."""

from __future__ import annotations

import json

import click

from workbench.cli import shared_options
from workbench.render.console import output_console

console = output_console()
errors = output_console(stderr=True)


@click.command("models")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (one object per model, and the problems).")
@shared_options
def models_command(as_json: bool) -> None:
    """List the GGUF models found on this machine: the Hugging Face hub cache, LM Studio's
    folders, Ollama's store and the config's models_dirs.

    Each is shown with the name `--model gguf:NAME` takes, its file, size, quantisation,
    parameters, context length, whether it carries a chat template, and a vision projector
    beside it. Only the files' headers are read, never the weights.
    """
    from workbench.backends.model_catalog import catalog, describe
    from workbench.config import load_settings
    from workbench.render.display import literal

    found = catalog(load_settings().models_dirs)
    rows = []
    for model in found.models:
        facts = describe(model)
        rows.append(
            {
                "name": model.name,
                "source": model.source,
                "path": str(model.path),
                "size": model.size,
                "parts": model.parts,
                "projector": str(model.projector) if model.projector else None,
                "quantisation": facts.quantisation,
                "parameters": facts.parameters,
                "context_length": facts.context_length,
                "chat_template": facts.has_chat_template,
                "architecture": facts.architecture,
                "problem": facts.problem
                or (
                    "a vision projector, not a model: give it to a model with --param mmproj=PATH"
                    if facts.is_projector
                    else None
                ),
            }
        )
    problems = [{"source": p.source, "path": str(p.path), "message": p.message} for p in found.problems]
    if as_json:
        click.echo(
            json.dumps(
                {
                    "models": rows,
                    "problems": problems,
                    "searched": [{"source": s, "folder": str(f)} for s, f in found.searched],
                },
                indent=2,
                ensure_ascii=False,
            )
        )
        return
    from workbench.render.models import models_listing

    models_listing(
        [
            {**row, "path": _home_short(row["path"]), "projector": row["projector"] and _home_short(row["projector"])}
            for row in rows
        ]
    ).print(console)
    usable = sum(1 for row in rows if not row["problem"])
    console.print(f"{usable:,} usable of {len(rows):,} listed; run one with --model gguf:NAME", markup=False)
    for problem in problems:
        errors.print(literal(f"not usable: {problem['message']}"))


def _home_short(path: str) -> str:
    """A path under the home folder as ~/..., for the table (JSON keeps it whole)."""
    from pathlib import Path

    home = str(Path.home())
    return "~" + path[len(home) :] if home != "/" and path.startswith(home + "/") else path
