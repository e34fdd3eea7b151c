"""Real HTTP servers on 127.0.0.1 speaking SearXNG's, Tavily's and Serper's search APIs,
with faults.

    with SearchServer("searxng", results=lambda query: [...]) as server:
        server.faults.extend(["500", "slow"])   # the next answers: an HTTP 500, then a slow one
        ... --search searxng --search-url server.url ...

Rows are {url, title, snippet, published, text}; image rows add image_url and source.
Serper (POST /search, /images, /lens) wants its key in X-API-KEY and refuses any other
with 403, as google.serper.dev does.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class SearchServer:
    """kind: searxng (GET /search?q=..&format=json) or tavily (POST /search, Bearer key)."""

    def __init__(
        self,
        kind: str,
        results=lambda query: [],
        slow_seconds: float = 2.0,
        latency: float = 0.0,
        images=lambda query: [],
        lens=lambda url: [],
        key: str | None = None,
    ):
        self.kind, self.results, self.slow_seconds, self.latency = kind, results, slow_seconds, latency
        self.images, self.lens, self.key = images, lens, key
        self.faults: deque[str] = deque()
        """"401", "403", "429", "500", "503" ("429 wait 2": with Retry-After: 2), "slow", "malformed",
        "shapeless", "echo"."""
        self.queries: list[str] = []
        self.paths: list[str] = []
        self.headers: list[dict] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> SearchServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def body(self, query: str, path: str = "/search", images: bool = False) -> dict:
        if self.kind == "serper":
            return self._serper(query, path)
        if images:
            return {
                "query": query,
                "results": [
                    {
                        "url": r.get("url"),
                        "title": r.get("title"),
                        "img_src": r.get("image_url"),
                        "content": r.get("snippet"),
                        "source": r.get("source"),
                        "publishedDate": r.get("published"),
                        "template": "images.html",
                    }
                    for r in self.images(query)
                ],
            }
        rows = self.results(query)
        if self.kind == "searxng":
            return {
                "query": query,
                "results": [
                    {
                        "url": r["url"],
                        "title": r.get("title"),
                        "content": r.get("snippet"),
                        "publishedDate": r.get("published"),
                    }
                    for r in rows
                ],
            }
        return {
            "query": query,
            "results": [
                {
                    "url": r["url"],
                    "title": r.get("title"),
                    "content": r.get("snippet"),
                    "published_date": r.get("published"),
                    "raw_content": r.get("text"),
                }
                for r in rows
            ],
        }

    def _serper(self, query: str, path: str) -> dict:
        if path == "/images":
            return {
                "searchParameters": {"q": query, "type": "images"},
                "images": [
                    {
                        "title": r.get("title"),
                        "imageUrl": r.get("image_url"),
                        "link": r.get("url"),
                        "source": r.get("source"),
                        "domain": r.get("domain"),
                        "position": n,
                    }
                    for n, r in enumerate(self.images(query), 1)
                ],
            }
        if path == "/lens":
            return {
                "searchParameters": {"url": query, "type": "lens"},
                "organic": [
                    {
                        "title": r.get("title"),
                        "link": r.get("url"),
                        "source": r.get("source"),
                        "imageUrl": r.get("image_url"),
                        "position": n,
                    }
                    for n, r in enumerate(self.lens(query), 1)
                ],
            }
        return {
            "searchParameters": {"q": query},
            "organic": [
                {
                    "title": r.get("title"),
                    "link": r.get("url"),
                    "snippet": r.get("snippet"),
                    "date": r.get("published"),
                    "position": n,
                }
                for n, r in enumerate(self.results(query), 1)
            ],
        }


def _handler(owner: SearchServer):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:
            asked = parse_qs(urlsplit(self.path).query)
            self._answer(asked.get("q", [""])[0], "/search", asked.get("categories", [""])[0] == "images")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            query = body.get("q", body.get("url", "")) if owner.kind == "serper" else body.get("query", "")
            self._answer(query, urlsplit(self.path).path)

        def _answer(self, query: str, path: str, images: bool = False) -> None:
            if owner.latency:
                time.sleep(owner.latency)
            owner.queries.append(query)
            owner.paths.append(path)
            headers = {k.lower(): v for k, v in self.headers.items()}
            owner.headers.append(headers)
            fault = owner.faults.popleft() if owner.faults else None
            if fault == "slow":
                time.sleep(owner.slow_seconds)
            if fault and fault.split(" wait ")[0] in ("429", "500", "503", "403", "401"):
                status, _, wait = fault.partition(" wait ")  # "429 wait 1": with a Retry-After
                self._send(
                    int(status),
                    json.dumps(
                        {"message": "Unauthorized." if status in ("401", "403") else "busy", "statusCode": int(status)}
                    ).encode(),
                    {"Retry-After": wait} if wait else {},
                )
                return
            if fault == "echo":  # a careless server repeating the key it was given
                self._send(403, json.dumps({"message": f"bad key {headers.get('x-api-key')}"}).encode())
                return
            if owner.kind == "serper" and owner.key is not None and headers.get("x-api-key") != owner.key:
                self._send(403, b'{"message": "Unauthorized.", "statusCode": 403}')
                return
            if fault == "malformed":
                self._send(200, b"<html>not json</html>")
                return
            if fault == "shapeless":
                self._send(200, b'{"searchParameters": {}, "credits": 1}')
                return
            self._send(200, json.dumps(owner.body(query, path, images)).encode())

        def _send(self, status: int, body: bytes, headers: dict | None = None) -> None:
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except OSError:
                pass

    return Handler
