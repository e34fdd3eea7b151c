"""scripts/nlp_data_offline.py: the development machines' route to WordNet 3.0 and punkt_tab
when no NLTK data index can be reached (Debian's WordNet packages, a PyPI wheel)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from tests.conftest import REPO
from workbench.nlp.nlp_data import check_nlp_data

SCRIPT = REPO / "scripts" / "nlp_data_offline.py"


def offline_script():
    spec = importlib.util.spec_from_file_location("nlp_data_offline", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_lexnames_give_the_right_lexicographer_files():
    from nltk.corpus import wordnet

    lines = offline_script().lexnames_text().splitlines()
    assert len(lines) == 45
    assert lines[0] == "00\tadj.all\t3" and lines[44] == "44\tadj.ppl\t3"
    check_nlp_data()
    assert wordnet.synset("dog.n.01").lexname() == "noun.animal"
    assert wordnet.synset("run.v.01").lexname() == "verb.motion"
    assert wordnet.synset("big.a.01").lexname() == "adj.all"


def test_wheel_extraction_refuses_paths_outside_the_target(tmp_path):
    script = offline_script()
    wheel = tmp_path / "evil.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("pkg/data/english/a.txt", "fine")
        archive.writestr("pkg/data/../../../escape.txt", "bad")
    with zipfile.ZipFile(wheel) as archive, pytest.raises(script.OfflineInstallError):
        script.extract_folder(archive, "pkg/data/", tmp_path / "out")
    assert not (tmp_path / "escape.txt").exists()
    assert not (tmp_path / "out").exists()  # nothing written, not even the safe member


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("apt-get") is None, reason="needs Debian's apt-get")
def test_offline_install_into_an_empty_folder(tmp_path):
    """Real provisioning: Debian's WordNet packages and the PyPI wheel, no NLTK hub."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("NLTK_DATA", None)
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--dir", str(tmp_path)], capture_output=True, text=True, env=env, timeout=900
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"load from {tmp_path}" in done.stdout
    assert (tmp_path / "corpora" / "wordnet" / "lexnames").read_text() == offline_script().lexnames_text()
    assert (tmp_path / "tokenizers" / "punkt_tab" / "english").is_dir()
