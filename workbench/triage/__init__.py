"""Triage as a team, without UI: who labels what (assignment rounds and queues), labels
from and to files, agreement between annotators, final (adjudicated) labels and the
failure-category breakdown they feed. SQL stays in store/ (store.triage,
store.assignments); the statistics are pure (workbench.metrics.agreement)."""

from workbench.errors import WorkbenchError


class TriageError(WorkbenchError, ValueError):
    """A triage request that cannot be carried out; the message says why and what to do."""


__all__ = ["TriageError"]
