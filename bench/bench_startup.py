"""Start-up as a user waits for it: whole processes, from launch to output.

Figures printed, each beside its baseline measured in the same rounds (targets in brackets),
each command's output going to a pipe and to a terminal (a pty 100 columns wide, so Rich
draws with styles as on a user's screen):
  workbench --help                         against `python -c pass`           [<= 4x]
  each command that reads and prints (claims, show, runs, datasets, predictions, profiles,
  prompts, filter-help, trajectory, search-stats) on the demo database
                                           against `workbench --help`         [<= 2x]
  python importing click and Rich and printing a one-row table (what every command that
  prints a table starts from: `--help` needs neither Rich nor any command's module)
  workbench COMMAND --help, the slowest    against `python -c pass`
  workbench claims --where 'run:big-a wrong label:Refuted' --limit 100 on the 1M-claim
  database with two runs of 300,000 answers
                                           against a bare python process doing the same
                                           page and count with sqlite3        [<= 2x]
  workbench tui on the 1M-claim database, from process start to the first frame that shows
  rows and the "N of M claims" count, in a real terminal (tmux, 100x30)
                                           against a tmux pane printing one line with the
                                           same python                        [<= 15x]

Every command runs as a user runs it: with a config file (annotator, theme, a key, a keymap)
and with Python writing its bytecode caches (a warm-up run first), so what is timed is the
interpreter start, the imports and the work. Within a round every command runs once to the
pipe and once to the terminal, in turn, so that a command and its baseline share the
machine's load alike. Each time printed is the median of --repeat rounds; each ratio of the
start-up table is the median of the rounds' own ratios (a command's time over its baseline's
in the same round: paired, so a busy moment that slows both leaves their ratio; the ratio of
the two medians moved by 0.5 between runs of 9 rounds on a shared machine).

    python bench/bench_startup.py [--claims 1000000] [--repeat 7] [--no-big]

--before CHECKOUT runs `--help` and the reading commands of another checkout (a folder
holding its workbench/ and store/, e.g. `git archive main | tar -x -C /tmp/main`) in the
same rounds too, and prints them beside this one's: before and after under the same load.

--cpu times each process by the processor time it used (user + system) rather than the wall
clock: on a machine other people are using, the wall clock counts the time a process waits
for a core; processor time does much less so (it still feels shared caches).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import resource
import shlex
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORKBENCH = str(Path(sys.executable).with_name("workbench"))
COUNT_LINE = re.compile(r"[\d,]+ of [\d,]+ claims")
ROW_LINE = re.compile(r"^\s+\d+ \S")
SESSION = "bench-startup"
RUN_PAGE = "run:big-a wrong label:Refuted"
READ_COMMANDS = {
    "claims --limit 1": ["claims", "--limit", "1"],
    "claims": ["claims"],
    "show": ["show", "1"],
    "runs": ["runs"],
    "datasets": ["datasets"],
    "predictions": ["predictions", "demo-checker"],
    "profiles": ["profiles"],
    "prompts": ["prompts"],
    "filter-help": ["filter-help"],
    "trajectory": ["trajectory", "demo-checker", "1"],
    "search-stats": ["search-stats", "demo-checker"],
}
CLICK_AND_RICH = (
    "import click\nfrom rich.console import Console\nfrom rich.table import Table\n"
    "table = Table('id', 'claim')\ntable.add_row('1', 'a claim')\nConsole().print(table)"
)
CONFIG = """annotator = "ana"
theme = "textual-dark"
[keys]
openai = "sk-not-a-real-key"
[keymap]
"claims.flag" = "ctrl+f"
"""


def user_environment(folder: Path) -> dict[str, str]:
    """A user's environment: a config file of the usual kind, bytecode caches written."""
    config = folder / "config.toml"
    config.write_text(CONFIG, encoding="utf-8")
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONDONTWRITEBYTECODE", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE")
        and not key.startswith("WORKBENCH_")
    }
    env["WORKBENCH_CONFIG"] = str(config)
    env.setdefault("TERM", "xterm-256color")
    return env


CLOCK = {"cpu": False}
"""--cpu: time each process by the processor time it used (user + system) instead of the
wall clock: on a machine others are using, a process waiting for a core is not slower."""


