"""Ctrl-C during a local run, as a user presses it: a whole `workbench run` process in a
pseudo-terminal (80x24), timed from the ^C keystroke written to the terminal to the
process's exit.

Figures printed (median of --repeat presses each):
  local: `workbench run` on the embedded SmolLM2, ^C while an answer is being written
         (plain-text answers of up to 512 tokens: 10-15 s each here)          (< 1 s)
  idle:  the same `workbench run` command on an API model whose server never answers: the
         process is waiting, nothing to abandon (the baseline)
  local / idle, and how long the answer that was abandoned would still have taken
  (a whole answer, measured in the same run: what Ctrl-C waited for before)

    python bench/bench_cancel.py [--repeat 5] [--into 2.0]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import socket
import statistics
import struct
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORKBENCH = str(Path(sys.executable).with_name("workbench"))
LONG_ANSWERS = ["--param", "json=false", "--param", "max_tokens=512", "--no-cache"]


class Terminal:
    """A command in its own pseudo-terminal: the pty's line discipline turns ^C into SIGINT
    for its foreground process group, exactly as a terminal emulator's keystroke does."""

    def __init__(self, argv: list[str], env: dict[str, str]):
        self.output = b""
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the pty is its controlling terminal
            os.execve(argv[0], argv, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.status: int | None = None

    def _drain(self, timeout: float) -> None:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if ready:
            try:
                self.output += os.read(self.fd, 65536)
            except OSError:  # the child closed the terminal
                pass

    def _exited(self) -> bool:
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
        return self.status is not None

    def wait_for(self, text: bytes, timeout: float = 120) -> float:
        """perf_counter() when `text` first shows in the output."""
        started = time.perf_counter()
        while text not in self.output:
            if self._exited() or time.perf_counter() - started > timeout:
                raise RuntimeError(f"never saw {text!r}:\n{self.output.decode(errors='replace')[-2000:]}")
            self._drain(0.01)
        return time.perf_counter()

    def interrupt_and_time_exit(self, timeout: float = 120) -> float:
        """Write ^C, then seconds until the process has exited (its output drained meanwhile)."""
        pressed = time.perf_counter()
        os.write(self.fd, b"\x03")
        while not self._exited():
            if time.perf_counter() - pressed > timeout:
                raise RuntimeError("still running long after ^C")
            self._drain(0.002)
        ended = time.perf_counter() - pressed
        os.close(self.fd)
        return ended


def silent_server() -> tuple[str, socket.socket]:
    """A loopback address that accepts requests and never answers them."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            held.append(connection)  # kept open, never read from nor written to

    threading.Thread(target=accept, daemon=True).start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}/v1", listener


def demo_database(folder: Path) -> Path:
    from store import Store
    from workbench.cli.demo import load_demo

    path = folder / "demo.db"
    store = Store.open(path)
    load_demo(store)
    store.close()
    return path


def press_during_local_answer(db: Path, env: dict, into: float, trial: int) -> tuple[float, int]:
    """(seconds from ^C to exit, exit status) with `into` seconds of an answer written."""
    argv = [
        WORKBENCH,
        "--db",
        str(db),
        "run",
        "--dataset",
        "demo",
        "--limit",
        "24",
        "--name",
        f"local-{trial}",
        *LONG_ANSWERS,
    ]
    terminal = Terminal(argv, env)
    started = terminal.wait_for(b"answering")  # the model is loaded; the first answer is being written
    time.sleep(max(0.0, into - (time.perf_counter() - started)))
    return terminal.interrupt_and_time_exit(), terminal.status


def press_while_idle(db: Path, env: dict, url: str, into: float, trial: int) -> tuple[float, int]:
    argv = [
        WORKBENCH,
        "--db",
        str(db),
        "run",
        "--dataset",
        "demo",
        "--limit",
        "24",
        "--name",
        f"idle-{trial}",
        "--model",
        "openai-compatible:silent",
        "--base-url",
        url,
        "--concurrency",
        "1",
    ]
    terminal = Terminal(argv, env)
    started = terminal.wait_for(b"answering")
    time.sleep(max(0.0, into - (time.perf_counter() - started)))
    return terminal.interrupt_and_time_exit(), terminal.status


def whole_answer_seconds(db: Path) -> float:
    """How long the first claim's answer takes to the end (what Ctrl-C waited for before)."""
    from store import Store
    from workbench.backends import CompletionRequest
    from workbench.backends.llama import LlamaBackend, default_gguf_path
    from workbench.runs.engine import RunRequest, prepare_run, verdict_request

    store = Store.open(db)
    try:
        prepared = prepare_run(
            store,
            RunRequest(
                dataset="demo", limit=1, name="whole", use_cache=False, params={"json": False, "max_tokens": 512}
            ),
        )
        claim = store.runs.claims(prepared.pending_claim_ids[:1])[0]
        request: CompletionRequest = verdict_request(prepared, claim, store)
    finally:
        store.close()
    backend = LlamaBackend(default_gguf_path(), {})
    backend.complete_blocking(request)  # warm-up, as the run's first answer had
    started = time.perf_counter()
    answer = backend.complete_blocking(request)
    return time.perf_counter() - started, answer.tokens_out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--into", type=float, default=2.0, help="Seconds into the run before ^C.")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
    env.pop("OPENAI_API_KEY", None)
    with tempfile.TemporaryDirectory() as folder:
        db = demo_database(Path(folder))
        url, listener = silent_server()
        local, idle = [], []
        for trial in range(args.repeat):  # interleaved, so both meet the same load on the machine
            seconds, status = press_during_local_answer(db, env, args.into, trial)
            assert status == 130, f"local run exited {status}"
            local.append(seconds)
            seconds, status = press_while_idle(db, env, url, args.into, trial)
            assert status == 130, f"idle run exited {status}"
            idle.append(seconds)
        listener.close()
        whole, tokens = whole_answer_seconds(db)
    print(f"^C to exit, median of {args.repeat} (each a whole `workbench run` process in an 80x24 pty)")
    print(
        f"  local SmolLM2, mid-answer   {statistics.median(local):6.3f} s   (all: "
        + ", ".join(f"{s:.3f}" for s in local)
        + ")   target < 1 s"
    )
    print(
        f"  idle (API, no answer yet)   {statistics.median(idle):6.3f} s   (all: "
        + ", ".join(f"{s:.3f}" for s in idle)
        + ")"
    )
    print(f"  ratio local / idle          {statistics.median(local) / statistics.median(idle):6.2f}")
    print(f"  a whole answer ({tokens} tokens), what ^C waited for before: {whole:.2f} s")


if __name__ == "__main__":
    main()
