"""What `workbench --help` says of each command: its first sentence, as click makes it from the
command's docstring. Listing the commands from here imports none of their modules, so `--help`
starts almost as fast as Python itself. tests/test_cli_summaries.py keeps this equal to the
docstrings; a command missing here is still listed (its module is imported for it)."""

from __future__ import annotations

SUMMARIES = {
    "articles": (
        "Each claim's oracle article: the fact-check page its article_url names, fetched (or read from saved "
        "pages and WARC files) and its main text stored, for the contamination pipeline and the search leak "
        "check."
    ),
    "batch": (
        "Runs handed to a provider's batch API (OpenAI, Anthropic, OpenAI-compatible servers with "
        "/v1/batches): submit with `workbench run ..."
    ),
    "claims": "List claims matching a filter.",
    "compare": (
        "Compare RUN_B against RUN_A on the claims both answered: deltas, paired bootstrap p-values, McNemar,"
        " the correction rate CoR, and the claims that flipped."
    ),
    "contamination": "Find claims a model already knows (contamination), flag them, check the flags.",
    "curate": (
        "Curate DATASET into a benchmark: a date window (e.g. after a model's cutoff), languages, an "
        "allow-list of publishers, duplicates across agencies, and an LLM screening of the claim texts."
    ),
    "cutoffs": (
        "List the models' knowledge cutoffs the workbench knows: the built-in table and your config's "
        "[model_cutoffs]."
    ),
    "datasets": "List the datasets in the database.",
    "demo": "Load the bundled demo datasets (idempotent) and open the workbench on them.",
    "export": "Write claims (generic JSONL/CSV, re-importable) or predictions to a file or stdout.",
    "filter-help": "Explain the filter language used by --where and the TUI's filter bar.",
    "import": "Load a benchmark file, or a Hugging Face dataset folder, into the database (all of it, or nothing).",
    "import-knowledge": (
        "Documents a search run's offline backend (fts) can find: a JSONL file (or a folder of them) with url"
        " and text (or AVeriTeC's url2text sentences), e.g."
    ),
    "import-predictions": (
        "Load predictions made elsewhere as a finished run against DATASET: matched to its claims by id (or "
        "exact claim text), verdicts put in its label space (others kept as parse failures), explanations and"
        " predicted evidence kept."
    ),
    "judge": "Score a run's explanations from 0 to 10 with a judge model (RealFactBench's EQ).",
    "judge-agreement": (
        "How the judge runs of RUN and the people who scored its explanations agree: Spearman's rank "
        "correlation, mean absolute difference and the share within 1 point, for every pair, on the claims "
        "both scored."
    ),
    "judge-consistency": (
        "How consistent a judge run asked K times (`judge --repeats K`) is with itself: per claim (identical?"
        " spread) and overall (share identical, mean spread, Krippendorff's alpha); unreadable repeats and "
        "errors counted apart."
    ),
    "metrics": (
        "Score runs: accuracy, macro-F1 with 95% CIs, per-class P/R/F1, MCC, Unknown Rate, parse-failure and "
        "error rates, coverage, confusion matrix, baselines, breakdowns."
    ),
    "nlp-data": "Install WordNet 3.0 and punkt_tab for METEOR evidence scoring.",
    "predictions": "A run's answers beside the gold labels.",
    "profiles": "List the import profiles (built-in and your own); with NAME, print that profile.",
    "prompt": "Print exactly the messages a run would send for one claim.",
    "prompts": "List the prompt templates, their label spaces and settings.",
    "ratings": (
        "Show the rating map: each meaning, the label it folds into, and the ratings that mean it (built-in, "
        "your config's [ratings], and a --rating-map file)."
    ),
    "reformulations": (
        "How a search run changed its queries: each consecutive pair labelled specialization, generalization,"
        " exploration or repetition by a judge model; the average count of each per claim, overall and per "
        "subset of --by."
    ),
    "report": (
        "Write a report to paste into a paper: Markdown tables with the definitions under them, JSON with "
        "everything, or CSV with one row per run x slice."
    ),
    "run": "Run a model over claims; every answer is saved the moment it arrives.",
    "runs": "List runs with their status, counts, tokens and speed.",
    "score-evidence": (
        "Score predicted evidence and labels with the official AVeriTeC conventions, for two files (--gold, "
        "--predictions) or for a run (--run)."
    ),
    "search-stats": (
        "How a search run searched: searches per claim, domains shown, results dropped by the leakage guards "
        "(and why), claims flagged search-leak; image searches per claim, images looked at and image-evidence"
        " claims (claims whose model looked at a retrieved image)."
    ),
    "serve": "Serve the workbench TUI in a browser on http://127.0.0.1:PORT.",
    "show": "Show one claim whole: CLAIM_REF is an id or DATASET:EXTERNAL_ID.",
    "trajectory": (
        "What a search run did for one claim: each search, read and answer, with the results (those the "
        "leakage guards dropped marked, with the reason), image results with their picture's address, and the"
        " images the model looked at (type, size, sha256)."
    ),
    "triage": "Triage as a team: assign answers, label, measure agreement, adjudicate.",
    "tui": "Open the workbench TUI: browse claims and evidence, run models, flag, triage.",
}
"""Command name -> what `workbench --help` says of it (before click shortens it to fit)."""
