"""Runs and benchmarks in other tools' formats, written and read with those formats' own
libraries, each an optional extra imported only inside the function that needs it
(docs/exporting.md says what maps to what, and what is lost).

    inspect_export.py   a run -> an Inspect AI eval log (`workbench export-run --format inspect`)
    inspect_messages.py a sample's conversation: prompt, search steps as tool calls, answer
    inspect_import.py   an Inspect AI eval log -> a run (`workbench import-run`)
    hf_eval_results.py  a run's score -> a Hugging Face `.eval_results` entry (PyYAML)
    eee_export.py       a run -> Every Eval Ever records (`export-run --format eee`): the aggregate
    eee_metrics.py      its evaluation results, one per metric with its interval
    eee_instances.py    its instance-level records, one per claim
    croissant.py        a curated benchmark -> JSON Lines + Croissant metadata (`export-croissant`)

Above the reports in the layers: an exported log carries the run's scores, explanation
quality, cost and failure categories, as the run's report has them.
"""

EXTRA_HINT = "pip install 'factcheck-workbench[{extra}]'"
"""How to install an extra, named in the error a command gives without it."""

EEE_RELATIONSHIPS = ("third_party", "first_party", "collaborative", "other")
"""Every Eval Ever's evaluator_relationship: who ran the evaluation, relative to the model's
developer (here so the CLI offers them without importing the exporter)."""
