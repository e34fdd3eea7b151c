"""The local backend with the real SmolLM2 GGUF (llama-cpp-python in this process)."""

from __future__ import annotations

import asyncio
import hashlib
import struct

import pytest

from tests.run_fixtures import load_mini
from workbench.backends import CompletionRequest
from workbench.backends.gguf_file import read_metadata
from workbench.backends.llama import LlamaBackend, default_gguf_path
from workbench.labels import JSFACTCHECK
from workbench.parsing import parse_answer
from workbench.runs.engine import RunRequest, RunSetupError, execute_run, prepare_run

pytestmark = pytest.mark.slow
SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["Supported", "Refuted", "NotEnoughInfo"]},
        "explanation": {"type": "string"},
    },
    "required": ["verdict", "explanation"],
}
QUESTION = [
    {"role": "system", "content": "You check facts."},
    {
        "role": "user",
        "content": "Claim: Paris is the capital of France. Is it Supported, Refuted or NotEnoughInfo? Answer in JSON.",
    },
]
# The runner's default load options, so the model loaded here is the one runs reuse.
SHARED_OPTIONS = {"n_ctx": 4096}


@pytest.fixture(scope="module")
def smollm2() -> LlamaBackend:
    """SmolLM2 loaded and warmed up once for every test in this module."""
    backend = LlamaBackend(default_gguf_path(), SHARED_OPTIONS)
    backend.complete_blocking(CompletionRequest(QUESTION, max_tokens=4))
    return backend


def test_identity_is_the_file_hash_quantisation_and_chat_template(smollm2):
    path = default_gguf_path()
    template = read_metadata(path)["tokenizer.chat_template"]
    assert smollm2.identity == {
        "backend": "gguf",
        "file": "SmolLM2-135M-Instruct.Q4_1.gguf",
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "quantisation": "Q4_1",
        "chat_template_sha256": hashlib.sha256(template.encode()).hexdigest(),
    }
    assert "{% for message in messages %}" in template  # the file carries its own chat template


async def test_a_schema_constrains_the_answer_to_a_verdict(smollm2):
    completion = await smollm2.complete(CompletionRequest(QUESTION, max_tokens=40, json_schema=SCHEMA))
    assert completion.text.lstrip().startswith("{")
    answer = parse_answer(completion.text, JSFACTCHECK)
    assert answer.status == "ok" and answer.verdict in SCHEMA["properties"]["verdict"]["enum"]
    assert completion.tokens_in > 20 and 0 < completion.tokens_out <= 40 and completion.latency_s > 0


async def test_the_same_seed_gives_the_same_answer(smollm2):
    request = CompletionRequest(QUESTION, max_tokens=16, temperature=0.8, seed=11)
    first, second = await smollm2.complete(request), await smollm2.complete(request)
    assert first.text == second.text


async def test_a_completion_leaves_the_event_loop_free(smollm2):
    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    counting = asyncio.create_task(ticker())
    both = await asyncio.gather(
        smollm2.complete(CompletionRequest(QUESTION, max_tokens=12)),
        smollm2.complete(CompletionRequest(QUESTION, max_tokens=12)),
    )
    counting.cancel()
    assert all(c.text for c in both)  # two callers, one model: the lock takes turns
    assert ticks >= 5


async def test_a_run_with_the_local_model_commits_and_reruns_from_cache(store, db_path, tmp_path, smollm2):
    ids = load_mini(store, tmp_path)
    request = RunRequest(dataset="mini", setting="claim+time", claim_ids=None, params={"max_tokens": 24})
    with pytest.raises(RunSetupError, match="2 of 4 selected claims have no reference time or claim date"):
        prepare_run(store, request)
    request.filter = "has:reftime"
    prepared = prepare_run(store, request)
    assert prepared.run.model == "gguf:default" and prepared.concurrency == 1
    progress = await execute_run(db_path, prepared)
    rows = store.runs.predictions(prepared.run_id)
    assert [p.claim_id for p in rows] == ids[:2]
    assert all(p.raw_output and p.tokens_out and not p.cached for p in rows)
    assert progress.ok + progress.abstain + progress.parse_failure == 2
    again = prepare_run(store, request)
    progress = await execute_run(db_path, again)
    assert again.run_id != prepared.run_id and progress.cached == 2
    assert [p.raw_output for p in store.runs.predictions(again.run_id)] == [p.raw_output for p in rows]


def test_files_that_are_not_models_are_refused_before_any_work(store, tmp_path):
    load_mini(store, tmp_path)
    garbage = tmp_path / "notes.gguf"
    garbage.write_text("these are my notes, not a model")
    empty_model = tmp_path / "empty.gguf"
    # A well-formed GGUF header with no tensors: our reader accepts it, llama.cpp cannot load it.
    empty_model.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 0))
    for model, message in [
        (f"gguf:{tmp_path}/absent.gguf", "no GGUF file at"),
        (f"gguf:{garbage}", "is not a GGUF file"),
        (f"gguf:{empty_model}", "llama.cpp could not load"),
    ]:
        with pytest.raises(RunSetupError, match=message):
            prepare_run(store, RunRequest(model=model, dataset="mini"))
    assert store.runs.list() == []
