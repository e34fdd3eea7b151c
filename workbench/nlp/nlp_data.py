"""Provide and check the NLTK data that METEOR needs: WordNet 3.0 and punkt_tab.

NLTK's own downloader comes first. Where its hub cannot be reached, WordNet 3.0 comes
from Debian's `wordnet-base` + `wordnet-sense-index` packages (unpacked, never
installed) and punkt_tab from the `llama-index-core` wheel on PyPI, which bundles
NLTK's punkt_tab files.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import socket
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

FIX = (
    "Run `workbench nlp-data` (or `make nlp-data`) to install WordNet 3.0 and "
    "punkt_tab; it works without NLTK's download hub."
)
WORDNET_VERSION = "3.0"
DOG_N_01_OFFSET = 2084071
DEBIAN_PACKAGES = ("wordnet-base", "wordnet-sense-index")
# A pinned wheel, so every install gets the same punkt_tab files.
PUNKT_WHEEL = "llama-index-core==0.14.25"
PUNKT_IN_WHEEL = "llama_index/core/_static/nltk_cache/tokenizers/punkt_tab/"
NLTK_PACKAGES = ("wordnet", "punkt_tab")
DOWNLOAD_TIMEOUT_S = 15.0
COMMAND_TIMEOUT_S = 600

# The 45 lexicographer files in file-number order, with their syntactic category
# (1 noun, 2 verb, 3 adjective, 4 adverb), as listed in lexnames(5WN).
LEXNAMES: tuple[tuple[str, int], ...] = (
    ("adj.all", 3), ("adj.pert", 3), ("adv.all", 4), ("noun.Tops", 1),
    ("noun.act", 1), ("noun.animal", 1), ("noun.artifact", 1),
    ("noun.attribute", 1), ("noun.body", 1), ("noun.cognition", 1),
    ("noun.communication", 1), ("noun.event", 1), ("noun.feeling", 1),
    ("noun.food", 1), ("noun.group", 1), ("noun.location", 1),
    ("noun.motive", 1), ("noun.object", 1), ("noun.person", 1),
    ("noun.phenomenon", 1), ("noun.plant", 1), ("noun.possession", 1),
    ("noun.process", 1), ("noun.quantity", 1), ("noun.relation", 1),
    ("noun.shape", 1), ("noun.state", 1), ("noun.substance", 1),
    ("noun.time", 1), ("verb.body", 2), ("verb.change", 2),
    ("verb.cognition", 2), ("verb.communication", 2), ("verb.competition", 2),
    ("verb.consumption", 2), ("verb.contact", 2), ("verb.creation", 2),
    ("verb.emotion", 2), ("verb.motion", 2), ("verb.perception", 2),
    ("verb.possession", 2), ("verb.social", 2), ("verb.stative", 2),
    ("verb.weather", 2), ("adj.ppl", 3),
)

Log = Callable[[str], object]


class NlpDataMissing(RuntimeError):
    """WordNet 3.0 or punkt_tab cannot be loaded; the message says how to fix it."""


class NlpDataInstallError(NlpDataMissing):
    """Installing the NLTK data failed; the message names the step that failed."""


_checked = False


def default_target() -> Path:
    """`<venv>/nltk_data`: on NLTK's default search path for the running interpreter."""
    return Path(sys.prefix) / "nltk_data"


def lexnames_text() -> str:
    """The `lexnames` file NLTK's WordNet reader parses: "NN<TAB>name<TAB>category"."""
    return "".join(f"{i:02d}\t{name}\t{pos}\n" for i, (name, pos) in enumerate(LEXNAMES))


def wordnet_problem() -> str | None:
    """Why WordNet 3.0 cannot be used as METEOR's synonym source, or None if it can."""
    from nltk.corpus import wordnet

    try:
        version = wordnet.get_version()
        offset = wordnet.synset("dog.n.01").offset()
    except LookupError:
        return "NLTK's WordNet corpus is not installed"
    except Exception as exc:  # a half-copied corpus fails in many different ways
        return f"NLTK's WordNet corpus does not load ({type(exc).__name__}: {exc})"
    if version != WORDNET_VERSION or offset != DOG_N_01_OFFSET:
        # Another WordNet would give different synonyms, hence different scores.
        return (
            f"the WordNet nltk finds ({wordnet.root}) is version {version}, "
            f"not the WordNet {WORDNET_VERSION} METEOR scores are defined with"
        )
    return None


