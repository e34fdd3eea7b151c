"""The order a run (or a sweep of runs) asks its pending prompts in: consecutive prompts
share the longest prefix, so a local model evaluates each shared part once.

The pending claims are read a window at a time just ahead of the workers (two queries per
window, never the whole list in memory). Within a window every verdict prompt is rendered
and the prompts are sorted by their text, in the order the model reads it: a sorted list
visits the prompts' trie depth first, so with the previous prompt's KV cache reused, every
shared prefix is evaluated exactly once, the least any order can do. A sweep of settings
puts each claim's prompts (one per run) in the same window, so its settings run back to
back and the part that varies comes last.

Runs whose prompts are built turn by turn (search runs, contamination steps) keep their
claims' order; their items come first in a window.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from store import Claim, Store
from workbench.backends import CompletionRequest
from workbench.prompting import PromptError

CLAIM_WINDOW = 64
"""Claims read (and their prompts ordered) at a time."""


def prompt_key(request: CompletionRequest) -> str:
    """The messages as one string in reading order (sorting by it groups shared prefixes)."""
    parts = []
    for message in request.messages:
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(
                str(part.get("text") or part.get("sha256") or part.get("url") or "")
                for part in content
                if isinstance(part, dict)
            )
        parts.append(f"{message.get('role')}\x1f{content or ''}\x1e")
    return "".join(parts)


def shared_prefix_share(keys: list[str]) -> float:
    """The share of the text each key shares with the one before it (in this order): what
    a local model reusing the previous prompt's prefix need not evaluate."""
    total = sum(len(key) for key in keys)
    shared = sum(len(os.path.commonprefix([a, b])) for a, b in zip(keys, keys[1:]))
    return shared / total if total else 0.0


@dataclass
class WorkItem:
    """One claim of one run to answer: its request already rendered (verdict runs), or the
    PromptError that rendering met, or neither (the run renders it itself)."""

    owner: Any
    claim: Claim
    request: CompletionRequest | None = None
    problem: PromptError | None = None


@dataclass
class RunQueue:
    """A run's pending claims and how its prompt for a claim is rendered (None: by the run
    itself, turn by turn, so not ordered)."""

    owner: Any
    pending: list[int]
    render: Callable[[Claim], CompletionRequest] | None = None
    _pending: set[int] = field(default_factory=set, repr=False)

    def __post_init__(self) -> None:
        self._pending = set(self.pending)


class WorkFeed:
    """Pending (run, claim) items of one or more runs, a window of claims at a time, each
    window in prefix-sharing order."""

    def __init__(self, store: Store, queues: list[RunQueue], window: int = CLAIM_WINDOW):
        self.store, self.queues, self.window = store, queues, window
        self.claim_ids = list(dict.fromkeys(claim_id for queue in queues for claim_id in queue.pending))
        self.position = 0
        self.ready: deque[WorkItem] = deque()

    @property
    def total(self) -> int:
        return sum(len(queue.pending) for queue in self.queues)

    def next(self) -> WorkItem | None:
        """The next item to answer, or None when all were handed out."""
        while not self.ready:
            if self.position >= len(self.claim_ids):
                return None
            chunk = self.claim_ids[self.position : self.position + self.window]
            self.position += len(chunk)
            self.ready.extend(self._ordered(self.store.runs.claims(chunk)))
        return self.ready.popleft()

    def _ordered(self, claims: list[Claim]) -> list[WorkItem]:
        keyed: list[tuple[tuple[int, str], WorkItem]] = []
        for queue in self.queues:
            for claim in claims:
                if claim.id in queue._pending:
                    keyed.append(_keyed(queue, claim))
        keyed.sort(key=lambda pair: pair[0])  # stable: unordered items keep their order, first
        return [item for _key, item in keyed]


def _keyed(queue: RunQueue, claim: Claim) -> tuple[tuple[int, str], WorkItem]:
    if queue.render is None:
        return (0, ""), WorkItem(queue.owner, claim)
    try:
        request = queue.render(claim)
    except PromptError as error:
        return (0, ""), WorkItem(queue.owner, claim, problem=error)
    return (1, prompt_key(request)), WorkItem(queue.owner, claim, request)
