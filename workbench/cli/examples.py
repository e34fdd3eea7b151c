"""The docs' console examples, written from real runs: every ```console block of the README and
of docs/ whose lines start with `$ workbench` is run, command by command, on a fresh demo
database, and the block is rewritten with each command's whole output as a user sees it at 80
columns (stdout and stderr together).

    python -m workbench.cli.examples                 # rewrite every page's examples (make examples)
    python -m workbench.cli.examples docs/runs.md    # only these pages
    python -m workbench.cli.examples --check         # exit 1 when a page shows other output

How a run is kept the same everywhere:
* each page starts from its own copy of one demo database (`workbench demo --no-tui`), and its
  blocks run in page order on it, so a page's later examples see what its earlier ones did;
* the commands run, as typed, in a temporary folder (/tmp/wbx-XXXXXXXX: always the same length,
  so lines wrap alike) that holds that copy as `demo.db`, a link to the checkout's `workbench/`
  (so `workbench/demo_data/...` paths work, as in a checkout after `make demo`), an empty config
  folder and an empty Hugging Face cache, so nothing of the writer's own setup shows;
* output lines lose their trailing spaces, and what differs between two runs on one machine is
  replaced (RUN_TO_RUN: elapsed times, rates, today's date, clock times, the progress bar's
  length, the temporary folder, the checkout's path). The demo's model answers with temperature 0 and seed 0, so its
  verdicts are the same on every run of the same llama.cpp build.
* the check (and tests/test_docs.py) compares words, not line breaks, and also sets aside what
  differs between machines (MACHINE: the llama.cpp build's features, thread counts, package
  versions), since their lengths move where Rich wraps a line.

A block preceded by a `<!-- recorded ... -->` line is left as written (say why in the comment,
e.g. the output needs an API key).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, date, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORKBENCH = str(Path(sys.executable).with_name("workbench"))
BLOCK = re.compile(r"(?P<before>^[^\n]*\n)?^```console\n(?P<body>.*?)^```$", re.M | re.S)
RECORDED = "<!-- recorded"
PROMPT = "$ workbench "
TIMEOUT = 900

RUN_TO_RUN: list[tuple[re.Pattern[str], str]] = [
    # durations and rates: how fast this machine was today
    (re.compile(r"\b\d[\d,]*(\.\d+)? ?(claims|items|answers|requests|tokens|tok)/(min|s)\b"), r"N \2/\3"),
    (re.compile(r"\b\d+(\.\d+)? ?it/s\b"), "N it/s"),
    (re.compile(r"\bETA \d+(h|m|s)(\d+s)?\b"), "ETA Ns"),
    (re.compile(r"\b\d+:\d\d:\d\d\b"), "0:00:00"),
    (re.compile(r"\b\d+(\.\d+)?(ms| s|s)\b(?! ago)"), r"N\2"),
    (re.compile(r"━{3,}"), "━" * 20),
    # clock and calendar: when the example ran
    (re.compile(r"\b20\d\d-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?"), "2026-01-01 00:00"),
    (re.compile(r"\b\d+ (second|minute|hour|day)s? ago\b"), "just now"),
]
"""(pattern, replacement) for what differs between two runs of the same example on one machine."""

MACHINE: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"llama\.cpp( [A-Z][A-Z0-9_]+)+;"), "llama.cpp BUILD;"),
    (re.compile(r"\bengine\.build \(— vs [^)]*\)"), "engine.build (— vs BUILD)"),
    (re.compile(r"\b\d+ threads? \(\d+ for prompts\)"), "N threads (N for prompts)"),
    (re.compile(r"\bn_threads(_batch)? \(— vs \d+\)"), r"n_threads\1 (— vs N)"),
    (re.compile(r"(\bversions\.[\w.-]+ \(— vs |\bnltk )\d+(\.\d+)+"), r"\1N"),
]
"""(pattern, replacement) for what differs between machines: set aside by the check only."""


def pages() -> list[Path]:
    """The README and every hand-written page under docs/ (the generated ones copy the README)."""
    from workbench.cli.reference import PAGES

    docs = ROOT / "docs"
    return [ROOT / "README.md"] + sorted(
        path for path in docs.rglob("*.md") if str(path.relative_to(docs)) not in PAGES
    )


def commands(body: str) -> list[str]:
    """The `workbench ...` commands of a console block, in order."""
    return [line[2:] for line in body.splitlines() if line.startswith(PROMPT)]


def has_examples(text: str) -> bool:
    """Whether a page has a console block of workbench commands."""
    return any(commands(match.group("body")) for match in BLOCK.finditer(text))


def rewritten(text: str, run) -> str:
    """The page with each console block's outputs made again by `run(command) -> lines`."""

    def block(match: re.Match) -> str:
        before = match.group("before") or ""
        if before.startswith(RECORDED) or not commands(match.group("body")):
            return match.group(0)
        lines = []
        for command in commands(match.group("body")):
            lines += [f"$ {command}", *run(command)]
        return before + "```console\n" + "".join(line + "\n" for line in lines) + "```"

    return BLOCK.sub(block, text)