def punkt_problem() -> str | None:
    """Why `word_tokenize` cannot run (punkt_tab missing), or None if it can."""
    from nltk.tokenize import word_tokenize

    try:
        tokens = word_tokenize("A test. Another one.")
    except LookupError:
        return "NLTK's punkt_tab tokenizer data is not installed"
    except Exception as exc:
        return f"NLTK's punkt_tab data does not load ({type(exc).__name__}: {exc})"
    if tokens != ["A", "test", ".", "Another", "one", "."]:
        return f"punkt_tab tokenised a test sentence unexpectedly: {tokens}"
    return None


def _problems() -> dict[str, str]:
    found = {"wordnet": wordnet_problem(), "punkt_tab": punkt_problem()}
    return {name: problem for name, problem in found.items() if problem}


def check_nlp_data() -> None:
    """Raise NlpDataMissing (with the fix) unless WordNet 3.0 and punkt_tab both load.

    Scoring must stop here rather than run without WordNet: a METEOR score computed
    without its synonym stage would silently differ from the published one.
    """
    global _checked
    if _checked:
        return
    problems = _problems()
    if problems:
        import nltk

        searched = ", ".join(str(p) for p in nltk.data.path)
        raise NlpDataMissing(
            "METEOR scoring needs NLTK data: " + "; ".join(problems.values())
            + f". {FIX} (nltk searched: {searched})"
        )
    _checked = True


def _add_search_path(target: Path) -> None:
    import nltk

    if str(target) not in [str(p) for p in nltk.data.path]:
        nltk.data.path.append(str(target))


def _data_root(resource: str, fallback: Path) -> Path:
    """The first nltk_data directory on nltk's path that holds `resource`."""
    import nltk

    for base in map(Path, nltk.data.path):
        if (base / resource).exists() or (base / f"{resource}.zip").exists():
            return base
    return fallback


def _absent_in(target: Path) -> dict[str, str]:
    """Which of the two resources have no files in `target` (an nltk_data folder)."""
    wordnet = target / "corpora" / "wordnet"
    absent = {}
    if not ((wordnet / "lexnames").is_file() or (wordnet.parent / "wordnet.zip").is_file()):
        absent["wordnet"] = f"WordNet is not in {target}"
    if not (target / "tokenizers" / "punkt_tab" / "english").is_dir():
        absent["punkt_tab"] = f"punkt_tab is not in {target}"
    return absent


def ensure_nlp_data(
    target: Path | None = None, try_download: bool = True, log: Log = print
) -> Path:
    """Make WordNet 3.0 and punkt_tab loadable and return the nltk_data folder used.

    Without `target`, nothing is installed when nltk already loads both; with it,
    whatever `target` lacks is installed there. Sources in order: NLTK's downloader
    (short timeout), then Debian's WordNet packages and the llama-index-core wheel.
    Raises NlpDataMissing (NlpDataInstallError) when no source works.
    """
    global _checked
    explicit = target is not None
    target = Path(target) if explicit else default_target()
    _add_search_path(target)
    missing = _absent_in(target) if explicit else _problems()
    if not missing:
        check_nlp_data()  # files present must also load, as the right version
        log("WordNet 3.0 and punkt_tab are already installed; nothing to do.")
        return target if explicit else _data_root("corpora/wordnet", target)
    log(f"Missing: {'; '.join(missing.values())}.")
    if try_download and _nltk_download(sorted(missing), target, log):
        missing = _absent_in(target) if explicit else _problems()
    if "wordnet" in missing:
        install_wordnet_from_debian(target, log)
    if "punkt_tab" in missing:
        install_punkt_tab_from_wheel(target, log)
    _checked = False
    check_nlp_data()
    log(f"WordNet {WORDNET_VERSION} and punkt_tab load from {target}.")
    return target


def _nltk_download(names: list[str], target: Path, log: Log) -> bool:
    """Try NLTK's own downloader; False (quickly) when its hub is unreachable."""
    import nltk

    log(f"Trying NLTK's downloader for {', '.join(names)} into {target} ...")
    previous = socket.getdefaulttimeout()
    # nltk passes no timeout to urlopen; without one a dead network can hang for minutes.
    socket.setdefaulttimeout(DOWNLOAD_TIMEOUT_S)
    try:
        # nltk prints its own copy of the error to stderr; we log one line instead.
        with contextlib.redirect_stderr(io.StringIO()):
            for name in names:
                nltk.download(
                    name, download_dir=str(target), quiet=True, raise_on_error=True
                )
    except Exception as exc:
        log(f"  NLTK's downloader failed ({exc}); using the offline sources.")
        return False
    finally:
        socket.setdefaulttimeout(previous)
    return True


