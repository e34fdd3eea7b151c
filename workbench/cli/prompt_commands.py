"""Commands for prompts: `prompt` (exactly what a claim's messages would be), `prompts`."""

from __future__ import annotations

import click

from workbench.cli import UserError, shared_options
from workbench.cli.opening import open_store
from workbench.render.console import reading_console


def prompts_listing(rows: list[dict]):
    """One row per template: its name above its file (the file name kept whole), label space,
    answer format, then what it offers, wrapped at words under itself."""
    from workbench.render.display import literal, one_line
    from workbench.render.listing import Column, Listing, path_below

    listing = Listing(
        Column("prompt", "name", 100),
        Column("label space", "label", 80),
        Column("answers", "label", 40),
        Column("verdicts, settings", "text", 60, readable=30),
    )
    for r in rows:
        if "error" in r:
            listing.add_row(path_below(r["name"], r["path"]), "", "", literal(f"unusable: {one_line(r['error'])}"))
            continue
        offers = [f"{key}: {', '.join(r[key])}" for key in ("verdicts", "contexts", "evidence")]
        offers += [one_line(r["description"])] if r["description"] else []
        listing.add_row(
            path_below(r["name"], r["path"]), literal(r["label_space"]), r["answer"], literal("\n".join(offers))
        )
    return listing


@click.command("prompt")
@click.argument("claim_ref")
@click.option("--setting", default="claim", show_default=True, help="CONTEXT[+EVIDENCE].")
@click.option("--prompt", default="auto", show_default=True, help="Template name (auto: the claim's label space).")
@click.option(
    "--answer",
    type=click.Choice(["template", "json", "text"]),
    default="template",
    show_default=True,
    help="Ask for a JSON or a plain-text answer (as --param json=... in a run).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the messages (and JSON schema) as JSON.")
@shared_options
def prompt_command(claim_ref: str, setting: str, prompt: str, answer: str, as_json: bool) -> None:
    """Print exactly the messages a run would send for one claim."""
    import json

    from rich.rule import Rule

    from workbench.config import setting as config_setting
    from workbench.prompting import available_templates, language_hint, load_template, parse_setting, render
    from workbench.render.console import output_console
    from workbench.render.display import literal

    store = open_store()
    claim_id = store.claims.resolve(claim_ref)
    if claim_id is None:
        raise UserError(f"no claim {claim_ref!r} (use the id, or DATASET:EXTERNAL_ID)")
    claim = store.claims.get(claim_id)
    space = store.datasets.get(claim.dataset).label_space
    json_answer = None if answer == "template" else answer == "json"
    prompts_dir = config_setting("prompts_dir")
    if prompt == "auto" and space.name not in available_templates(prompts_dir):
        raise UserError(
            f"--prompt auto uses the template named after the label space, and there is no"
            f" {space.name!r} template; pass --prompt NAME (`workbench prompts` lists them)"
        )
    template = load_template(space.name if prompt == "auto" else prompt, prompts_dir)
    rendered = render(claim, template, parse_setting(setting), json_answer)
    hint = language_hint(template, [claim.text], prompts_dir)
    if as_json:
        click.echo(
            json.dumps(
                {"messages": rendered.messages, "json_schema": rendered.json_schema}, indent=2, ensure_ascii=False
            )
        )
        _say_hint(hint)
        return
    console = output_console()
    for message in rendered.messages:
        console.print(Rule(message["role"], align="left"))
        content = message["content"]
        for part in content if isinstance(content, list) else [{"type": "text", "text": content}]:
            if part["type"] == "text":
                console.print(literal(part["text"]), soft_wrap=True)  # exact text, no inserted breaks
            else:
                shown = part.get("url") or f"{part.get('mime')} sha256 {part.get('sha256')}"
                console.print(literal(f"[image: {shown}]", "bold cyan"))
    if rendered.json_schema is not None:
        console.print(Rule("json schema (constrains the answer where the backend can)", align="left"))
        console.print(json.dumps(rendered.json_schema, ensure_ascii=False), markup=False)
    _say_hint(hint)


def _say_hint(hint: str | None) -> None:
    """A hint goes to stderr: stdout stays exactly the messages (and a pipe reads only them)."""
    if hint:
        click.echo(f"hint: {hint}", err=True)


@click.command("prompts")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def prompts_command(as_json: bool) -> None:
    """List the prompt templates, their label spaces and settings."""
    from workbench.config import setting as config_setting
    from workbench.prompting import CONTEXTS, EVIDENCE, TemplateError, available_templates, read_template

    rows = []
    for name, path in available_templates(config_setting("prompts_dir")).items():
        try:
            t = read_template(path)
        except TemplateError as error:
            rows.append({"name": name, "error": str(error), "path": str(path)})
            continue
        rows.append(
            {
                "name": t.name,
                "label_space": t.label_space,
                "verdicts": t.answer_labels,
                "answer": "json" if t.json else "text",
                "description": t.description,
                "contexts": [c for c in CONTEXTS if c in t.contexts],
                "evidence": [e for e in EVIDENCE if e in t.evidence],
                "path": str(path),
            }
        )
    if as_json:
        import json  # here: the listing needs none

        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    console = reading_console()
    prompts_listing(rows).print(console)
    console.print("A setting is CONTEXT[+EVIDENCE], e.g. claim+time+pages; evidence none is the default.")
