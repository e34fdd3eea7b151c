"""What the command line offers before anything heavy is loaded: the names of formats and
the defaults its options show. The modules that implement them import these from here, so
each list exists once and `workbench --help` need not import numpy or the store."""

IMPORT_FORMATS = ("auto", "jsonl", "json", "csv", "tsv", "parquet", "arrow", "claimreview")
"""File formats `workbench import --format` reads (auto: from the file name, else its first bytes;
claimreview: ClaimReview JSON-LD, saved pages, Fact Check Tools API pages, the DataCommons feed)."""
EXPORT_FORMATS = ("jsonl", "csv")
REPORT_FORMATS = ("md", "json", "csv")

DATA_VERSION_KEY = "claims-sha256"
"""Where a run's versions hold the content hash of its claims (recorded when it is made)."""

DEFAULT_RESAMPLES = 1000
"""Bootstrap resamples for the 95% intervals."""
DEFAULT_SEED = 0
BREAKDOWN_FIELDS = (
    "importance",
    "task",
    "domain",
    "label",
    "claim-type",
    "attr.NAME",
    "flag:KIND",
    "cutoff",
    "modality",
)
"""What `--by` and the TUI accept, as shown to users."""

CONTAMINATION_METRICS = "meteor | embedding | embedding:MODEL_DIR"
"""How the contamination pipeline's --metric is spelt."""
CONTAMINATION_COMMAND = "workbench contamination run --model TARGET --extractor EXTRACTOR --dataset DATASET"
"""What to run when there are no contamination scores yet (the extractor defaults to gguf:default)."""
RUN_KINDS = ("answer", "imported", "judge", "ev2r", "averimatec", "reformulate", "article", "extract")
"""What `workbench runs` calls each kind of run: answer (a model's verdicts), imported (answers
made elsewhere), judge (EQ scores of a run's explanations), ev2r (the AVeriTeC 2025 evidence
judge), reformulate (a search run's query pairs labelled), article and extract (the
contamination pipeline's steps)."""
