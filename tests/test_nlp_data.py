"""NLTK data for METEOR: present -> checks pass; absent or wrong -> a clear error."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from tests.support.nltk_index import NltkIndex
from workbench.cli import main
from workbench.nlp.nlp_data import NlpDataInstallError, check_nlp_data, download, shown_url

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
    return subprocess.run(
        [sys.executable, "-c", script, str(data_dir), *args], capture_output=True, text=True, env=env, timeout=300
    )


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


def test_missing_data_stops_scoring_with_the_fix(tmp_path):
    done = probe(tmp_path)
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and all(line.startswith("MISSING:") for line in lines), done
    assert "WordNet corpus is not installed" in lines[0]
    assert "punkt_tab tokenizer data is not installed" in lines[0]
    assert "workbench nlp-data" in lines[0] and "make nlp-data" in lines[0]


def test_missing_wordnet_alone_is_reported(tmp_path):
    shutil.copytree(installed("tokenizers/punkt_tab/english/"), tmp_path / "tokenizers" / "punkt_tab" / "english")
    line = probe(tmp_path).stdout.splitlines()[0]
    assert "WordNet corpus is not installed" in line
    assert "punkt_tab tokenizer data is not installed" not in line


def test_a_different_wordnet_version_is_refused(tmp_path):
    corpus = tmp_path / "corpora" / "wordnet"
    shutil.copytree(installed("corpora/wordnet/"), corpus)
    data_adj = corpus / "data.adj"
    data_adj.write_bytes(data_adj.read_bytes().replace(b"WordNet 3.0 Copyright", b"WordNet 3.1 Copyright", 1))
    shutil.copytree(installed("tokenizers/punkt_tab/english/"), tmp_path / "tokenizers" / "punkt_tab" / "english")
    line = probe(tmp_path).stdout.splitlines()[0]
    assert "version 3.1" in line and "workbench nlp-data" in line


def test_nlp_data_command_reports_existing_data():
    result = CliRunner().invoke(main, ["nlp-data"])
    assert result.exit_code == 0, result.output
    assert "already installed" in result.output
    assert "NLTK data is in" in result.output


# `workbench nlp-data --dir D --index-url U` in a fresh interpreter whose nltk searches
# nothing but what the command adds.
INSTALL = """
import sys, nltk
nltk.data.path[:] = []
from workbench.cli import main
main(["nlp-data", "--dir", sys.argv[1], "--index-url", sys.argv[2]])
"""


def test_nlp_data_installs_through_nltks_downloader_from_an_index(tmp_path):
    """The real WordNet 3.0 and punkt_tab, zipped and indexed like NLTK's hub publishes them."""
    with NltkIndex(tmp_path / "hub") as hub:
        hub.add_folder("wordnet", "corpora", installed("corpora/wordnet/"))
        hub.add_folder("punkt_tab", "tokenizers", installed("tokenizers/punkt_tab/"))
        hub.publish()
        data = tmp_path / "nltk_data"
        done = probe(data, INSTALL, hub.index_url)
        assert done.returncode == 0, done.stderr[-2000:]
        assert f"NLTK data is in {data}" in done.stdout
        assert f"set NLTK_DATA={data}" in done.stdout
        assert sorted(hub.requested) == [
            "/index.xml",
            "/packages/corpora/wordnet.zip",
            "/packages/tokenizers/punkt_tab.zip",
        ]
        assert probe(data).stdout.splitlines() == ["OK", "OK"]
        again = probe(data, INSTALL, hub.index_url)
        assert "already installed" in again.stdout and len(hub.requested) == 3
    assert [p.name for p in data.iterdir()] != [] and not list(data.glob(".*download*"))


def test_a_download_that_does_not_match_its_index_installs_nothing(tmp_path):
    with NltkIndex(tmp_path / "hub") as hub:
        hub.add_package("punkt_tab", "tokenizers", {"english/README": b"a test package"})
        hub.publish()
        # The file changes after the index was made: size and checksum no longer match.
        hub.add_package("punkt_tab", "tokenizers", {"english/README": b"another, longer content"})
        target = tmp_path / "nltk_data"
        with pytest.raises(NlpDataInstallError, match="does not match the size and checksum"):
            download(["punkt_tab"], target, hub.index_url, log=lambda line: None)
    assert not target.exists()


def test_a_package_replaces_an_older_copy_in_the_folder(tmp_path):
    old = tmp_path / "nltk_data" / "tokenizers" / "punkt_tab"
    (old / "english").mkdir(parents=True)
    (old / "english" / "stale.tab").write_text("old", encoding="utf-8")
    with NltkIndex(tmp_path / "hub") as hub:
        hub.add_package("punkt_tab", "tokenizers", {"english/fresh.tab": b"new"})
        hub.publish()
        said: list[str] = []
        download(["punkt_tab"], tmp_path / "nltk_data", hub.index_url, log=said.append)
    assert [p.name for p in (old / "english").iterdir()] == ["fresh.tab"]
    assert said[-1] == "  punkt_tab installed."


def test_an_index_out_of_reach_is_one_clear_error(tmp_path, monkeypatch):
    import nltk

    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))  # the command adds --dir to it
    with NltkIndex(tmp_path / "hub") as hub:
        url = hub.url + "/no-index-here.xml"
        result = CliRunner().invoke(main, ["nlp-data", "--dir", str(tmp_path / "data"), "--index-url", url])
        # urllib cannot log in with a user:password in the URL; the message still hides it.
        secret = url.replace("http://", "http://someone:s3cret@")
        with_secret = CliRunner().invoke(main, ["nlp-data", "--dir", str(tmp_path / "data"), "--index-url", secret])
    said = " ".join(result.output.split())  # the error is wrapped to the terminal's width
    assert result.exit_code == 1
    assert f"could not install punkt_tab from {url}: " in said and "HTTP Error 404" in said
    assert "NLTK_DATA" in said and "Traceback" not in said
    assert with_secret.exit_code == 1 and f"from {url}:" in " ".join(with_secret.output.split())
    assert "s3cret" not in with_secret.output and "Traceback" not in with_secret.output
    assert not (tmp_path / "data").exists()


@given(
    user=st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=12),
    password=st.text(st.characters(categories=["L", "N"]), min_size=4, max_size=20),
)
def test_urls_in_messages_never_carry_a_password(user, password):
    url = f"https://{user}:{password}@mirror.example:8443/nltk/index.xml"
    assert shown_url(url) == "https://mirror.example:8443/nltk/index.xml"
    assert shown_url("https://mirror.example/index.xml") == "https://mirror.example/index.xml"