def wall(command: list[str], env: dict[str, str], terminal: bool = False) -> float:
    """Seconds from launch until the process has written everything and ended, its output
    read from a pipe or (terminal) from a pty (with --cpu: the processor seconds it used)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    if terminal:
        elapsed = wall_in_terminal(command, env)
    else:
        started = time.perf_counter()
        subprocess.run(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True, env=env
        )
        elapsed = time.perf_counter() - started
    if not CLOCK["cpu"]:
        return elapsed
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - used.ru_utime) + (after.ru_stime - used.ru_stime)


def wall_in_terminal(command: list[str], env: dict[str, str], columns: int = 100, rows: int = 30) -> float:
    """`command` with its output on a new pseudo-terminal `columns` wide, read as it comes."""
    reader, writer = pty.openpty()
    fcntl.ioctl(writer, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    started = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=writer, stderr=writer, env=env)
    os.close(writer)
    while True:
        try:
            if not os.read(reader, 65536):
                break
        except OSError:  # EIO: every writer has closed the terminal
            break
    status = process.wait()
    elapsed = time.perf_counter() - started
    os.close(reader)
    if status:
        raise subprocess.CalledProcessError(status, command)
    return elapsed


def rounds(
    commands: dict[str, list[str]],
    repeat: int,
    env: dict[str, str],
    where: tuple[str, ...] = ("pipe",),
    envs: dict[str, dict[str, str]] | None = None,
) -> dict[tuple[str, str], list[float]]:
    """Each round's wall time of each command to each of `where` (pipe, terminal); one warm-up
    run each, then in each round every command to each place in turn. `envs` gives some
    commands an environment of their own."""
    envs = envs or {}
    for name, command in commands.items():
        wall(command, envs.get(name, env))
    times: dict[tuple[str, str], list[float]] = {(name, place): [] for name in commands for place in where}
    for _ in range(repeat):
        for name, command in commands.items():
            for place in where:
                times[name, place].append(wall(command, envs.get(name, env), terminal=place == "terminal"))
    return times


def medians(
    commands: dict[str, list[str]], repeat: int, env: dict[str, str], **options
) -> dict[tuple[str, str], float]:
    """The median of each command's rounds (see `rounds`)."""
    return {key: statistics.median(values) for key, values in rounds(commands, repeat, env, **options).items()}


def paired_ratio(times: list[float], baseline: list[float]) -> float:
    """The median over rounds of a command's time over its baseline's in the same round: a
    moment when the machine is busy slows both, and leaves their ratio."""
    return statistics.median(mine / theirs for mine, theirs in zip(times, baseline))


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.0f} ms"


PLACES = ("pipe", "terminal")


BEFORE = " (before)"


def print_reads(times: dict[tuple[str, str], list[float]], suffix: str = "") -> None:
    """`--help` against the floor, and each reading command against `--help`, to a pipe and
    to a terminal (each beside its own baseline taken the same way): the median time, and the
    median of the rounds' ratios (paired_ratio); `suffix` picks the checkout (this one, or
    --before's)."""
    print(f"{'':42}{'to a pipe':>26}   {'to a terminal (pty)':>26}")

    def row(label: str, name: str, baseline: str, target: str) -> None:
        cells = [
            f"{ms(statistics.median(times[name, place]))} {paired_ratio(times[name, place], times[baseline, place]):5.2f}x"
            for place in PLACES
        ]
        print(f"{label:<42}{cells[0]:>26}   {cells[1]:>26}   {target}")

    floors = [ms(statistics.median(times["bare", place])) for place in PLACES]
    print(f"{'python -c pass (the floor)':<42}" + "".join(f"{floor:>26}   " for floor in floors))
    row(f"workbench --help{suffix}, x the floor", "help" + suffix, "bare", "[<= 4x]")
    print("reading commands on the demo database, x `workbench --help` in the same rounds:")
    if not suffix:
        row("  python: click + Rich, a one-row table", "rich", "help", "(what a Rich table costs)")
    for name in READ_COMMANDS:
        row(f"  workbench {name}{suffix}", name + suffix, "help" + suffix, "[<= 2x]")


