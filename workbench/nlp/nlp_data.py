"""Provide and check the NLTK data that METEOR needs: WordNet 3.0 and punkt_tab.

Installing goes through nltk's own downloader (`nltk.downloader.Downloader`) from an NLTK
data index: NLTK's hub by default, or any server publishing an `index.xml` in NLTK's
format (a mirror, a copy on the local network). A machine that can reach neither gets
the data by other means and points nltk at it (NLTK_DATA); this repository's
`scripts/nlp_data_offline.py` is one such means, for its own development machines.
"""

from __future__ import annotations

import io
import shutil
import socket
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

FIX = "Run `workbench nlp-data` (or `make nlp-data`) to install WordNet 3.0 and punkt_tab with NLTK's downloader."
WORDNET_VERSION = "3.0"
DOG_N_01_OFFSET = 2084071
NLTK_PACKAGES = ("wordnet", "punkt_tab")
# nltk opens URLs without a timeout: without one a dead network can hang for minutes.
DOWNLOAD_TIMEOUT_S = 15.0
NO_HUB = (
    "Without access to an NLTK data index, copy an nltk_data folder holding "
    "corpora/wordnet and tokenizers/punkt_tab from a machine that has one and set "
    "NLTK_DATA to it, or give --index-url a mirror's index.xml."
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


def default_index_url() -> str:
    """The NLTK data index nltk's own downloader uses when given none."""
    from nltk.downloader import Downloader

    return Downloader.DEFAULT_URL


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
            "METEOR scoring needs NLTK data: " + "; ".join(problems.values()) + f". {FIX} (nltk searched: {searched})"
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


def absent_in(target: Path) -> dict[str, str]:
    """Which of the two resources have no files in `target` (an nltk_data folder)."""
    wordnet = target / "corpora" / "wordnet"
    absent = {}
    if not ((wordnet / "lexnames").is_file() or (wordnet.parent / "wordnet.zip").is_file()):
        absent["wordnet"] = f"WordNet is not in {target}"
    if not (target / "tokenizers" / "punkt_tab" / "english").is_dir():
        absent["punkt_tab"] = f"punkt_tab is not in {target}"
    return absent


def ensure_nlp_data(target: Path | None = None, index_url: str | None = None, log: Log = print) -> Path:
    """Make WordNet 3.0 and punkt_tab loadable and return the nltk_data folder used.

    Without `target`, nothing is installed when nltk already loads both; with it,
    whatever `target` lacks is installed there. The data comes through nltk's
    downloader from `index_url` (NLTK's hub when None). Raises NlpDataInstallError
    when the download fails, NlpDataMissing when what arrived does not load.
    """
    global _checked
    explicit = target is not None
    target = Path(target) if explicit else default_target()
    _add_search_path(target)
    missing = absent_in(target) if explicit else _problems()
    if not missing:
        check_nlp_data()  # files present must also load, as the right version
        log("WordNet 3.0 and punkt_tab are already installed; nothing to do.")
        return target if explicit else _data_root("corpora/wordnet", target)
    log(f"Missing: {'; '.join(missing.values())}.")
    download(sorted(missing), target, index_url, log)
    _checked = False
    check_nlp_data()
    log(f"WordNet {WORDNET_VERSION} and punkt_tab load from {target}.")
    return target


def download(names: list[str], target: Path, index_url: str | None = None, log: Log = print) -> None:
    """Install NLTK packages into `target` with nltk's downloader.

    Each package lands in a staging folder first and moves into `target` only when its
    size and MD5 checksum match its index entry, so a failed or corrupt download leaves
    `target` as it was. NlpDataInstallError names the package and what failed.
    """
    from nltk.downloader import Downloader

    downloader = Downloader(server_index_url=index_url, download_dir=str(target))
    url = index_url or Downloader.DEFAULT_URL
    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(DOWNLOAD_TIMEOUT_S)
    try:
        for name in names:
            log(f"Downloading {name} into {target} (index {shown_url(url)}) ...")
            _download_one(downloader, name, Path(target), url)
            log(f"  {name} installed.")
    finally:
        socket.setdefaulttimeout(previous)


def shown_url(url: str) -> str:
    """The URL without any user:password part, for messages and logs."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit(parts._replace(netloc=netloc))


def _download_one(downloader, name: str, target: Path, url: str) -> None:
    created = not target.exists()
    target.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-download-", dir=target))
    try:
        _fetch(downloader, name, staging, url)
        for subdir in (p for p in staging.iterdir() if p.is_dir()):
            for item in subdir.iterdir():
                _replace(item, target / subdir.name / item.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if created and not any(target.iterdir()):
            target.rmdir()  # a failed first download leaves no empty folder behind


def _fetch(downloader, name: str, staging: Path, url: str) -> None:
    errors = io.StringIO()  # nltk prints its errors; ours carries them instead
    try:
        done = downloader.download(
            name, download_dir=str(staging), quiet=True, raise_on_error=True, print_error_to=errors
        )
    except Exception as exc:  # URLError, an HTML page for an index, a bad zip...
        said = (str(exc).strip() or type(exc).__name__).replace(url, shown_url(url))
        raise NlpDataInstallError(
            f"NLTK's downloader could not install {name} from {shown_url(url)}: {said}. {NO_HUB}"
        ) from exc
    if not done or downloader.status(name, str(staging)) != downloader.INSTALLED:
        raise NlpDataInstallError(
            f"{name} as downloaded from {shown_url(url)} does not match the size and checksum its "
            f"index gives (a broken download or mirror); nothing was installed. {NO_HUB}"
        )


def _replace(source: Path, dest: Path) -> None:
    """Move `source` to `dest`, replacing an older copy of the same package."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.is_dir() and not dest.is_symlink():
        shutil.rmtree(dest)
    elif dest.exists() or dest.is_symlink():
        dest.unlink()
    source.rename(dest)
