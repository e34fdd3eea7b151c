"""Real HTTP servers on 127.0.0.1 that speak the Chat Completions and Messages wire
formats, with faults injected on demand (for the backend, runner and CLI tests).

    with LoopbackServer("openai") as server:
        server.faults.extend([Fault.status(429, retry_after=1), Fault.reset()])
        ... point a client at server.url ...
        server.requests  # what arrived, when (monotonic), with which headers
"""

from __future__ import annotations

import json
import socket
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.loopback_batches import BatchDesk


@dataclass
class Fault:
    kind: str  # status | slow | reset | malformed | not_json | echo_auth | empty_choices
    status: int = 200
    headers: dict = field(default_factory=dict)
    seconds: float = 0.0

    @classmethod
    def status_code(cls, status: int, retry_after: float | None = None) -> Fault:
        headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
        return cls("status", status, headers)

    @classmethod
    def slow(cls, seconds: float) -> Fault:
        return cls("slow", seconds=seconds)

    @classmethod
    def reset(cls) -> Fault:
        return cls("reset")

    @classmethod
    def malformed(cls) -> Fault:
        return cls("malformed")


@dataclass
class ToolUse:
    """A scripted answer that calls tools: [(tool name, arguments dict or raw JSON text)]."""

    calls: list
    text: str = ""


@dataclass
class Arrival:
    at: float
    path: str
    body: dict | None
    headers: dict  # names lower-cased
    fault: str | None


def default_answer(body: dict) -> str:
    return '{"verdict": "Supported", "explanation": "The loopback server agrees."}'


class LoopbackServer:
    """A threaded HTTP server in this process; `kind` is openai or anthropic."""

    def __init__(
        self,
        kind: str = "openai",
        latency: float = 0.0,
        answer: Callable[[dict], str] = default_answer,
        usage: dict | None = None,
    ):
        self.kind, self.latency, self.answer = kind, latency, answer
        self.usage = usage
        """The usage block every answer reports (default: 11 prompt / 7 completion tokens)."""
        self.faults: deque[Fault] = deque()
        self.requests: list[Arrival] = []
        self.served = 0
        self.lock = threading.Lock()
        self.served_event = threading.Condition(self.lock)
        self._server = _Server(("127.0.0.1", 0), _handler_for(self))
        self.batches = BatchDesk(self)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}" + ("/v1" if self.kind == "openai" else "")

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def next_fault(self) -> Fault | None:
        with self.lock:
            return self.faults.popleft() if self.faults else None

    def wait_served(self, count: int, timeout: float = 30.0) -> bool:
        """Block until `count` answers were sent (or the timeout passes)."""
        with self.served_event:
            return self.served_event.wait_for(lambda: self.served >= count, timeout)

    def answer_arrivals(self) -> list[Arrival]:
        return [a for a in self.requests if a.fault is None]

    def response_body(self, body: dict) -> dict:
        """The answer's body; `answer` may give text, or a ToolUse (tool calls, and text)."""
        answer = self.answer(body)
        text, calls = (answer.text, answer.calls) if isinstance(answer, ToolUse) else (answer, [])
        if self.kind == "anthropic":
            blocks = [{"type": "text", "text": text}] if text or not calls else []
            blocks += [
                {"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": arguments}
                for n, (name, arguments) in enumerate(calls)
            ]
            return {
                "id": "msg_loop",
                "type": "message",
                "role": "assistant",
                "model": body.get("model"),
                "content": blocks,
                "stop_reason": "tool_use" if calls else "end_turn",
                "stop_sequence": None,
                "usage": self.usage or {"input_tokens": 11, "output_tokens": 7},
            }
        message = {"role": "assistant", "content": text if text or not calls else None}
        if calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{n}",
                    "type": "function",
                    "function": {
                        "name": name,
                        "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
                    },
                }
                for n, (name, arguments) in enumerate(calls)
            ]
        return {
            "id": "chatcmpl-loop",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": self.usage or {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
        }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address) -> None:
        """A client that went away (a killed or cancelled run) is expected, not news; the
        default prints a traceback to stderr, which a CliRunner capturing stderr at that
        moment would mix into the command's output."""
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


def _handler_for(owner: LoopbackServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in two writes; without this, Nagle + delayed ACK add ~40 ms.
        disable_nagle_algorithm = True

        def log_message(self, *args) -> None:  # keep test output clean
            pass

        def do_GET(self) -> None:
            self._batch_route("GET", b"")

        def do_DELETE(self) -> None:
            self._batch_route("DELETE", b"")

        def _batch_route(self, method: str, raw: bytes) -> None:
            """Answer a batch API route (files, batches, results); False when it is not one."""
            headers = {name.lower(): value for name, value in self.headers.items()}
            answer = owner.batches.handle(method, self.path, headers, raw)
            with owner.lock:
                owner.requests.append(Arrival(time.monotonic(), self.path, None, headers, "batch"))
            if answer is None:
                self._send(404, json.dumps({"error": {"type": "not_found", "message": self.path}}).encode())
            else:
                self._send(*answer)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if "/files" in self.path or "/batches" in self.path:
                self._batch_route("POST", raw)
                return
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            fault = owner.next_fault()
            headers = {name.lower(): value for name, value in self.headers.items()}
            with owner.lock:
                owner.requests.append(
                    Arrival(time.monotonic(), self.path, body, headers, fault.kind if fault else None)
                )
            try:
                self._respond(fault, body or {})
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test): nothing to answer

        def _respond(self, fault: Fault | None, body: dict) -> None:
            if fault is None:
                if owner.latency:
                    time.sleep(owner.latency)  # the server's own latency, not a test waiting
                self._send(200, json.dumps(owner.response_body(body)).encode())
                with owner.served_event:
                    owner.served += 1
                    owner.served_event.notify_all()
            elif fault.kind == "status":
                error = {"error": {"type": "loopback_error", "message": f"injected {fault.status}"}}
                self._send(fault.status, json.dumps(error).encode(), fault.headers)
            elif fault.kind == "echo_auth":
                # A careless server that repeats the credential back in its error.
                auth = self.headers.get("Authorization") or self.headers.get("x-api-key") or ""
                error = {"error": {"type": "auth", "message": f"bad credential {auth}"}}
                self._send(fault.status or 401, json.dumps(error).encode())
            elif fault.kind == "slow":
                time.sleep(fault.seconds)
                self._send(200, json.dumps(owner.response_body(body)).encode())
            elif fault.kind == "reset":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()
                self.close_connection = True
            elif fault.kind == "malformed":
                self._send(200, b'{"id": "chatcmpl-broken", "choices": [{"index": 0, "mess')
            elif fault.kind == "empty_choices":
                self._send(200, json.dumps({"id": "x", "object": "chat.completion", "choices": []}).encode())

        def _send(self, status: int, payload: bytes, headers: dict | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

    return Handler