def reading_commands(demo: Path, before: Path | None, env: dict[str, str]):
    """The commands timed in one set of rounds (this checkout's, and --before's when given),
    and the environments of --before's (its checkout first on PYTHONPATH)."""
    ours = {
        "help": [WORKBENCH, "--help"],
        **{name: [WORKBENCH, "--db", str(demo), *words] for name, words in READ_COMMANDS.items()},
    }
    commands = {"bare": [sys.executable, "-c", "pass"], "rich": [sys.executable, "-c", CLICK_AND_RICH], **ours}
    if before is None:
        return commands, {}
    path = os.pathsep.join([str(before.resolve()), *[p for p in [env.get("PYTHONPATH")] if p]])
    their_env = {**env, "PYTHONPATH": path}
    # Its own demo database, made by its own code: a newer schema is refused by older code.
    their_demo = demo.parent / "before" / demo.name
    their_demo.parent.mkdir(exist_ok=True)
    subprocess.run(
        [WORKBENCH, "--db", str(their_demo), "demo", "--no-tui"], stdout=subprocess.DEVNULL, check=True, env=their_env
    )
    theirs = {
        name + BEFORE: [part if part != str(demo) else str(their_demo) for part in command]
        for name, command in ours.items()
    }
    return {**commands, **theirs}, {name: their_env for name in theirs}


def command_names() -> list[str]:
    from workbench.cli import COMMANDS

    return sorted(COMMANDS)


def demo_database(folder: Path, env: dict[str, str]) -> Path:
    """The demo, its run given a stored search trajectory for claim 1 (what trajectory and
    search-stats read)."""
    from store import Step, Store, StoredResult

    path = folder / "demo.db"
    subprocess.run([WORKBENCH, "--db", str(path), "demo", "--no-tui"], stdout=subprocess.DEVNULL, check=True, env=env)
    store = Store.open(path)
    run = store.runs.get("demo-checker")
    store.search.record_step(
        run.id,
        1,
        Step(
            1,
            "search",
            text="Looking it up.",
            tool="search",
            query="lighthouse",
            results=[StoredResult(1, "https://example.org/a", "A page", "text")],
        ),
    )
    store.search.record_step(run.id, 1, Step(2, "answer", text="Refuted"))
    store.close()
    return path


def big_database(claims: int) -> Path:
    """The 1M-claim database with two runs of 300,000 answers (built once, cached)."""
    from bench.make_big_db import default_path, existing_claims, existing_runs, run_names

    path = default_path(claims)
    wanted = {name: (min(300_000, claims), 0.6) for name in run_names(2)}
    if existing_claims(path) != claims or existing_runs(path) != wanted:
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "bench" / "make_big_db.py"),
                "--claims",
                str(claims),
                "--runs",
                "2",
                "--predictions",
                "300000",
                "--accuracy",
                "0.6",
            ],
            check=True,
        )
    return path


def run_page_statements(path: Path) -> list[str]:
    """The SQL `workbench claims --where RUN_PAGE --limit 100` sends for its page and its count
    (parameters in place), read off the store as the command uses it."""
    from store import PageRequest, Store

    store = Store.open(path)
    statements: list[str] = []
    store.db.conn.set_trace_callback(statements.append)
    store.claims.page(PageRequest(filter=RUN_PAGE, sort="id", limit=100))
    store.claims.counts_by_dataset(RUN_PAGE)
    store.close()
    return [sql for sql in statements if "FROM claims c" in sql]


def bare_page_process(path: Path, statements: list[str]) -> list[str]:
    """A bare python process doing the same page and count with sqlite3 (and printing them)."""
    code = (
        "import sqlite3, sys\nconnection = sqlite3.connect(sys.argv[1])\n"
        "for sql in sys.argv[2:]:\n    print(connection.execute(sql).fetchall())\n"
    )
    return [sys.executable, "-c", code, str(path), *statements]


TMUX = ["tmux", "-L", SESSION]
"""A tmux server of our own: a shared one would start panes with its own environment (another
checkout's PYTHONPATH, say), not ours."""


def pane_text() -> str:
    result = subprocess.run([*TMUX, "capture-pane", "-p", "-t", SESSION], capture_output=True, text=True)
    return result.stdout


def in_our_environment(command: str, env: dict[str, str]) -> str:
    """`command` run with our PYTHONPATH and config, bytecode caches on, whatever tmux passes."""
    given = [f"{key}={shlex.quote(env[key])}" for key in ("PYTHONPATH", "WORKBENCH_CONFIG") if key in env]
    return f"env -u PYTHONDONTWRITEBYTECODE -u WORKBENCH_DB {' '.join(given)} {command}"


