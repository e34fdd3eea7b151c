"""Turning an HTTP SDK's exceptions into BackendError, with the API key scrubbed out.

The openai and anthropic SDKs share one exception family (APIStatusError with a
status code and the response, APIConnectionError, APITimeoutError, ...), so one
mapping serves both; each backend passes its SDK module.
"""

from __future__ import annotations

import email.utils
import json
import time
from types import ModuleType

from workbench.backends.base import BackendError, scrub

MESSAGE_CHARS = 400
# Statuses worth another try: rate limited, timed out server-side, overloaded or broken.
RETRYABLE_STATUS = {408, 409, 425, 429}
# Statuses after which no other item can succeed either (bad key, no access, no such model).
FATAL_STATUS = {401, 403, 404}


def from_sdk_error(error: Exception, sdk: ModuleType, secrets: list[str | None]) -> BackendError:
    """The BackendError for an exception raised by an SDK call."""
    dropped = _dropped_connection(error)
    if isinstance(error, sdk.APIConnectionError) and dropped is not None:
        detail = f" ({type(dropped).__name__}{': ' + str(dropped) if str(dropped) else ''})"
        return BackendError(scrub(f"connection failed{detail}", secrets)[:MESSAGE_CHARS], retryable=True)
    if isinstance(error, sdk.APITimeoutError):
        return BackendError("the request timed out", retryable=True)
    if isinstance(error, sdk.APIConnectionError):
        cause = error.__cause__ or error.__context__
        detail = f" ({type(cause).__name__}{': ' + str(cause) if str(cause) else ''})" if cause else ""
        return BackendError(scrub(f"connection failed{detail}", secrets)[:MESSAGE_CHARS], retryable=True)
    if isinstance(error, sdk.APIResponseValidationError):
        return malformed(f"the response did not match the API's schema: {error}", secrets)
    if isinstance(error, sdk.APIStatusError):
        return _status_error(error, secrets)
    if isinstance(error, (json.JSONDecodeError, UnicodeDecodeError)):
        return malformed(f"the response body is not valid JSON ({error})", secrets)
    return BackendError(scrub(f"{type(error).__name__}: {error}", secrets)[:MESSAGE_CHARS])


def _dropped_connection(error: BaseException) -> BaseException | None:
    """The reset or refused connection behind an SDK error, if that is what it was.

    The SDK's aiohttp transport reports a dropped connection as a connect *timeout*;
    the original exception is still in the chain, and users should see what happened.
    """
    seen: set[int] = set()
    link: BaseException | None = error
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        if isinstance(link, ConnectionError) or type(link).__name__ in _DROPPED_NAMES:
            return link
        link = link.__cause__ or link.__context__
    return None


# aiohttp's names for a connection that was reset, refused or closed mid-answer.
_DROPPED_NAMES = {"ServerDisconnectedError", "ClientOSError", "ClientConnectorError"}


def _status_error(error, secrets: list[str | None]) -> BackendError:
    status = error.status_code
    message = scrub(f"HTTP {status}: {_body_message(error)}", secrets)[:MESSAGE_CHARS]
    retryable = status in RETRYABLE_STATUS or status >= 500
    retry_after = retry_after_seconds(error.response.headers) if retryable else None
    if status in FATAL_STATUS:
        message += {401: " (check the API key)", 403: " (the key lacks access)",
                    404: " (check the model name and base URL)"}[status]
    return BackendError(message, retryable=retryable, retry_after=retry_after, fatal=status in FATAL_STATUS,
                        status=status)


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


def retry_after_seconds(headers) -> float | None:
    """Retry-After (seconds or an HTTP date) or retry-after-ms, as seconds; None if absent."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(float(milliseconds) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(moment.timestamp() - time.time(), 0.0)
