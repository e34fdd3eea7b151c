"""The options of the commands that ask a judge model over a run (`judge`, `ev2r`): which
judge, where it is served, how it is asked (at once, cached, its parameters, how often)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import click

Decorator = Callable[[Callable], Callable]


def judge_options(
    *, base_url_help: str, max_tokens: int, repeats_help: str, own_options: Sequence[Decorator] = ()
) -> Decorator:
    """--judge, --base-url, --concurrency, --no-cache, --param and --repeats, giving the
    command's function judge_model, base_url, concurrency, no_cache, params and repeats.

    `max_tokens` is the judge's default that --param help names (the command's run sets it);
    `own_options` (the command's prompt choices) are listed between --base-url and --concurrency.
    """
    options = [
        click.option(
            "--judge",
            "judge_model",
            default="gguf:default",
            show_default=True,
            help="The judge: gguf:PATH | gguf:default | openai:MODEL | anthropic:MODEL | openai-compatible:NAME",
        ),
        click.option("--base-url", help=base_url_help),
        *own_options,
        click.option("--concurrency", type=click.IntRange(1), help="Requests at once (default: the backend's)."),
        click.option("--no-cache", is_flag=True, help="Ask the judge even when an answer is cached."),
        click.option(
            "--param",
            "params",
            multiple=True,
            metavar="KEY=VALUE",
            help=f"temperature (default 0), max_tokens (default {max_tokens}), seed, timeout, attempts, ..."
            " (repeatable).",
        ),
        click.option("--repeats", type=click.IntRange(1), default=1, show_default=True, help=repeats_help),
    ]

    def apply(command: Callable) -> Callable:
        for option in reversed(options):  # click lists options in the order they are written above
            command = option(command)
        return command

    return apply
