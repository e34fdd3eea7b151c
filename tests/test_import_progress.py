"""Items 9 and 12 of issue 33: a big import shows how far it has got in a terminal (nothing
but the summary when piped), and Ctrl-C cancels it in one line with exit status 130,
writing nothing."""

from __future__ import annotations

import json
import random
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import REPO
from tests.pty_terminal import run_in_terminal
from workbench.cli.import_progress import progress_text
from workbench.importers.meter import ReadMeter

WORKBENCH = [
    sys.executable,
    "-c",
    "import sys; from workbench.cli import main; main(sys.argv[1:], prog_name='workbench')",
]
PROGRESS = re.compile(rb"[\d,]+ rows read")


def claims_file(path: Path, claims: int) -> Path:
    rng = random.Random(3)
    words = "harbour ferry council vaccine bridge tide budget stadium rocket river".split()
    with path.open("w", encoding="utf-8") as out:
        for i in range(claims):
            text = " ".join(rng.choice(words) for _ in range(12))
            out.write(json.dumps({"id": f"c{i}", "claim": f"{i}: the {text}.", "label": "Supported"}) + "\n")
    return path


@pytest.fixture(scope="module")
def big_file(tmp_path_factory) -> Path:
    """Big enough that its import takes seconds (the progress line is drawn from 0.2 s on)."""
    return claims_file(tmp_path_factory.mktemp("big") / "claims.jsonl", 60_000)


def datasets_in(db_path: Path) -> list[str]:
    with sqlite3.connect(db_path) as conn:
        return [name for (name,) in conn.execute("SELECT name FROM datasets ORDER BY name")]


def test_ctrl_c_during_an_import_says_nothing_was_written_and_exits_130(big_file, tmp_path):
    db_path = tmp_path / "wb.db"
    small = claims_file(tmp_path / "small.jsonl", 20)
    subprocess.run([*WORKBENCH, "--db", str(db_path), "import", str(small)], cwd=REPO, check=True, capture_output=True)
    status, output = run_in_terminal(
        ["--db", str(db_path), "import", str(big_file), "--dataset", "big"], interrupt_at=b"rows read"
    )
    text = output.decode(errors="replace")
    assert status == 130, text[-2000:]
    assert text.count("import cancelled: nothing written") == 1
    assert "Aborted!" not in text and "Traceback" not in text
    assert datasets_in(db_path) == ["small"]  # the cancelled import left nothing behind


def test_a_cancelled_first_import_leaves_no_database(big_file, tmp_path):
    db_path = tmp_path / "new.db"
    status, output = run_in_terminal(["--db", str(db_path), "import", str(big_file)], interrupt_at=b"rows read")
    assert status == 130 and b"import cancelled: nothing written" in output
    assert not db_path.exists()


def test_the_progress_line_shows_before_the_import_ends(big_file, tmp_path):
    status, output = run_in_terminal(["--db", str(tmp_path / "wb.db"), "import", str(big_file)])
    assert status == 0, output[-2000:]
    summary = output.index(b"60,000 added")
    shown = [match for match in PROGRESS.finditer(output) if match.start() < summary]
    assert shown, output[:2000]
    assert re.search(rb"rows read \xc2\xb7 [\d,]+/s \xc2\xb7 \d+s \xc2\xb7 ETA \d+", output[:summary])


def test_piped_an_import_prints_only_its_summary(tmp_path):
    small = claims_file(tmp_path / "claims.jsonl", 3_000)
    done = subprocess.run(
        [*WORKBENCH, "--db", str(tmp_path / "wb.db"), "import", str(small)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("claims (profile") and "3,000 added" in lines[0]
    assert "rows read" not in done.stdout + done.stderr and "\x1b" not in done.stdout


@given(
    total=st.integers(0, 10**10),
    read=st.integers(0, 10**10),
    records=st.integers(0, 10**7),
    elapsed=st.floats(0, 10**6),
    phase=st.sampled_from(["labels", "reading", "writing"]),
)
def test_the_progress_text_never_promises_what_it_cannot_know(total, read, records, elapsed, phase):
    meter = ReadMeter(total_bytes=total, bytes_read=min(read, total), records=records, phase=phase)
    meter.started -= elapsed
    text = progress_text(meter)
    assert text.startswith(f"{records:,} rows read")
    eta = meter.eta_seconds()
    assert ("ETA" in text) == (eta is not None)
    if eta is not None:
        assert eta >= 0 and phase != "writing" and meter.bytes_read > 0