def until_shown(command: str, shown, env: dict[str, str]) -> float:
    """Seconds from starting `command` in a new 100x30 tmux pane until `shown(pane text)`."""
    subprocess.run([*TMUX, "kill-session", "-t", SESSION], stderr=subprocess.DEVNULL)
    started = time.perf_counter()
    subprocess.run(
        [*TMUX, "new-session", "-d", "-s", SESSION, "-x", "100", "-y", "30", in_our_environment(command, env)],
        check=True,
        env=env,
    )
    try:
        while True:
            if shown(pane_text()):
                return time.perf_counter() - started
            if time.perf_counter() - started > 60:
                raise RuntimeError(f"nothing shown after 60 s:\n{pane_text()}")
            time.sleep(0.005)
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", SESSION], stderr=subprocess.DEVNULL)


def tui_ready(text: str) -> bool:
    """Rows on screen and the status line's count (not "counting…")."""
    lines = text.splitlines()
    return any(COUNT_LINE.search(line) for line in lines) and any(ROW_LINE.match(line) for line in lines)


def tui_launch(big: Path, repeat: int, env: dict[str, str]) -> tuple[float, float, list[float]]:
    """(the terminal's floor, the TUI's median, each TUI launch), taken in turn."""
    marker = "ready"
    floor_command = f"{sys.executable} -c 'print(\"{marker}\"); import time; time.sleep(30)'"
    tui_command = f"{WORKBENCH} --db {big} tui"
    until_shown(tui_command, tui_ready, env)  # warm the page cache and the bytecode once
    floors, launches = [], []
    for _ in range(repeat):
        floors.append(until_shown(floor_command, lambda text: marker in text, env))
        launches.append(until_shown(tui_command, tui_ready, env))
    subprocess.run([*TMUX, "kill-server"], stderr=subprocess.DEVNULL)
    return statistics.median(floors), statistics.median(launches), launches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--no-big", action="store_true", help="skip the 1M-claim page and the TUI")
    parser.add_argument(
        "--before",
        type=Path,
        metavar="CHECKOUT",
        help="also time this checkout's --help and reading commands, in the same rounds",
    )
    parser.add_argument("--cpu", action="store_true", help="time processes by processor time, not wall time")
    args = parser.parse_args()
    repeat = args.repeat
    CLOCK["cpu"] = args.cpu
    clock = "processor time (user + system)" if args.cpu else "wall time"
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; medians of {repeat} runs, {clock}")
    with tempfile.TemporaryDirectory() as folder:
        env = user_environment(Path(folder))
        demo = demo_database(Path(folder), env)
        commands, envs = reading_commands(demo, args.before, env)
        times = rounds(commands, repeat, env, where=PLACES, envs=envs)
        print_reads(times)
        if args.before is not None:
            print(f"the same rounds, the checkout in {args.before}:")
            print_reads(times, BEFORE)
        per_command = medians(
            {name: [WORKBENCH, *name.split(), "--help"] for name in command_names()}, max(3, repeat // 2), env
        )
        per_command = {name: seconds for (name, _), seconds in per_command.items()}
        slowest = max(per_command, key=per_command.get)
        bare = statistics.median(times["bare", "pipe"])
        print(
            f"workbench COMMAND --help, the slowest   {ms(per_command[slowest])}   {per_command[slowest] / bare:5.1f}x"
            f" the floor   ({slowest}; median over commands {statistics.median(per_command.values()) * 1000:.0f} ms)"
        )
    if args.no_big:
        return
    big = big_database(args.claims)
    statements = run_page_statements(big)
    page = medians(
        {
            "bare": bare_page_process(big, statements),
            "workbench": [WORKBENCH, "--db", str(big), "claims", "--where", RUN_PAGE, "--limit", "100"],
        },
        repeat,
        env,
    )
    page = {name: seconds for (name, _), seconds in page.items()}
    print(f"run-relative page on {args.claims:,} claims: claims --where '{RUN_PAGE}' --limit 100")
    print(f"  bare python + sqlite3, same page and count {ms(page['bare'])}   (the baseline)")
    print(
        f"  workbench claims                       {ms(page['workbench'])}   {page['workbench'] / page['bare']:5.2f}x"
        f" the bare process   [<= 2x]"
    )
    if shutil.which("tmux") is None:
        print("tmux is not installed: the TUI launch is not measured")
        return
    pane_floor, launch, launches = tui_launch(big, repeat, env)
    print(f"tmux pane showing `python -c print`     {ms(pane_floor)}   (the floor in a terminal)")
    print(
        f"workbench tui to rows + count           {ms(launch)}   {launch / pane_floor:5.1f}x the floor   [<= 15x]"
        f"   ({args.claims:,} claims; runs {', '.join(f'{t * 1000:.0f}' for t in launches)} ms)"
    )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