def normalised(output: str, folder: Path) -> list[str]:
    """Output lines as the docs show them: trailing spaces and blank end lines dropped, what
    varies between runs (RUN_TO_RUN, today's date, the temporary folder, the checkout) replaced."""
    output = output.replace(str(folder), "/tmp/wbx-examples").replace(str(ROOT), ".")
    today = {date.today().isoformat(), datetime.now(UTC).date().isoformat()}
    output = re.sub("|".join(today), "2026-01-01", output)
    for pattern, replacement in RUN_TO_RUN:
        output = pattern.sub(replacement, output)
    lines = [line.rstrip() for line in output.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


class Runner:
    """Runs one page's commands in `folder`, on its own copy of the demo database (if given)."""

    def __init__(self, demo: Path | None, folder: Path):
        self.folder = folder
        if demo is not None:
            shutil.copy(demo, folder / "demo.db")
        (folder / "workbench").symlink_to(ROOT / "workbench")
        self.environment = _environment(folder)

    def __call__(self, command: str) -> list[str]:
        done = subprocess.run(
            [WORKBENCH, *shlex.split(command)[1:]],
            cwd=self.folder,
            env=self.environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=TIMEOUT,
        )
        if done.returncode != 0:
            raise ExampleFailed(f"`{command}` exited {done.returncode}:\n{done.stdout[-1500:]}")
        return normalised(done.stdout, self.folder)


class ExampleFailed(Exception):
    """An example command that does not run: the docs show only commands that work."""


def _environment(folder: Path) -> dict[str, str]:
    """This process's environment without the writer's own workbench settings, at 80 columns."""
    keep = {name: value for name, value in os.environ.items() if not name.upper().startswith("WORKBENCH_")}
    for name in ("COLUMNS", "LINES", "FORCE_COLOR", "NO_COLOR", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        keep.pop(name, None)
    (folder / "config").mkdir(exist_ok=True)
    keep.update(
        COLUMNS="80",
        LINES="24",
        XDG_CONFIG_HOME=str(folder / "config"),
        HF_HOME=str(folder / "hf"),
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    )
    return keep


CHECKOUT_PATH = re.compile(r"(?<!\S)(?:\./|/)\S*/([^\s/]+)")
"""A path that starts with the checkout ("./...") or whose folders gave way to "…" to fit a
column: how much of it shows depends on how long the checkout's own path is."""


def _file_name_only(match: re.Match) -> str:
    path = match.group(0)
    return "…/" + match.group(1) if path.startswith("./") or "…/" in path else path


def comparable(text: str) -> str:
    """A page's text as the check compares it: its words, with what differs between machines
    (MACHINE, and the folders of paths in the checkout) set aside."""
    text = " ".join(text.split())
    for pattern, replacement in MACHINE:
        text = pattern.sub(replacement, text)
    return CHECKOUT_PATH.sub(_file_name_only, text)


def make_demo(folder: Path) -> Path:
    """A fresh demo database, as `workbench demo --no-tui` makes it."""
    db = folder / "demo.db"
    subprocess.run(
        [WORKBENCH, "--db", str(db), "demo", "--no-tui"],
        cwd=ROOT,
        env=_environment(folder),
        check=True,
        capture_output=True,
        timeout=TIMEOUT,
    )
    return db


def regenerated(paths: list[Path] | None = None) -> dict[Path, str]:
    """Each page (all by default) -> its text with its examples' outputs made now."""
    with tempfile.TemporaryDirectory(prefix="workbench-examples-") as scratch:
        demo = make_demo(Path(scratch))
        return {path: page_regenerated(path, demo) for path in paths or pages()}


def page_regenerated(path: Path, demo: Path) -> str:
    """One page's text with its examples run on a copy of `demo` in a new temporary folder."""
    folder = Path(tempfile.mkdtemp(prefix="wbx-"))
    try:
        return rewritten(path.read_text(encoding="utf-8"), Runner(demo, folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    chosen = [Path(arg).resolve() for arg in args if arg != "--check"] or None
    try:
        made = regenerated(chosen)
    except ExampleFailed as failed:
        print(f"an example does not run: {failed}", file=sys.stderr)
        return 1
    if check:
        stale = [
            path for path, text in made.items() if comparable(path.read_text(encoding="utf-8")) != comparable(text)
        ]
        if stale:
            names = ", ".join(str(path.relative_to(ROOT)) for path in stale)
            print(f"examples out of date: {names} (run `make examples`)", file=sys.stderr)
        return 1 if stale else 0
    for path, text in made.items():
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"rewrote {path.relative_to(ROOT)}")
    from workbench.cli import reference

    return reference.main([str(ROOT / "docs")])  # the site's home page copies the README


if __name__ == "__main__":
    raise SystemExit(main())
