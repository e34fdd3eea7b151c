"""The batch side of the loopback servers: OpenAI's files + /v1/batches and Anthropic's
Message Batches, on the same 127.0.0.1 server that answers live requests.

    server.batches.hold = True          # batches stay in progress until released
    server.batches.refuse = lambda body: "too long" if ... else None   # per-request failures
    server.batches.fail_next = "bad input file"                        # the whole next batch fails
    server.batches.expire = True        # batches end "expired": half the requests answered
    server.batches.create_status = 400  # the next create call is refused with this HTTP status
    server.batches.lose_reply = True    # the next create makes the batch but answers 503
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from email.parser import BytesParser
from email.policy import default as default_policy


class BatchDesk:
    """Batches received by one loopback server, answered with its own answer function."""

    def __init__(self, owner):
        self.owner = owner
        self.hold = False
        self.refuse: Callable[[dict], str | None] = lambda body: None
        self.fail_next: str | None = None
        self.expire = False
        self.create_status: int | None = None
        self.lose_reply = False
        self.deleted: list[str] = []
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.created: list[str] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def handle(self, method: str, path: str, headers: dict, raw: bytes):
        """(status, body bytes) for a batch route, or None when the path is not one."""
        path = path.split("?")[0]
        with self._lock:
            if self.owner.kind == "openai":
                return self._openai(method, path, headers, raw)
            return self._anthropic(method, path, raw)

    # -- OpenAI: /v1/files, /v1/batches ---------------------------------------------------

    def _openai(self, method, path, headers, raw):
        parts = path.strip("/").split("/")  # v1, files|batches, id, ...
        if method == "POST" and parts == ["v1", "files"]:
            return self._upload(headers, raw)
        if len(parts) >= 3 and parts[1] == "files" and parts[2] not in self.files:
            return _error(404, f"no file {parts[2]}")
        if method == "GET" and len(parts) == 4 and parts[1] == "files" and parts[3] == "content":
            return 200, self.files[parts[2]]
        if method == "DELETE" and len(parts) == 3 and parts[1] == "files":
            self.deleted.append(parts[2])
            return 200, json.dumps({"id": parts[2], "object": "file", "deleted": True}).encode()
        if method == "POST" and parts == ["v1", "batches"]:
            if self.create_status:
                status, self.create_status = self.create_status, None
                return _error(status, f"injected {status} on batch create")
            made = self._create_openai(json.loads(raw))
            if self.lose_reply:
                self.lose_reply = False
                return _error(503, "injected 503 after the batch was made")
            return made
        if method == "GET" and parts == ["v1", "batches"]:  # newest first, one page
            data = [json.loads(_public(self.batches[b])) for b in reversed(self.created)]
            return 200, json.dumps(
                {
                    "object": "list",
                    "data": data,
                    "has_more": False,
                    "first_id": data[0]["id"] if data else None,
                    "last_id": data[-1]["id"] if data else None,
                }
            ).encode()
        if len(parts) >= 3 and parts[1] == "batches" and parts[2] in self.batches:
            return self._openai_batch(method, parts, self.batches[parts[2]])
        return None

    def _openai_batch(self, method, parts, batch):
        if method == "POST" and parts[3:] == ["cancel"]:
            if batch["status"] not in ("validating", "in_progress"):
                return _error(409, f"cannot cancel a batch with status {batch['status']!r}")
            batch["status"] = "cancelling"  # the next look finds it cancelled, half answered
        elif batch["status"] == "cancelling":
            self._finish_openai(batch, "cancelled")
        elif not self.hold and batch["status"] == "in_progress":
            self._finish_openai(batch, "expired" if self.expire else "completed")
        return 200, _public(batch)

    def _upload(self, headers, raw):
        form = BytesParser(policy=default_policy).parsebytes(
            b"Content-Type: " + headers["content-type"].encode() + b"\r\n\r\n" + raw
        )
        data = next(
            part.get_payload(decode=True)
            for part in form.iter_parts()
            if part.get_param("name", header="content-disposition") == "file"
        )
        file_id = f"file-{next(self._ids)}"
        self.files[file_id] = data
        return 200, json.dumps(
            {
                "id": file_id,
                "object": "file",
                "bytes": len(data),
                "created_at": 0,
                "filename": "batch.jsonl",
                "purpose": "batch",
                "status": "processed",
            }
        ).encode()

    def _create_openai(self, body):
        batch_id = f"batch_{next(self._ids)}"
        lines = [json.loads(line) for line in self.files[body["input_file_id"]].decode().splitlines() if line]
        batch = {
            "id": batch_id,
            "object": "batch",
            "endpoint": body["endpoint"],
            "errors": None,
            "input_file_id": body["input_file_id"],
            "completion_window": body["completion_window"],
            "status": "in_progress",
            "output_file_id": None,
            "error_file_id": None,
            "created_at": 0,
            "metadata": body.get("metadata"),
            "_lines": lines,
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
        }
        if self.fail_next:
            batch.update(
                status="failed",
                errors={
                    "object": "list",
                    "data": [{"code": "invalid_file", "message": self.fail_next, "line": None, "param": None}],
                },
            )
            self.fail_next = None
        self.batches[batch_id] = batch
        self.created.append(batch_id)
        return 200, _public(batch)

    def _finish_openai(self, batch, status: str):
        """End the batch: every request answered (completed), or only the first half
        (expired: the rest get error lines; cancelled: the rest are simply not run)."""
        good, bad = [], []
        lines = batch.pop("_lines")
        for number, line in enumerate(lines):
            reason = self.refuse(line["body"])
            row = {"id": f"batch_req_{number}", "custom_id": line["custom_id"], "error": None}
            if status != "completed" and number >= len(lines) // 2:
                if status == "expired":
                    bad.append(
                        {
                            **row,
                            "response": None,
                            "error": {"code": "batch_expired", "message": "not run before the completion window ended"},
                        }
                    )
                continue
            if reason:
                row["response"] = {
                    "status_code": 400,
                    "request_id": "r",
                    "body": {"error": {"message": reason, "type": "invalid_request_error"}},
                }
                bad.append(row)
            else:
                row["response"] = {
                    "status_code": 200,
                    "request_id": "r",
                    "body": self.owner.response_body(line["body"]),
                }
                good.append(row)
        for rows, key in ((good, "output_file_id"), (bad, "error_file_id")):
            if rows:
                file_id = f"file-{next(self._ids)}"
                self.files[file_id] = "".join(json.dumps(r) + "\n" for r in rows).encode()
                batch[key] = file_id
        batch.update(status=status, request_counts={"total": len(lines), "completed": len(good), "failed": len(bad)})

    # -- Anthropic: /v1/messages/batches ----------------------------------------------------

    def _anthropic(self, method, path, raw):
        parts = path.strip("/").split("/")  # v1, messages, batches, id, ...
        if parts[:3] != ["v1", "messages", "batches"]:
            return None
        if method == "POST" and len(parts) == 3:
            if self.create_status:
                status, self.create_status = self.create_status, None
                return _error(status, f"injected {status} on batch create")
            batch_id = f"msgbatch_{next(self._ids)}"
            requests = json.loads(raw)["requests"]
            self.batches[batch_id] = {
                "id": batch_id,
                "type": "message_batch",
                "processing_status": "in_progress",
                "request_counts": _anthropic_counts(processing=len(requests)),
                "created_at": "2026-01-01T00:00:00Z",
                "expires_at": "2026-01-02T00:00:00Z",
                "ended_at": None,
                "cancel_initiated_at": None,
                "archived_at": None,
                "results_url": None,
                "_requests": requests,
                "_results": [],
            }
            self.created.append(batch_id)
            return 200, _public(self.batches[batch_id])
        batch = self.batches.get(parts[3]) if len(parts) > 3 else None
        if batch is None:
            return None
        if parts[4:] == ["results"]:
            return 200, "".join(json.dumps(r) + "\n" for r in batch["_results"]).encode()
        ended = batch["processing_status"] == "ended"
        if method == "POST" and parts[4:] == ["cancel"] and not ended:
            self._finish_anthropic(batch, "canceled")
        elif not self.hold and not ended:
            self._finish_anthropic(batch, "expired" if self.expire else None)
        return 200, _public(batch)

    def _finish_anthropic(self, batch, stop: str | None = None):
        """End the batch; with `stop` (canceled, expired) only the first half is answered."""
        counts = _anthropic_counts()
        requests = batch.pop("_requests", [])
        for number, item in enumerate(requests):
            reason = self.refuse(item["params"])
            if stop and number >= len(requests) // 2:
                result, kind = {"type": stop}, stop
            elif reason:
                result, kind = (
                    {
                        "type": "errored",
                        "error": {"type": "error", "error": {"type": "invalid_request_error", "message": reason}},
                    },
                    "errored",
                )
            else:
                result = {"type": "succeeded", "message": self.owner.response_body(item["params"])}
                kind = "succeeded"
            counts[kind] += 1
            batch["_results"].append({"custom_id": item["custom_id"], "result": result})
        port = self.owner._server.server_address[1]
        batch.update(
            processing_status="ended",
            request_counts=counts,
            ended_at="2026-01-01T01:00:00Z",
            results_url=f"http://127.0.0.1:{port}/v1/messages/batches/{batch['id']}/results",
        )


def _error(status: int, message: str):
    return status, json.dumps({"type": "error", "error": {"type": "loopback_error", "message": message}}).encode()


def _anthropic_counts(**given) -> dict:
    return {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0, **given}


def _public(batch: dict) -> bytes:
    return json.dumps({k: v for k, v in batch.items() if not k.startswith("_")}).encode()
