"""A real HTTP server on 127.0.0.1 that serves pictures a search run's model may ask to look
at, and the bad answers the image fetcher must refuse.

    with ImageServer() as images:
        images.url("/photo.png")        # a real PNG
        images.hits["/photo.png"]       # how often it was asked for

Routes: /photo.png /chart.jpg (real pictures), /page.html (HTML sent as image/png),
/drawing.svg, /truncated.png (a PNG cut short), /big.png (Content-Length 50 MB),
/endless.png (a chunked answer that never ends before 50 MB), /loop-a <-> /loop-b
(redirects), /to-ftp (redirect to ftp://), /moved.png (redirect to /photo.png),
/elsewhere.png (redirect to /photo.png on localhost),
/busy.png (HTTP 503), /gone.png (404), and /on/<anything>.png (a picture too).
"""

from __future__ import annotations

import io
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from PIL import Image


def png(size=(40, 30), colour=(200, 40, 40)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "PNG")
    return out.getvalue()


def jpeg(size=(48, 32), colour=(20, 90, 200)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "JPEG")
    return out.getvalue()


PHOTO, CHART = png(), jpeg()
FIFTY_MB = 50 * 2**20


class ImageServer:
    def __init__(self, latency: float = 0.0):
        self.latency = latency
        self.hits: Counter[str] = Counter()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}{path}"

    def __enter__(self) -> ImageServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(owner: ImageServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            owner.hits[path] += 1
            if owner.latency:
                import time

                time.sleep(owner.latency)  # the server's own latency (the benchmark's image fetch)
            try:
                self._route(path)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the fetcher stopped reading (over its limit): expected

        def _route(self, path: str) -> None:
            routes = {
                "/photo.png": ("image/png", PHOTO),
                "/chart.jpg": ("image/jpeg", CHART),
                "/page.html": ("image/png", b"<!DOCTYPE html><html><body>Not a picture</body></html>"),
                "/drawing.svg": ("image/svg+xml", b'<svg xmlns="http://www.w3.org/2000/svg"></svg>'),
                "/truncated.png": ("image/png", PHOTO[: len(PHOTO) // 2]),
            }
            redirects = {
                "/loop-a": "/loop-b",
                "/loop-b": "/loop-a",
                "/to-ftp": "ftp://127.0.0.1/photo.png",
                "/moved.png": "/photo.png",
            }
            if path in routes:
                self._send(200, *routes[path])
            elif path.startswith("/on/"):
                self._send(200, "image/png", PHOTO)
            elif path in redirects:
                self._redirect(redirects[path])
            elif path == "/elsewhere.png":  # the same picture, under another host name
                self._redirect(owner.url("/photo.png").replace("127.0.0.1", "localhost"))
            elif path == "/big.png":
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(FIFTY_MB))
                self.end_headers()
                self.wfile.write(PHOTO[:64])  # the rest never comes: the fetcher must not wait for it
            elif path == "/endless.png":
                self._endless()
            elif path == "/busy.png":
                self._send(503, "text/plain", b"busy")
            else:
                self._send(404, "text/plain", b"no such picture")

        def _endless(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"\0" * 2**20
            for _ in range(FIFTY_MB // len(chunk)):
                self.wfile.write(f"{len(chunk):X}\r\n".encode() + chunk + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")

        def _redirect(self, location: str) -> None:
            self.send_response(302)
            self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _send(self, status: int, kind: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler
