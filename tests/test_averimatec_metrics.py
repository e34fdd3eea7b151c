"""The AVerImaTeC arithmetic (workbench.metrics.averimatec) on generated judgments: the gate, the
cap, and the two countings differing exactly by the failed claims."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from workbench.metrics.averimatec import FAILED, NOTHING, TASK, ClaimAverimatec, Judged, passes, recall, summarise


@st.composite
def outcomes(draw):
    kind = draw(st.sampled_from(["judged", "judged", "over", FAILED, NOTHING]))
    if kind in (FAILED, NOTHING):
        return kind
    total = draw(st.integers(1, 12))
    if kind == "over":
        return Judged(draw(st.integers(total + 1, total + 5)), total, over_counted=True)
    return Judged(draw(st.integers(0, total)), total)


claims = st.lists(
    st.builds(ClaimAverimatec, st.booleans(), outcomes(), outcomes(), outcomes()), min_size=1, max_size=40
)


@given(claims, st.floats(0, 1))
def test_the_countings_differ_exactly_by_the_failed_claims(found, threshold):
    summary = summarise(found, threshold)
    n = len(found)
    figures = {
        "evidence": (summary.evidence_recall, [recall(c.evidence) for c in found]),
        "verdict": (summary.verdict_accuracy, [float(c.verdict_correct and passes(c, threshold)) for c in found]),
    }
    failed = [c.evidence == FAILED or (isinstance(c.evidence, Judged) and c.evidence.over_counted) for c in found]
    for figure, values in figures.values():
        assert figure.failures == sum(failed)
        kept = [v for v, f in zip(values, failed) if not f]
        assert abs(figure.official - sum(values) / n) < 1e-12
        if kept:
            assert abs(figure.readable - sum(kept) / len(kept)) < 1e-12
        # what separates the two: only the failed claims' own (official) values
        lost = sum(v for v, f in zip(values, failed) if f)
        assert abs(figure.official * n - (figure.readable or 0) * len(kept) - lost) < 1e-9
    assert summary.verdict_accuracy.official <= summary.plain_verdict_accuracy + 1e-12
    assert 0 <= summary.justification_recall.official <= 1 and 0 <= summary.question_recall.official <= 1


def test_the_gate_is_strict_and_over_counts_are_capped_as_the_organisers_do():
    at_gate = ClaimAverimatec(True, NOTHING, Judged(2, 5), Judged(1, 1))
    above = ClaimAverimatec(True, NOTHING, Judged(3, 5), Judged(1, 1))
    assert TASK.evidence_threshold == 0.4
    assert summarise([at_gate]).verdict_accuracy.official == 0.0
    assert summarise([above]).verdict_accuracy.official == 1.0
    over = ClaimAverimatec(True, Judged(7, 3, over_counted=True), Judged(3, 5), FAILED)
    summary = summarise([over])
    assert summary.question_recall.official == 1.0 and summary.question_recall.readable is None
    assert summary.justification_recall.failures == 1 and summary.justification_recall.official == 0.0
