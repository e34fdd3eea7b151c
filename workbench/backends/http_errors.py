"""Turning an HTTP SDK's exceptions into BackendError, with the API key scrubbed out.

The openai and anthropic SDKs share one exception family (APIStatusError with a
status code and the response, APIConnectionError, APITimeoutError, ...), so one
mapping serves both; each backend passes its SDK module.
"""

from __future__ import annotations

import json
import socket
import ssl
from types import ModuleType
from urllib.parse import urlsplit

from workbench.backends.base import BackendError, scrub
from workbench.retrying import retry_after_seconds

MESSAGE_CHARS = 400
# Statuses worth another try: rate limited, timed out server-side, overloaded or broken.
RETRYABLE_STATUS = {408, 409, 425, 429}
# Statuses after which no other item can succeed either (bad key, no access, no such model).
FATAL_STATUS = {401, 403, 404}


def from_sdk_error(
    error: Exception, sdk: ModuleType, secrets: list[str | None], base_url: str | None = None
) -> BackendError:
    """The BackendError for an exception raised by an SDK call to `base_url`."""
    if isinstance(error, (sdk.APIConnectionError, sdk.APITimeoutError)):
        return network_error(error, secrets, urlsplit(base_url).netloc if base_url else None)
    if isinstance(error, sdk.APIResponseValidationError):
        return malformed(f"the response did not match the API's schema: {error}", secrets)
    if isinstance(error, sdk.APIStatusError):
        return _status_error(error, secrets)
    if isinstance(error, (json.JSONDecodeError, UnicodeDecodeError)):
        return malformed(f"the response body is not valid JSON ({error})", secrets)
    return BackendError(scrub(f"{type(error).__name__}: {error}", secrets)[:MESSAGE_CHARS])


def network_error(error: BaseException, secrets: list[str | None], host: str | None = None) -> BackendError:
    """What went wrong on the way to the server, told apart: a DNS failure, a refused
    connection and a TLS failure mean the server cannot be reached at all (`unreachable`);
    a dropped connection or a timeout may pass. The SDKs call most of these a timeout or a
    connection error; the cause is further down the exception chain."""
    chain = _chain(error)
    names = {type(link).__name__ for link in chain}
    for link in chain:
        if isinstance(link, socket.gaierror) or type(link).__name__ == "ClientConnectorDNSError":
            name = getattr(link, "host", None) or (host or "").rsplit(":", 1)[0] or None
            return _unreachable(
                f"DNS lookup failed: cannot resolve {name or 'the host name'} ({_reason(link)})", secrets
            )
    for link in chain:
        if isinstance(link, ssl.SSLError) or type(link).__name__ in _TLS_NAMES:
            return _unreachable(f"TLS handshake failed: {_reason(link)}", secrets)
    for link in chain:
        if isinstance(link, ConnectionRefusedError):
            where = _host_of(chain) or host
            return _unreachable(f"connection refused by {where or 'the server'} (is the server running?)", secrets)
    dropped = next(
        (link for link in chain if isinstance(link, ConnectionError) or type(link).__name__ in _DROPPED_NAMES), None
    )
    if dropped is not None:
        return BackendError(
            scrub(
                f"connection failed: the server dropped it ({type(dropped).__name__}"
                f"{': ' + str(dropped) if str(dropped) else ''})",
                secrets,
            )[:MESSAGE_CHARS],
            retryable=True,
        )
    if "APITimeoutError" in names or any(isinstance(link, TimeoutError) for link in chain):
        return BackendError(
            "the request timed out (no answer within the timeout; --param timeout=SECONDS)", retryable=True
        )
    return BackendError(scrub(f"connection failed ({_reason(chain[-1])})", secrets)[:MESSAGE_CHARS], retryable=True)


def _unreachable(message: str, secrets: list[str | None]) -> BackendError:
    return BackendError(scrub(message, secrets)[:MESSAGE_CHARS], retryable=True, unreachable=True)


def _chain(error: BaseException) -> list[BaseException]:
    """The exception and its causes, outermost first."""
    seen: set[int] = set()
    links: list[BaseException] = []
    link: BaseException | None = error
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        links.append(link)
        link = link.__cause__ or link.__context__
    return links


def _host_of(chain: list[BaseException]) -> str | None:
    """host:port from aiohttp's connector errors, when one is in the chain."""
    for link in chain:
        key = getattr(link, "_conn_key", None) or getattr(link, "conn_key", None)
        if key is not None and getattr(key, "host", None):
            return f"{key.host}:{key.port}"
    return None


def _reason(link: BaseException) -> str:
    reason = getattr(link, "reason", None) or getattr(link, "strerror", None) or str(link) or type(link).__name__
    return str(reason)


# aiohttp's names for a connection that was reset, refused or closed mid-answer, and for TLS failures.
_DROPPED_NAMES = {"ServerDisconnectedError", "ClientOSError", "ClientConnectorError", "RemoteProtocolError"}
_TLS_NAMES = {"ClientConnectorCertificateError", "ClientConnectorSSLError", "ClientSSLError"}


def _status_error(error, secrets: list[str | None]) -> BackendError:
    status = error.status_code
    message = scrub(f"HTTP {status}: {_body_message(error)}", secrets)[:MESSAGE_CHARS]
    retryable = status in RETRYABLE_STATUS or status >= 500
    retry_after = retry_after_seconds(error.response.headers) if retryable else None
    if status in FATAL_STATUS:
        message += {
            401: " (check the API key)",
            403: " (the key lacks access)",
            404: " (check the model name and base URL)",
        }[status]
    return BackendError(
        message, retryable=retryable, retry_after=retry_after, fatal=status in FATAL_STATUS, status=status
    )


def _body_message(error) -> str:
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        return json.dumps(body, ensure_ascii=False)
    return str(body if body is not None else getattr(error, "message", "") or "no details")


def malformed(detail: str, secrets: list[str | None]) -> BackendError:
    """A garbled answer: worth a few more tries, then an error that says what was wrong."""
    return BackendError(scrub(f"malformed response: {detail}", secrets)[:MESSAGE_CHARS], retryable=True)
