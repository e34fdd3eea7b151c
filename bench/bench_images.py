"""Claims with images in the TUI (issue 13): keystroke to frame in a real terminal (tmux,
100x30, half-blocks: what works over SSH), on the demo database.

  Enter on a claim with an image, to its detail                 [< 100 ms]
  7 (the Images tab), to the picture drawn                       [< 100 ms]
beside the same Enter on a text-only claim and the tmux floor (a keystroke echoed by cat).

    .venv/bin/python bench/bench_images.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_big_runs import SESSION, keys, tmux_floor, wait_for  # noqa: E402

WORKBENCH = str(Path(sys.executable).with_name("workbench"))


def open_claim(filter_text: str, header: str) -> float:
    """Filter the browser to one claim, then time Enter to its detail header."""
    keys("/")
    time.sleep(0.3)
    keys("C-u")
    keys(filter_text, literal=True)
    keys("Enter")
    time.sleep(0.5)
    keys("Escape")
    time.sleep(0.3)
    started = time.perf_counter()
    keys("Enter")
    wait_for(lambda text: header in text)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    floor = tmux_floor(args.repeat)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "demo.db"
        subprocess.run([WORKBENCH, "--db", str(db), "demo", "--no-tui"], stdout=subprocess.DEVNULL, check=True)
        subprocess.run(["tmux", "kill-session", "-t", SESSION], stderr=subprocess.DEVNULL)
        subprocess.run(
            [
                "tmux",
                "new-session",
                "-d",
                "-s",
                SESSION,
                "-x",
                "100",
                "-y",
                "30",
                f"WORKBENCH_IMAGES=halfcell {WORKBENCH} --db {db} tui",
            ],
            check=True,
        )
        try:
            wait_for(lambda text: "claims" in text and "filter›" in text)
            image, tab, text_only = [], [], []
            for n in range(args.repeat + 1):  # the first round warms up
                opened = open_claim("ext:rfb-004", "demo-realfact:rfb-004")
                started = time.perf_counter()
                keys("7")
                wait_for(lambda text: "image 1 of 1" in text and "▀" in text)
                drawn = time.perf_counter() - started
                keys("Escape")
                time.sleep(0.3)
                plain = open_claim("ext:rfb-005", "demo-realfact:rfb-005")
                keys("Escape")
                time.sleep(0.3)
                if n:
                    image.append(opened), tab.append(drawn), text_only.append(plain)
        finally:
            subprocess.run(["tmux", "kill-session", "-t", SESSION], stderr=subprocess.DEVNULL)

    def ms(values):
        return f"{statistics.median(values) * 1000:.0f} ms (runs {', '.join(f'{v * 1000:.0f}' for v in values)})"

    print(f"tmux keystroke to echo (floor)                 {floor * 1000:.0f} ms")
    print(f"Enter to the detail of a claim with an image   {ms(image)}   [< 100 ms]")
    print(f"Enter to the detail of a text-only claim       {ms(text_only)}   (baseline)")
    print(f"7 to its picture drawn (half-blocks)           {ms(tab)}   [< 100 ms]")


if __name__ == "__main__":
    main()
