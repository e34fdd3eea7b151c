"""Start-up as a user waits for it: whole processes, from launch to output.

Figures printed (median of --repeat runs; targets in brackets):
  workbench --help                                   (< 0.3 s)
  workbench COMMAND --help, for every command        (< 0.3 s, the slowest shown)
  workbench runs on the demo database
  workbench tui on the 1M-claim database, from process start to the first frame that
  shows rows and the "N of M claims" count, in a real terminal (tmux, 100x30)   (< 1 s)
Each beside a bare `python -c pass` in the same run: as a plain process for the commands,
and in the same tmux harness (start the pane, see its first line) for the TUI.

    python bench/bench_startup.py [--claims 1000000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORKBENCH = str(Path(sys.executable).with_name("workbench"))
COUNT_LINE = re.compile(r"[\d,]+ of [\d,]+ claims")
ROW_LINE = re.compile(r"^\s+\d+ \S")
SESSION = "bench-startup"


def wall(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def median_wall(command: list[str], repeat: int) -> float:
    return statistics.median(wall(command) for _ in range(repeat))


def pane_text() -> str:
    result = subprocess.run(["tmux", "capture-pane", "-p", "-t", SESSION], capture_output=True, text=True)
    return result.stdout


def until_shown(command: str, shown) -> float:
    """Seconds from starting `command` in a new 100x30 tmux pane until `shown(pane text)`."""
    subprocess.run(["tmux", "kill-session", "-t", SESSION], stderr=subprocess.DEVNULL)
    started = time.perf_counter()
    subprocess.run(["tmux", "new-session", "-d", "-s", SESSION, "-x", "100", "-y", "30", command], check=True)
    try:
        while True:
            if shown(pane_text()):
                return time.perf_counter() - started
            if time.perf_counter() - started > 60:
                raise RuntimeError(f"nothing shown after 60 s:\n{pane_text()}")
            time.sleep(0.005)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", SESSION], stderr=subprocess.DEVNULL)


def tui_ready(text: str) -> bool:
    """Rows on screen and the status line's count (not "counting…")."""
    lines = text.splitlines()
    return any(COUNT_LINE.search(line) for line in lines) and any(ROW_LINE.match(line) for line in lines)


def command_names() -> list[str]:
    from workbench.cli import COMMANDS

    return sorted(COMMANDS)


def demo_database(folder: Path) -> Path:
    path = folder / "demo.db"
    subprocess.run([WORKBENCH, "--db", str(path), "demo", "--no-tui"], stdout=subprocess.DEVNULL, check=True)
    return path


def big_database(claims: int) -> Path:
    from bench.make_big_db import default_path, existing_claims

    path = default_path(claims)
    if existing_claims(path) != claims:
        subprocess.run([sys.executable, str(ROOT / "bench" / "make_big_db.py"), "--claims", str(claims)], check=True)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    repeat = args.repeat
    bare = median_wall([sys.executable, "-c", "pass"], repeat)
    print(f"python -c pass                      {bare * 1000:7.0f} ms   (the floor)")
    help_all = median_wall([WORKBENCH, "--help"], repeat)
    print(f"workbench --help                    {help_all * 1000:7.0f} ms   {help_all / bare:5.1f}x bare   [< 300 ms]")
    per_command = {name: median_wall([WORKBENCH, *name.split(), "--help"], repeat) for name in command_names()}
    slowest = max(per_command, key=per_command.get)
    print(f"workbench COMMAND --help, slowest   {per_command[slowest] * 1000:7.0f} ms   ({slowest};"
          f" median over commands {statistics.median(per_command.values()) * 1000:.0f} ms)   [< 300 ms]")
    with tempfile.TemporaryDirectory() as folder:
        demo = demo_database(Path(folder))
        runs = median_wall([WORKBENCH, "--db", str(demo), "runs"], repeat)
    print(f"workbench runs (demo database)      {runs * 1000:7.0f} ms   {runs / bare:5.1f}x bare")
    if shutil.which("tmux") is None:
        print("tmux is not installed: the TUI launch is not measured")
        return
    big = big_database(args.claims)
    marker = "ready"
    pane_floor = statistics.median(
        until_shown(f"{sys.executable} -c 'print(\"{marker}\"); import time; time.sleep(30)'",
                    lambda text: marker in text) for _ in range(repeat))
    until_shown(f"{WORKBENCH} --db {big} tui", tui_ready)  # warm the page cache once
    launches = [until_shown(f"{WORKBENCH} --db {big} tui", tui_ready) for _ in range(repeat)]
    launch = statistics.median(launches)
    print(f"tmux pane showing `python -c print` {pane_floor * 1000:7.0f} ms   (the floor in a terminal)")
    print(f"workbench tui to rows + count       {launch * 1000:7.0f} ms   {launch / pane_floor:5.1f}x the floor"
          f"   [< 1000 ms]  ({args.claims:,} claims; runs {', '.join(f'{t * 1000:.0f}' for t in launches)} ms)")


if __name__ == "__main__":
    main()
