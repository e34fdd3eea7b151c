"""A web site on 127.0.0.1 for the article fetcher: pages by path, robots.txt, and the faults
a crawler meets (errors, 429 with Retry-After, redirects that never end, binary files, huge
pages declared or streamed, slow answers), with what arrived recorded.

    with PageServer(latency=0.1) as site:
        site.page("/checks/1", html)
        site.faults["/checks/2"] = deque([(429, {"Retry-After": "1"})])
        ... fetch site.url + "/checks/1" ...
        site.arrivals            # [(monotonic time, path, headers)]
        site.most_at_once        # the most requests it was answering at one moment
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Route:
    status: int = 200
    body: bytes = b""
    headers: dict = field(default_factory=dict)
    stream_bytes: int = 0
    """> 0: send this many bytes in 1 MiB chunks (no Content-Length unless `declare`)."""
    declare: bool = False
    sleep: float = 0.0


def article_html(title: str, paragraphs: list[str], nav: str = "Home | About | Donate") -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title></head><body>'
        f"<nav>{nav}</nav><article><h1>{title}</h1>{body}</article>"
        "<footer>Copyright the agency. Subscribe to our newsletter.</footer></body></html>"
    )


class PageServer:
    def __init__(self, latency: float = 0.0):
        self.latency = latency
        self.routes: dict[str, Route] = {}
        self.faults: dict[str, deque] = {}
        """Path -> answers given before its route: (status, headers) each."""
        self.arrivals: list[tuple[float, str, dict]] = []
        self.sent: dict[str, int] = {}
        """Path -> body bytes written (a refused stream stops early)."""
        self.in_flight = 0
        self.most_at_once = 0
        self.on_arrival = lambda path: None
        """Called (on the server's thread) as each request arrives."""
        self.lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def netloc(self) -> str:
        return f"127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> PageServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def page(
        self,
        path: str,
        html: str,
        status: int = 200,
        content_type: str = "text/html; charset=utf-8",
        headers: dict | None = None,
    ) -> None:
        self.routes[path] = Route(status, html.encode(), {"Content-Type": content_type, **(headers or {})})

    def redirect(self, path: str, to: str, status: int = 301) -> None:
        self.routes[path] = Route(status, b"", {"Location": to})

    def robots(self, text: str, status: int = 200) -> None:
        self.routes["/robots.txt"] = Route(status, text.encode(), {"Content-Type": "text/plain"})

    def paths(self) -> list[str]:
        return [path for _, path, _ in self.arrivals]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512

    def handle_error(self, request, client_address) -> None:
        pass  # a fetcher that hung up (a refused stream, a timeout) is what some tests do


def _handler(owner: PageServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:
            path = self.path
            with owner.lock:
                owner.arrivals.append((time.monotonic(), path, {k.lower(): v for k, v in self.headers.items()}))
                owner.in_flight += 1
                owner.most_at_once = max(owner.most_at_once, owner.in_flight)
            owner.on_arrival(path)
            try:
                if owner.latency:
                    time.sleep(owner.latency)  # the site's own latency, not a test waiting
                self._answer(path)
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                with owner.lock:
                    owner.in_flight -= 1

        def _answer(self, path: str) -> None:
            with owner.lock:
                queued = owner.faults.get(path)
                fault = queued.popleft() if queued else None
            if fault is not None:
                status, headers = fault
                self._send(status, b"fault", {"Content-Type": "text/plain", **headers})
                return
            route = owner.routes.get(path)
            if route is None:
                self._send(404, b"<html><body>not here</body></html>", {"Content-Type": "text/html"})
                return
            if route.sleep:
                time.sleep(route.sleep)
            if route.stream_bytes:
                self._stream(path, route)
                return
            self._send(route.status, route.body, route.headers)

        def _send(self, status: int, body: bytes, headers: dict) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            with owner.lock:
                owner.sent[self.path] = owner.sent.get(self.path, 0) + len(body)

        def _stream(self, path: str, route: Route) -> None:
            self.send_response(route.status)
            for name, value in route.headers.items():
                self.send_header(name, value)
            if route.declare:
                self.send_header("Content-Length", str(route.stream_bytes))
            else:
                self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk, left = b"<p>" + b"x" * ((1 << 20) - 7) + b"</p>", route.stream_bytes
            while left > 0:
                piece = chunk[:left]
                if route.declare:
                    self.wfile.write(piece)
                else:
                    self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                with owner.lock:
                    owner.sent[path] = owner.sent.get(path, 0) + len(piece)
                left -= len(piece)
            if not route.declare:
                self.wfile.write(b"0\r\n\r\n")

    return Handler
