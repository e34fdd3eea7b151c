"""`workbench serve`: the TUI in a real headless Chromium, driven as a person would (Selenium
through Debian's chromium-driver; nothing downloaded). What the page shows is read from the
terminal output the server streams to it (the page draws it on a canvas)."""

from __future__ import annotations

import base64
import json
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from store import Store
from workbench.prompting.evidence import page_windows

WORKBENCH = str(Path(sys.executable).with_name("workbench"))
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[A-Za-z~]|\x1b[()][A-Z0-9]|\x1b[=>]|\x1b\][^\x07]*\x07")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("serve") / "demo.db"
    subprocess.run([WORKBENCH, "--db", str(db), "demo", "--no-tui"], check=True, capture_output=True)
    return db


def serving(db: Path, *args: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    server = subprocess.Popen(
        [WORKBENCH, "--db", str(db), "serve", "--port", str(port), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return server, port
        if server.poll() is not None:
            break
        time.sleep(0.1)
    server.kill()
    pytest.fail(f"workbench serve did not listen: {server.communicate()}")


class Browser:
    """Headless Chromium on the served page; `screen` is what the terminal has been sent."""

    def __init__(self, url: str):
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service

        options = Options()
        for flag in (
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1200,800",
        ):
            options.add_argument(flag)
        options.binary_location = CHROMIUM
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        self.driver = webdriver.Chrome(service=Service(DRIVER), options=options)
        self.seen = ""
        self.sent_size = {"height": 1}
        self.driver.get(url)

    def received(self) -> str:
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.webSocketFrameReceived":
                frame = message["params"]["response"]
                data = base64.b64decode(frame["payloadData"]) if frame["opcode"] == 2 else frame["payloadData"].encode()
                self.seen += data.decode("utf-8", "replace")
            elif message["method"] == "Network.webSocketFrameSent":
                sent = json.loads(message["params"]["response"]["payloadData"])
                if sent[0] == "resize":
                    self.sent_size = sent[1]
        return ANSI.sub("", self.seen)

    def wait_for(self, text: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.received()
            if text in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared; the end of the screen: {self.received()[-800:]!r}")

    def rows(self) -> int:
        """The terminal's rows, as the page last told the server."""
        return self.sent_size["height"]

    def press(self, keys: str) -> None:
        from selenium.webdriver.common.by import By

        self.driver.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea").send_keys(keys)

    def close(self) -> None:
        self.driver.quit()


@pytest.mark.skipif(
    not (CHROMIUM and DRIVER),
    reason="no chromium and chromium-driver here (make setup installs them with apt-get where it can)",
)
def test_the_workbench_in_a_browser_tab(demo_db):
    pytest.importorskip("selenium", reason="selenium is in the dev extra")
    store = Store.open(demo_db)
    claim = store.claims.get(store.claims.resolve("demo:js-001"))
    total = len(store.claims.ids(""))
    store.close()
    second_page = page_windows(claim)[1].text[:24]  # a candidate page, not the cited one
    server, port = serving(demo_db)
    browser = Browser(f"http://127.0.0.1:{port}/")
    try:
        browser.wait_for(f"{total} of {total} claims")  # the claims table with its count
        assert second_page not in browser.received()
        # Drawn in the font it was measured with, served by the workbench (no other host's),
        # over the whole window: rows the terminal asked for against the window's height.
        assert browser.driver.execute_script(
            """return [...document.fonts].some(f => f.family.replaceAll('"', '') == 'Roboto Mono' && f.status == 'loaded')"""
        )
        screen_height, window_height = browser.driver.execute_script(
            "return [document.querySelector('.xterm-screen').getBoundingClientRect().height, window.innerHeight];"
        )
        assert screen_height > window_height - screen_height / browser.rows()
        browser.press("\n")  # the first claim's detail
        browser.wait_for("Back")
        browser.wait_for("Pages")  # the tabs are drawn: the screen takes its keys
        browser.press("4")  # its Pages tab: the candidate pages' windows
        browser.wait_for(second_page)
    finally:
        browser.close()
        server.terminate()
        server.wait(timeout=20)


def test_the_page_loads_nothing_from_elsewhere_and_shows_the_file_name_literally(demo_db, tmp_path):
    """No splash, no font from another host (offline, the tab waited for it), and a database
    file named like markup is shown as its name, not taken as HTML."""
    odd = tmp_path / "<b>odd<i>.db"
    shutil.copy(demo_db, odd)
    server, port = serving(odd)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as response:
            html = response.read().decode()
    finally:
        server.terminate()
        server.wait(timeout=20)
    assert re.findall(r'(?:href|src)="(https?://[^"]+)"', html) == [
        address for address in re.findall(r'(?:href|src)="(https?://[^"]+)"', html) if f":{port}/" in address
    ]
    assert "<title>fact-check workbench: &lt;b&gt;odd&lt;i&gt;.db</title>" in html and "<b>odd" not in html
    assert "background.png" not in html  # the splash's picture


def test_serving_beyond_loopback_warns_who_can_use_it(demo_db):
    server, port = serving(demo_db, "--host", "0.0.0.0")
    try:
        deadline = time.monotonic() + 10
        line = ""
        while time.monotonic() < deadline and "Warning" not in line:
            line = server.stderr.readline()
        assert "anyone who can reach port" in line and f"ssh -L {port}:127.0.0.1:{port}" in line
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_serving_a_missing_database_says_so(tmp_path):
    done = subprocess.run(
        [WORKBENCH, "--db", str(tmp_path / "absent.db"), "serve"], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 1 and "no database at" in done.stderr and not (tmp_path / "absent.db").exists()
