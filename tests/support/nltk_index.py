"""An NLTK data server on 127.0.0.1: packages zipped in the test, an index.xml built by
nltk's own `build_index`, served over real HTTP with the requests recorded.

    with NltkIndex(tmp_path / "hub") as hub:
        hub.add_package("punkt_tab", "tokenizers", {"english/README": b"..."})
        hub.publish()
        ... Downloader(server_index_url=hub.index_url) ...
        hub.requested   # ["/index.xml", "/packages/tokenizers/punkt_tab.zip"]
"""

from __future__ import annotations

import threading
import zipfile
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from xml.etree import ElementTree


class NltkIndex:
    def __init__(self, root: Path):
        self.root = Path(root)
        (self.root / "packages").mkdir(parents=True, exist_ok=True)
        (self.root / "collections").mkdir(exist_ok=True)
        self.requested: list[str] = []
        handler = partial(_Handler, self.requested, directory=str(self.root))
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def index_url(self) -> str:
        return f"{self.url}/index.xml"

    def zip_path(self, package: str, subdir: str) -> Path:
        return self.root / "packages" / subdir / f"{package}.zip"

    def add_package(self, package: str, subdir: str, files: dict[str, bytes]) -> Path:
        """A package whose zip expands to `<package>/<name>` for each of `files`."""
        path = self.zip_path(package, subdir)
        path.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in files.items():
                archive.writestr(f"{package}/{name}", data)
        (path.parent / f"{package}.xml").write_text(
            f'<package id="{package}" name="{package} (test copy)" unzip="1"/>', encoding="utf-8"
        )
        return path

    def add_folder(self, package: str, subdir: str, folder: Path) -> Path:
        """A package made of every file below `folder` (e.g. an installed corpus)."""
        files = {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
        return self.add_package(package, subdir, files)

    def publish(self) -> None:
        """Write index.xml for the packages added so far, with nltk's own index builder."""
        from nltk.downloader import build_index

        index = build_index(str(self.root), f"{self.url}/packages")
        ElementTree.ElementTree(index).write(self.root / "index.xml", encoding="utf-8", xml_declaration=True)

    def __enter__(self) -> NltkIndex:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


class _Handler(SimpleHTTPRequestHandler):
    def __init__(self, requested: list[str], *args, **kwargs):
        self.requested = requested
        super().__init__(*args, **kwargs)

    def do_GET(self):  # noqa: N802 - http.server's name
        self.requested.append(self.path)
        super().do_GET()

    def log_message(self, *args) -> None:  # quiet: the test reads `requested`
        pass