def _run(cmd: list[str], cwd: Path, log: Log, hint: str = "") -> None:
    log("  $ " + " ".join(cmd))
    try:
        done = subprocess.run(
            cmd, cwd=cwd, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise NlpDataInstallError(f"`{' '.join(cmd)}` failed: {exc}. {hint}") from exc
    if done.returncode != 0:
        output = (done.stderr.strip() or done.stdout.strip())[-800:]
        raise NlpDataInstallError(
            f"`{' '.join(cmd)}` exited with status {done.returncode}: {output} {hint}"
        )


def install_wordnet_from_debian(target: Path, log: Log = print) -> Path:
    """Unpack Debian's WordNet 3.0 into `<target>/corpora/wordnet/`, adding `lexnames`.

    Uses `apt-get download` + `dpkg -x` in a temporary folder: nothing is installed
    system-wide and no root rights are needed.
    """
    for tool in ("apt-get", "dpkg"):
        if shutil.which(tool) is None:
            raise NlpDataInstallError(
                f"`{tool}` is not available, so WordNet cannot come from Debian's "
                f"packages. On a machine with internet run: "
                f"python -m nltk.downloader -d {target} wordnet punkt_tab"
            )
    dest = Path(target) / "corpora" / "wordnet"
    log(f"Fetching WordNet 3.0 from Debian packages {', '.join(DEBIAN_PACKAGES)} ...")
    with tempfile.TemporaryDirectory(prefix="wordnet-deb-") as tmp_name:
        tmp = Path(tmp_name)
        hint = "(If apt cannot locate the packages, run `apt-get update` first.)"
        _run(["apt-get", "download", *DEBIAN_PACKAGES], tmp, log, hint)
        for deb in sorted(tmp.glob("*.deb")):
            _run(["dpkg", "-x", str(deb), str(tmp / "root")], tmp, log)
        source = tmp / "root" / "usr" / "share" / "wordnet"
        if not (source / "index.sense").is_file():
            raise NlpDataInstallError(f"the Debian packages held no WordNet files in {source}")
        dest.mkdir(parents=True, exist_ok=True)
        for path in source.iterdir():
            if path.is_file():
                shutil.copy2(path, dest / path.name)
        licence = tmp / "root" / "usr" / "share" / "doc" / "wordnet-base" / "copyright"
        if licence.is_file():
            shutil.copy2(licence, dest / "LICENSE")
    # Debian omits `lexnames`, which nltk's reader opens at start-up.
    (dest / "lexnames").write_text(lexnames_text(), encoding="ascii")
    log(f"  WordNet 3.0 -> {dest}")
    return dest


def install_punkt_tab_from_wheel(target: Path, log: Log = print) -> Path:
    """Extract NLTK's punkt_tab from the llama-index-core wheel into `<target>/tokenizers/`."""
    dest = Path(target) / "tokenizers" / "punkt_tab"
    log(f"Fetching punkt_tab from the PyPI wheel {PUNKT_WHEEL} ...")
    with tempfile.TemporaryDirectory(prefix="punkt-tab-") as tmp_name:
        tmp = Path(tmp_name)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps",
               "--only-binary=:all:", "--dest", str(tmp), PUNKT_WHEEL]
        _run(cmd, tmp, log, "(pip must be available in this Python environment.)")
        wheels = sorted(tmp.glob("*.whl"))
        if not wheels:
            raise NlpDataInstallError(f"pip download left no wheel in {tmp}")
        with zipfile.ZipFile(wheels[0]) as wheel:
            count = _extract_folder(wheel, PUNKT_IN_WHEEL, dest)
    if count == 0:
        raise NlpDataInstallError(f"{wheels[0].name} holds no {PUNKT_IN_WHEEL}")
    log(f"  punkt_tab ({count} files) -> {dest}")
    return dest


def _extract_folder(archive: zipfile.ZipFile, prefix: str, dest: Path) -> int:
    """Copy the members under `prefix` to `dest`; returns how many files were written."""
    root = dest.resolve()
    count = 0
    for info in archive.infolist():
        if info.is_dir() or not info.filename.startswith(prefix):
            continue
        out = (root / info.filename[len(prefix):]).resolve()
        if not out.is_relative_to(root):  # never write outside dest
            raise NlpDataInstallError(f"unsafe path in wheel: {info.filename}")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(archive.read(info))
        count += 1
    return count
