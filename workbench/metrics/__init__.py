"""Scores for fact-checker runs: pure functions of labels and counts, no I/O.

Predicted values are the gold classes, the dataset's abstain label, or PARSE_FAILURE;
API_ERROR and MISSING are outcomes that are counted but not scored.
"""

from workbench.metrics.breakdown import (
    NO_VALUE,
    Panel,
    breakdown,
    cutoff_bucket,
    panel_from_rows,
)
from workbench.metrics.confusion import (
    API_ERROR,
    MISSING,
    PARSE_FAILURE,
    Confusion,
    OutcomeCoder,
    accuracy,
    macro_f1,
    mcc,
    parse_failure_rate,
    per_class,
    predicted_values,
    unknown_rate,
)
from workbench.metrics.live import LiveMetrics
from workbench.metrics.resampling import (
    Corrections,
    Interval,
    McNemarResult,
    PairedComparison,
    bootstrap_cis,
    bootstrap_cis_from_cells,
    corrections,
    mcnemar,
    mcnemar_from_counts,
    paired_bootstrap,
    paired_bootstrap_from_cells,
    resampled_confusions,
)
from workbench.metrics.summary import (
    Baselines,
    ClassScores,
    MetricSummary,
    baselines,
    summarise,
    summarise_counts,
    summarise_slot_counts,
    summarise_slot_tallies,
)

__all__ = [
    "API_ERROR",
    "MISSING",
    "NO_VALUE",
    "PARSE_FAILURE",
    "Baselines",
    "ClassScores",
    "Confusion",
    "Corrections",
    "Interval",
    "LiveMetrics",
    "McNemarResult",
    "MetricSummary",
    "OutcomeCoder",
    "PairedComparison",
    "Panel",
    "accuracy",
    "baselines",
    "bootstrap_cis",
    "bootstrap_cis_from_cells",
    "breakdown",
    "corrections",
    "cutoff_bucket",
    "macro_f1",
    "mcc",
    "mcnemar",
    "mcnemar_from_counts",
    "paired_bootstrap",
    "paired_bootstrap_from_cells",
    "panel_from_rows",
    "parse_failure_rate",
    "per_class",
    "predicted_values",
    "resampled_confusions",
    "summarise",
    "summarise_counts",
    "summarise_slot_counts",
    "summarise_slot_tallies",
    "unknown_rate",
]
