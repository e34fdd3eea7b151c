"""One of a judge's repeated answers (`judge --repeats K`, `ev2r --repeats K`) as it is kept."""

from __future__ import annotations

from store import JudgeRepeat
from workbench.runs.types import TaskAnswer


def judge_repeat(
    ids: tuple[int, int, int],
    parsed: TaskAnswer | None,
    completion,
    error: str | None,
    cached: bool,
    score_key: str,
    reason_key: str | None = None,
) -> JudgeRepeat:
    """The repeat (run id, claim id, repeat number) of `ids`: a readable answer keeps
    parsed[score_key] as its score (and parsed[reason_key] as its reason), an unreadable one
    is kept with why it could not be read and no score, a failed request with neither: a
    failure is never a score. The engine hands no parsed answer with an error."""
    if error is not None or parsed is None:
        status, score, reason = "error", None, None
    elif parsed.status == "ok":
        status, score = "ok", parsed.parsed.get(score_key)
        reason = parsed.parsed.get(reason_key) if reason_key else None
    else:
        status, score, reason = parsed.status, None, parsed.explanation
    raw = None if completion is None else completion.text
    return JudgeRepeat(*ids, status, score, reason, raw, error, cached)
