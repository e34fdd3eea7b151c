"""`workbench serve`: how long a browser tab waits for the workbench's first frame, and how
much of the window the terminal fills.

Figures printed (targets in brackets), medians of --repeat rounds on the demo database:
  page: GET / with a real HTTP client, and the addresses it loads from other hosts  [none]
  websocket: connect to the page's websocket (as the page does, 120x40) to the first frame
  that shows the claims count ("of N claims")
                                      against a python process starting and exiting  (ratio)
  browser (headless Chromium, when chromium and chromium-driver are installed): from
  loading the page to the first byte drawn, and to the claims count on screen      [< 2 s]
  the terminal's rows against the rows the window has room for            [all of them]

    python bench/bench_serve.py [--repeat 3] [--before CHECKOUT]

--stalled-web SECONDS holds the browser's requests to other hosts that long and then drops
them, as a network that filters them does (the page of textual-serve 1.1 waited for a web
font from fonts.googleapis.com before it started the terminal).

--before CHECKOUT serves another checkout (a folder of the repository at another commit, e.g.
`git archive HEAD~3 | tar -x -C /tmp/before`) in the same rounds, taking turns with this one,
and prints its figures beside this one's: before and after under the same load.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKBENCH = str(Path(sys.executable).with_name("workbench"))
COUNT = re.compile(r"of [\d,]+ claims")
ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[A-Za-z~]|\x1b[()][A-Z0-9]|\x1b[=>]|\x1b\][^\x07]*\x07")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve(db: Path, checkout: Path = ROOT) -> tuple[subprocess.Popen, str]:
    """`workbench serve` of a checkout on a free port, once it listens."""
    port = free_port()
    path = os.pathsep.join([str(checkout), *filter(None, [os.environ.get("PYTHONPATH")])])
    server = subprocess.Popen(
        [WORKBENCH, "--db", str(db), "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": path},
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return server, f"http://127.0.0.1:{port}"
        time.sleep(0.05)
    server.kill()
    raise SystemExit("workbench serve did not listen")


def page(url: str) -> tuple[float, list[str]]:
    """Seconds for GET /, and the addresses the page loads from elsewhere."""
    started = time.perf_counter()
    with urllib.request.urlopen(url + "/", timeout=30) as response:
        html = response.read().decode()
    took = time.perf_counter() - started
    loads = re.findall(r'(?:href|src)="(https?://[^"]+)"', html)
    return took, [address for address in loads if not address.startswith(url)]


async def first_frame(url: str) -> float:
    """Seconds from opening the websocket (120x40) to a frame showing the claims count."""
    import aiohttp

    ws_url = "ws" + url[4:] + "/ws?width=120&height=40"
    started = time.perf_counter()
    seen = ""
    async with aiohttp.ClientSession() as session, session.ws_connect(ws_url) as websocket:
        await websocket.send_str('["resize", {"width": 120, "height": 40}]')
        async for message in websocket:
            data = message.data if isinstance(message.data, str) else message.data.decode("utf-8", "replace")
            seen += data
            if COUNT.search(ANSI.sub("", seen)):
                return time.perf_counter() - started
    raise SystemExit("the websocket closed before the first frame")


def python_start() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


class StalledNetwork:
    """A proxy on 127.0.0.1 that holds every connection for `hold` seconds and then drops it,
    as a firewall that filters a host does: Chromium sends every request for another host
    here (loopback requests bypass a proxy)."""

    def __init__(self, hold: float):
        self.hold = hold
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            connection, _ = self.listener.accept()
            threading.Timer(self.hold, connection.close).start()


def browser_figures(url: str, proxy: str | None = None) -> tuple[float, float, int, int] | None:
    """(seconds to the first byte drawn, to the claims count on screen, the terminal's rows,
    the rows the window has room for) in headless Chromium; None without chromium or selenium.
    The page draws on a canvas, so what it shows is read from the websocket frames it received
    (Chromium's performance log), and its rows from the size it sent."""
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver_path):
        return None
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None
    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,800", "--no-first-run"):
        options.add_argument(flag)
    if proxy:
        options.add_argument(f"--proxy-server=http://{proxy}")
    options.binary_location = chromium
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        started = time.perf_counter()
        driver.get(url + "/")  # returns at the page's load event
        first_byte = counted = None
        received, rows = "", 0
        while time.perf_counter() - started < 60 and counted is None:
            if first_byte is None and driver.execute_script("return document.body.classList.contains('-first-byte')"):
                first_byte = time.perf_counter() - started
            for entry in driver.get_log("performance"):
                message = json.loads(entry["message"])["message"]
                frame = message.get("params", {}).get("response", {})
                if message["method"] == "Network.webSocketFrameReceived":
                    data = base64.b64decode(frame["payloadData"]) if frame["opcode"] == 2 else frame["payloadData"]
                    received += data.decode("utf-8", "replace") if isinstance(data, bytes) else data
                elif message["method"] == "Network.webSocketFrameSent" and '"resize"' in frame["payloadData"]:
                    rows = json.loads(frame["payloadData"])[1]["height"]
            if COUNT.search(ANSI.sub("", received)):
                counted = time.perf_counter() - started
            time.sleep(0.02)
        row_height = driver.execute_script(
            "const s = document.querySelector('.xterm-screen'); return s.getBoundingClientRect().height;"
        ) / max(rows, 1)
        room = int(driver.execute_script("return window.innerHeight;") // row_height)
        return first_byte or float("nan"), counted or float("nan"), rows, room
    finally:
        driver.quit()


def measured(url: str, rounds: int, proxy: str | None) -> dict:
    """One checkout's figures: medians over `rounds` (a python start timed in each round)."""
    found = [
        (page(url), asyncio.run(first_frame(url)), python_start(), browser_figures(url, proxy)) for _ in range(rounds)
    ]
    browser = [r[3] for r in found if r[3] is not None]
    return {
        "page": statistics.median(r[0][0] for r in found),
        "elsewhere": found[0][0][1],
        "frame": statistics.median(r[1] for r in found),
        "python": statistics.median(r[2] for r in found),
        "browser": [statistics.median(b[i] for b in browser) for i in range(4)] if browser else None,
    }


def report(name: str, figures: dict) -> None:
    frame, python = figures["frame"], figures["python"]
    print(f"{name}:")
    print(
        f"  page GET /: {figures['page'] * 1000:.0f} ms; loads from other hosts: {', '.join(figures['elsewhere']) or 'nothing'}"
    )
    print(f"  websocket to the first frame with the claims count: {frame:.2f} s ({frame / python:.1f}x a python start)")
    if figures["browser"] is None:
        print("  browser: skipped (no chromium, chromium-driver or selenium)")
        return
    first_byte, counted, rows, room = figures["browser"]
    print(f"  browser: first byte drawn {first_byte:.2f} s, claims count on screen {counted:.2f} s", end="")
    print(f" ({counted / python:.1f}x a python start)")
    print(f"  terminal rows {rows:.0f} of the {room:.0f} the 1200x800 window has room for")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path, help="another checkout, served in the same rounds")
    parser.add_argument(
        "--stalled-web",
        type=float,
        metavar="SECONDS",
        help="the browser's requests to other hosts are held this long, then dropped (a filtering firewall)",
    )
    args = parser.parse_args()
    proxy = StalledNetwork(args.stalled_web).address if args.stalled_web else None
    checkouts = {"this checkout": ROOT} | ({f"before ({args.before})": args.before.resolve()} if args.before else {})
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "demo.db"
        subprocess.run([WORKBENCH, "--db", str(db), "demo", "--no-tui"], check=True, capture_output=True)
        servers = {name: serve(db, checkout) for name, checkout in checkouts.items()}
        try:
            rounds = [{name: measured(url, 1, proxy) for name, (_, url) in servers.items()} for _ in range(args.repeat)]
        finally:
            for server, _ in servers.values():
                server.terminate()
                server.wait(10)
    for name in checkouts:
        report(name, merged([one[name] for one in rounds]))


def merged(rounds: list[dict]) -> dict:
    """The medians of rounds measured one at a time (turns between checkouts share the load)."""
    browser = [r["browser"] for r in rounds if r["browser"] is not None]
    return {
        "page": statistics.median(r["page"] for r in rounds),
        "elsewhere": rounds[0]["elsewhere"],
        "frame": statistics.median(r["frame"] for r in rounds),
        "python": statistics.median(r["python"] for r in rounds),
        "browser": [statistics.median(b[i] for b in browser) for i in range(4)] if browser else None,
    }


if __name__ == "__main__":
    main()
