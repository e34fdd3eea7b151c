"""Time and money as the CLI, the TUI and reports show them: engine settings, time per
claim, tokens per second, costs ("unknown" where a price is not known, never 0)."""

from __future__ import annotations


def engine_line(engine: dict) -> str:
    """The engine settings a local run records, and which of them can change its answers."""
    threads = f"{engine.get('n_threads')} thread{'s' if engine.get('n_threads') != 1 else ''}"
    if engine.get("n_threads_batch") not in (None, engine.get("n_threads")):
        threads += f" ({engine['n_threads_batch']} for prompts)"
    return (f"engine: llama.cpp {engine.get('build', '?')}; GPU layers {engine.get('n_gpu_layers', 0)}; {threads};"
            f" batch {engine.get('n_batch')}; context {engine.get('n_ctx')} (recorded with the run; the build and GPU"
            " layers can change answers, see docs/models.md)")
