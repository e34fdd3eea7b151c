"""K on a judge run in the TUI's metrics view, as a user sees it: the whole `workbench tui`
in a pseudo-terminal (80x24), timed from the K keystroke to "cancelled" reaching the
terminal (docs/keys-and-waits.md promises under a second).

The judge is an OpenAI-compatible server on loopback that takes 2 s an answer, so answers
are in flight when K is pressed. Baseline, in the same run: from the j keystroke to the
judge prompt on the screen (how quickly this TUI answers a key on this machine now).

    python bench/bench_tui_cancel.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_cancel import WORKBENCH, Terminal  # noqa: E402
from tests.loopback_servers import LoopbackServer  # noqa: E402


def judge(body) -> str:
    return json.dumps({"score": 7, "justification": "Right."})


def seen_after(terminal: Terminal, mark: int, text: bytes, timeout: float = 60) -> float:
    """perf_counter() when `text` shows in what the terminal received after byte `mark`."""
    started = time.perf_counter()
    while text not in terminal.output[mark:]:
        if time.perf_counter() - started > timeout:
            raise RuntimeError(f"never saw {text!r}:\n{terminal.output[-3000:].decode(errors='replace')}")
        terminal._drain(0.005)
    return time.perf_counter()


def press_k(db: Path, env: dict, url: str) -> tuple[float, float]:
    """(seconds from K to "cancelled" on the terminal, seconds from j to the judge prompt)."""
    terminal = Terminal([WORKBENCH, "--db", str(db), "tui"], env)
    try:
        terminal.wait_for(b"Quit")
        os.write(terminal.fd, b"m")
        terminal.wait_for(b"coverage")
        mark = len(terminal.output)
        pressed = time.perf_counter()
        os.write(terminal.fd, b"j")
        prompt = seen_after(terminal, mark, b"judge the explanations") - pressed
        for key in [b"\x15", f"openai-compatible:judge {url}".encode(), b"\r"]:
            os.write(terminal.fd, key)
            time.sleep(0.3)
        seen_after(terminal, mark, b"K cancels")
        time.sleep(1.0)  # answers in flight
        mark = len(terminal.output)
        pressed = time.perf_counter()
        os.write(terminal.fd, b"K")
        return seen_after(terminal, mark, b"cancelled") - pressed, prompt
    finally:
        os.kill(terminal.pid, 9)
        os.waitpid(terminal.pid, 0)
        os.close(terminal.fd)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
    cancels, prompts = [], []
    with tempfile.TemporaryDirectory() as folder, LoopbackServer("openai", latency=2.0, answer=judge) as server:
        db = Path(folder) / "demo.db"  # as `workbench demo` makes it: runs with explanations to judge
        subprocess.run([WORKBENCH, "--db", str(db), "demo", "--no-tui"], env=env, check=True, capture_output=True)
        for _ in range(args.repeat):
            cancel, prompt = press_k(db, env, server.url)
            cancels.append(cancel)
            prompts.append(prompt)
    print(f"TUI metrics view, judge run: median of {args.repeat} (a whole `workbench tui` in an 80x24 pty)")
    print(
        f"  K to 'cancelled' on the terminal  {statistics.median(cancels):6.3f} s   (all: "
        + ", ".join(f"{s:.3f}" for s in cancels)
        + ")   target < 1 s"
    )
    print(f"  j to the judge prompt (baseline)  {statistics.median(prompts):6.3f} s")
    print(f"  ratio                             {statistics.median(cancels) / statistics.median(prompts):6.2f}")


if __name__ == "__main__":
    main()
