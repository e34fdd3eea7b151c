"""TUI benchmark on a generated 1,000,000-claim database (built once, cached in bench/out/).

Figures printed (targets in brackets):
  launch to first painted page          (< 1 s; import time shown separately)
  keypress to repaint, PageDown / End   (p95 < 50 ms)
  filter with a text term, first page   (< 200 ms)
  peak RSS of this process, and the part of it that is the process's own memory (anonymous
  pages, sampled every 20 ms) rather than pages of the database file SQLite maps (mmap_size:
  those are the page cache, counted in RSS once touched)   (< 300 MB, its own memory)
Each is compared with the same page read by a bare sqlite3 query in this process (a ratio).

    python bench/bench_tui.py [--claims 1000000]
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SIZE = (100, 30)
TEXT_FILTER = '"vaccine"'


def make_database(claims: int) -> Path:
    """Build (in a child process, so its memory is not counted here) or reuse the database."""
    from bench.make_big_db import default_path, existing_claims

    path = default_path(claims)
    if existing_claims(path) != claims:
        subprocess.run([sys.executable, str(ROOT / "bench" / "make_big_db.py"), "--claims", str(claims)], check=True)
    return path


def import_seconds() -> float:
    """How long `import workbench.tui.app` takes in a fresh interpreter (part of a real launch)."""
    code = "import time; t = time.perf_counter(); import workbench.tui.app; print(time.perf_counter() - t)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return float(result.stdout.strip())


class PaintClock:
    """Records when the claims table finishes painting (its last line drawn), and on which claim.

    Textual draws a widget's lines top to bottom, so the last line marks a finished repaint
    whatever line the cursor is on.
    """

    def __init__(self):
        from workbench.tui.widgets.claim_table import ClaimTable

        self.paints: list[tuple[float, int | None, str]] = []
        original = ClaimTable.render_line
        clock = self

        def render_line(table, y):
            strip = original(table, y)
            if table.window.rows and y == table.size.height - 1:
                current = table.current
                clock.paints.append((time.perf_counter(), current.id if current else None, table.query.filter))
            return strip

        ClaimTable.render_line = render_line

    def first_after(self, t0: float, claim_id: int | None = None, filter_text: str | None = None):
        for when, painted_id, painted_filter in self.paints:
            if (
                when >= t0
                and (claim_id is None or painted_id == claim_id)
                and (filter_text is None or painted_filter == filter_text)
            ):
                return when
        return None


async def wait_for_paint(pilot, clock: PaintClock, t0: float, **match) -> float:
    for _ in range(10_000):
        when = clock.first_after(t0, **match)
        if when is not None:
            return when - t0
        await pilot.pause()
    raise RuntimeError(f"never painted {match}")


async def key_latency(pilot, app, clock: PaintClock, key: str) -> float:
    table = app.browser.table
    t0 = time.perf_counter()
    await pilot.press(key)
    for _ in range(10_000):  # until the window holds the row the key moved to
        if not table._loading and table.current is not None:
            break
        await pilot.pause()
    return await wait_for_paint(pilot, clock, t0, claim_id=table.current.id)


async def drive(db_path: Path, last_id: int) -> dict:
    from workbench.tui.app import WorkbenchApp

    clock = PaintClock()
    figures: dict = {}
    t0 = time.perf_counter()
    app = WorkbenchApp(db_path, poll_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        figures["first_page"] = await wait_for_paint(pilot, clock, t0)
        await app.workers.wait_for_complete()
        figures["pagedown"] = [await key_latency(pilot, app, clock, "pagedown") for _ in range(300)]
        jumps = []
        for _ in range(15):
            jumps.append(await key_latency(pilot, app, clock, "end"))
            assert app.browser.table.current.id == last_id
            jumps.append(await key_latency(pilot, app, clock, "home"))
        figures["jumps"] = jumps
        await key_latency(pilot, app, clock, "end")
        figures["pageup_from_end"] = [await key_latency(pilot, app, clock, "pageup") for _ in range(100)]
        figures["filter"] = await filter_latency(pilot, app, clock)
    return figures


async def filter_latency(pilot, app, clock) -> dict[str, list[float]]:
    """Enter on a text filter until its first page is painted (the count comes later)."""
    times: dict[str, list[float]] = {}
    for text in (TEXT_FILTER, TEXT_FILTER + " label:Refuted"):
        for _ in range(5):
            times.setdefault(text, []).append(await apply_filter(pilot, app, clock, text))
            await apply_filter(pilot, app, clock, "")
    return times


async def apply_filter(pilot, app, clock, text: str) -> float:
    from workbench.tui.widgets.filter_bar import FilterBar

    bar = app.browser.query_one(FilterBar)
    bar.input.focus()
    bar.set_text(text)
    t0 = time.perf_counter()
    await pilot.press("enter")
    elapsed = await wait_for_paint(pilot, clock, t0, filter_text=text)
    await app.workers.wait_for_complete()
    return elapsed


def bare_sqlite(db_path: Path, last_id: int) -> dict:
    """The same pages by hand: one connection, one query, no store, no UI."""
    conn = sqlite3.connect(db_path)
    columns = "c.id, c.external_id, c.label, c.importance, c.task, c.domain, c.claim_date, substr(c.text, 1, 240)"
    timings = {}
    t0 = time.perf_counter()
    conn.execute(f"SELECT {columns} FROM claims c WHERE c.id > ? ORDER BY c.id LIMIT 100", [0]).fetchall()
    timings["first_page"] = time.perf_counter() - t0
    samples = []
    for start in range(0, 300 * 27, 27):
        t0 = time.perf_counter()
        conn.execute(f"SELECT {columns} FROM claims c WHERE c.id > ? ORDER BY c.id LIMIT 100", [start]).fetchall()
        samples.append(time.perf_counter() - t0)
    timings["page"] = samples
    t0 = time.perf_counter()
    conn.execute(f"SELECT {columns} FROM claims c ORDER BY c.id DESC LIMIT 100").fetchall()
    timings["last_page"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    conn.execute(
        f"SELECT {columns} FROM claims c WHERE c.id IN (SELECT rowid FROM claims_fts"
        " WHERE claims_fts MATCH ?) ORDER BY c.id LIMIT 100",
        ['"vaccine"'],
    ).fetchall()
    timings["filter"] = time.perf_counter() - t0
    conn.close()
    return timings


def store_pages(db_path: Path) -> dict:
    """The same pages through ClaimStore (what the TUI's workers call): SQL plus row objects."""
    from store import Store
    from workbench.tui.paging import ClaimQuery, read_page

    store = Store.open(db_path)
    claims, query = store.claims, ClaimQuery()
    timings = {}
    t0 = time.perf_counter()
    rows = read_page(claims, query, "first")
    timings["first_page"] = time.perf_counter() - t0
    samples = []
    for _ in range(100):
        t0 = time.perf_counter()
        rows = read_page(claims, query, "after", (rows[-1].sort_value, rows[-1].id))
        samples.append(time.perf_counter() - t0)
    timings["page"] = samples
    t0 = time.perf_counter()
    read_page(claims, query, "last")
    timings["last_page"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    read_page(claims, ClaimQuery(filter=TEXT_FILTER), "first")
    timings["filter"] = time.perf_counter() - t0
    store.close()
    return timings


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


class OwnMemory:
    """The peak of this process's anonymous memory (RssAnon), sampled on a thread while the
    block runs; ru_maxrss also counts the database's mapped pages."""

    def __init__(self) -> None:
        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> OwnMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while True:
            self.peak_kb = max(self.peak_kb, status_kb("RssAnon"))
            if self._stop.wait(0.02):
                return


def status_kb(field: str) -> int:
    """A field of /proc/self/status, in kB (0 where there is no /proc)."""
    try:
        lines = Path("/proc/self/status").read_text().splitlines()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in lines if line.startswith(field + ":")), 0)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def report(claims: int, imports: float, tui: dict, bare: dict, stored: dict, rss_mb: float, own_mb: float) -> None:
    print(f"\nTUI benchmark on {claims:,} claims ({SIZE[0]}x{SIZE[1]} terminal)")
    launch = imports + tui["first_page"]
    print(f"  import workbench.tui.app        {ms(imports)}")
    print(
        f"  app start to first page painted {ms(tui['first_page'])}   launch total {ms(launch)}"
        f"   [target < 1000 ms] {'ok' if launch < 1 else 'MISSED'}"
    )
    for name, values in (
        ("PageDown (300 presses)", tui["pagedown"]),
        ("PageUp from the end (100)", tui["pageup_from_end"]),
        ("End / Home jumps (30)", tui["jumps"]),
    ):
        p95 = percentile(values, 0.95)
        print(
            f"  {name:<31} p50 {ms(statistics.median(values))}  p95 {ms(p95)}  max {ms(max(values))}"
            f"   [p95 < 50 ms] {'ok' if p95 < 0.05 else 'MISSED'}"
        )
    for text, values in tui["filter"].items():
        median = statistics.median(values)
        print(
            f"  filter {text:<24} first page p50 {ms(median)}  max {ms(max(values))}"
            f"   [< 200 ms] {'ok' if median < 0.2 else 'MISSED'}"
        )
    print(f"  peak RSS                        {rss_mb:7.1f} MB   (with the database's pages SQLite maps)")
    print(f"  peak own memory (RssAnon)       {own_mb:7.1f} MB   [< 300 MB] {'ok' if own_mb < 300 else 'MISSED'}")
    page = statistics.median(bare["page"])
    print("\nbare sqlite3, same pages (one connection, no store, no UI)")
    print(
        f"  first page {ms(bare['first_page'])}  next page p50 {ms(page)}  last page {ms(bare['last_page'])}"
        f"  text filter page {ms(bare['filter'])}"
    )
    store_page = statistics.median(stored["page"])
    print("through ClaimStore (the TUI's workers)")
    print(
        f"  first page {ms(stored['first_page'])}  next page p50 {ms(store_page)}"
        f"  last page {ms(stored['last_page'])}  text filter page {ms(stored['filter'])}"
    )
    print(f"  store / bare: next page {store_page / page:5.1f}x  text filter {stored['filter'] / bare['filter']:5.1f}x")
    print("ratios (TUI keypress-to-paint / bare query; the rest is drawing ~27 lines)")
    print(f"  PageDown p50        {statistics.median(tui['pagedown']) / page:8.1f}x")
    print(f"  End jump p50        {statistics.median(tui['jumps']) / max(bare['last_page'], 1e-6):8.1f}x")
    text_p50 = statistics.median(tui["filter"][TEXT_FILTER])
    print(f"  text filter         {text_p50 / max(bare['filter'], 1e-6):8.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description="TUI benchmark")
    parser.add_argument("--claims", type=int, default=1_000_000)
    args = parser.parse_args()
    db_path = make_database(args.claims)
    imports = import_seconds()
    with OwnMemory() as own:
        tui = asyncio.run(drive(db_path, args.claims))
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    bare = bare_sqlite(db_path, args.claims)
    stored = store_pages(db_path)
    report(args.claims, imports, tui, bare, stored, rss_mb, own.peak_kb / 1024)


if __name__ == "__main__":
    main()
