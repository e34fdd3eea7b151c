"""Real HTTP servers on 127.0.0.1 speaking SearXNG's and Tavily's search APIs, with faults.

    with SearchServer("searxng", results=lambda query: [...]) as server:
        server.faults.extend(["500", "slow"])   # the next answers: an HTTP 500, then a slow one
        ... --search searxng --search-url server.url ...
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

    def __init__(self, kind: str, results=lambda query: [], slow_seconds: float = 2.0, latency: float = 0.0):
        self.kind, self.results, self.slow_seconds, self.latency = kind, results, slow_seconds, latency
        self.faults: deque[str] = deque()  # "403", "429", "500", "slow", "malformed"
        self.queries: list[str] = []
        self.headers: list[dict] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> "SearchServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def body(self, query: str) -> dict:
        rows = self.results(query)
        if self.kind == "searxng":
            return {"query": query, "results": [{"url": r["url"], "title": r.get("title"), "content": r.get("snippet"),
                                                 "publishedDate": r.get("published")} for r in rows]}
        return {"query": query, "results": [{"url": r["url"], "title": r.get("title"), "content": r.get("snippet"),
                                             "published_date": r.get("published"), "raw_content": r.get("text")}
                                            for r in rows]}


def _handler(owner: SearchServer):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:
            query = parse_qs(urlsplit(self.path).query).get("q", [""])[0]
            self._answer(query)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            self._answer(body.get("query", ""))

        def _answer(self, query: str) -> None:
            if owner.latency:
                time.sleep(owner.latency)
            owner.queries.append(query)
            owner.headers.append({k.lower(): v for k, v in self.headers.items()})
            fault = owner.faults.popleft() if owner.faults else None
            if fault == "slow":
                time.sleep(owner.slow_seconds)
            if fault in ("429", "500", "403"):
                self._send(int(fault), b'{"error": "busy"}')
                return
            if fault == "malformed":
                self._send(200, b"<html>not json</html>")
                return
            self._send(200, json.dumps(owner.body(query)).encode())

        def _send(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except OSError:
                pass

    return Handler
