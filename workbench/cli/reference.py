"""The docs' generated pages, so they cannot drift from what they describe: every command's
--help (from the click commands), every key (from the TUI's bindings), and the site's home
and benchmarks pages (the README and BENCHMARKS.md, their links made the site's).

    python -m workbench.cli.reference docs           # write them under docs/
    python -m workbench.cli.reference --check docs   # exit 1 when one differs from its source
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

WIDTH = 100
PAGES = ("reference/cli.md", "reference/keys.md", "index.md", "benchmarks.md")
ROOT = Path(__file__).resolve().parents[2]


def cli_markdown() -> str:
    """Every command and subcommand with its help, as `--help` prints it."""
    from workbench.cli import main

    root = click.Context(main, info_name="workbench", terminal_width=WIDTH, max_content_width=WIDTH,
                         **main.context_settings)
    lines = ["# Command reference", "",
             "<!-- Generated from the click commands by `make docs`; edit the code, not this page. -->", "",
             "Every command, as `workbench COMMAND --help` prints it. Every command also takes `--db PATH`",
             "(default `$WORKBENCH_DB`, else `./workbench.db`).", "", "```", main.get_help(root), "```", ""]
    for name in main.list_commands(root):
        lines += _command(main.get_command(root, name), name, root, level=2)
    return "\n".join(lines)


def _command(command: click.Command, name: str, parent: click.Context, level: int) -> list[str]:
    context = click.Context(command, info_name=name, parent=parent, terminal_width=WIDTH, max_content_width=WIDTH)
    lines = [f"{'#' * level} {context.command_path}", "", "```", command.get_help(context), "```", ""]
    if isinstance(command, click.Group):
        for sub in command.list_commands(context):
            lines += _command(command.get_command(context, sub), sub, context, level + 1)
    return lines


def keys_markdown() -> str:
    from workbench.tui.app import WorkbenchApp
    from workbench.tui.key_catalogue import keys_markdown as from_bindings

    return from_bindings(WorkbenchApp)


def site_page(source: Path) -> str:
    """A page of the repository's root as the site shows it: links into docs/ made relative
    to the site, a link to BENCHMARKS.md to its page there."""
    text = source.read_text(encoding="utf-8")
    text = re.sub(r"\]\(docs/", "](", text)
    text = text.replace("](BENCHMARKS.md)", "](benchmarks.md)")
    note = f"<!-- Generated from {source.name} by `make docs`; edit {source.name}, not this page. -->\n\n"
    return note + text


def generated() -> dict[str, str]:
    """Page path (under docs/) -> its text, as the code and the root pages make it now."""
    return {PAGES[0]: cli_markdown() + "\n", PAGES[1]: keys_markdown() + "\n",
            PAGES[2]: site_page(ROOT / "README.md"), PAGES[3]: site_page(ROOT / "BENCHMARKS.md")}


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    folder = Path(next((arg for arg in args if arg != "--check"), "docs"))
    stale = []
    for page, text in generated().items():
        path = folder / page
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if stale:
        print(f"out of date with the code: {', '.join(stale)} (run `make docs`)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
