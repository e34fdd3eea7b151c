"""Item 3 of issue 20: Ctrl-C (or K) during a local run abandons the answer being written
instead of waiting for it; the answers already committed stay and the run resumes. With the
real SmolLM2 in this process. (How fast the whole process ends: bench/bench_cancel.py.)"""

from __future__ import annotations

import threading

import pytest
from llama_cpp import LogitsProcessorList

from tests.run_fixtures import many_claims, write_mini
from workbench.backends import BackendError, CompletionRequest
from workbench.backends.llama import LlamaBackend, default_gguf_path
from workbench.backends.llama_abort import AbortFlag, abortable
from workbench.importers import import_file
from workbench.runs.engine import ItemFinished, RunRequest, prepare_run, run_blocking

pytestmark = pytest.mark.slow
STORY = [{"role": "user", "content": "Tell a long story about a lighthouse keeper and the sea."}]


@pytest.fixture(scope="module")
def smollm2() -> LlamaBackend:
    backend = LlamaBackend(default_gguf_path(), {"n_ctx": 4096})
    backend.complete_blocking(CompletionRequest(STORY, max_tokens=2))  # loaded and warmed up
    return backend


def test_llama_cpp_stops_at_the_step_after_the_flag_is_set(smollm2):
    """The flag is read by llama.cpp itself between the steps of its computation: set while
    the fifth token is chosen, no sixth token is computed; the model then answers in full."""
    model, lock = smollm2.load()
    flag, chosen = AbortFlag(), []

    def count_tokens(input_ids, logits):  # called once per token, before it is chosen
        chosen.append(len(input_ids))
        if len(chosen) == 5:
            flag.set()
        return logits

    with lock, abortable(model, flag), pytest.raises(RuntimeError, match="llama_decode returned 2"):
        model.create_chat_completion(
            messages=STORY, max_tokens=300, temperature=0.0, logits_processor=LogitsProcessorList([count_tokens])
        )
    assert len(chosen) == 5
    after = smollm2.complete_blocking(CompletionRequest(STORY, max_tokens=12, temperature=0.0))
    assert after.tokens_out == 12 and after.text.strip()


def test_an_interrupted_backend_abandons_its_call_and_the_model_serves_the_next_run(smollm2):
    cancelled = LlamaBackend(default_gguf_path(), {"n_ctx": 4096})  # the same loaded model, another run
    cancelled.interrupt()
    with pytest.raises(BackendError, match="cancelled: the answer being written was abandoned"):
        cancelled.complete_blocking(CompletionRequest(STORY, max_tokens=300))
    answer = smollm2.complete_blocking(CompletionRequest(STORY, max_tokens=8, temperature=0.0))
    assert answer.tokens_out == 8


def test_a_cancelled_local_run_keeps_its_answers_leaves_the_abandoned_claim_pending_and_resumes(
    store, db_path, tmp_path, smollm2
):
    import_file(store, write_mini(tmp_path, many_claims(3), name="few"), "jsonl")
    request = RunRequest(dataset="few", name="stopped", params={"max_tokens": 64})
    prepared = prepare_run(store, request)
    cancel = threading.Event()

    def on_event(event) -> None:  # the first answer is committed: cancel while the second is written
        if isinstance(event, ItemFinished):
            cancel.set()

    progress = run_blocking(db_path, prepared, on_event, cancel)
    run = store.runs.get("stopped")
    assert run.status == "cancelled" and progress.done == 1 and progress.error == 0
    assert len(store.runs.predictions(run.id)) == 1  # the abandoned answer left no error row behind
    resumed = prepare_run(store, RunRequest(resume="stopped"))
    assert len(resumed.pending_claim_ids) == 2
    finished = run_blocking(db_path, resumed)
    assert finished.done == 3 and store.runs.get("stopped").status == "finished"
