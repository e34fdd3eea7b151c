"""At temperature 0 a claim's answer is the same alone, after other claims, in another
order, with another batch size and after a kill and a resume (the real SmolLM2)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

from workbench.backends.llama import default_gguf_path, forget_loaded_models
from workbench.runs.engine import RunRequest, execute_run, prepare_run

pytestmark = pytest.mark.slow
PARAMS = {"max_tokens": 24, "temperature": 0, "seed": 0}
CLAIMS = 5


def last_logits(model) -> np.ndarray:
    from llama_cpp import llama_cpp

    return np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(model.ctx, -1), shape=(model.n_vocab(),)).copy()


def logits_after(model, *prompts) -> np.ndarray:
    """Evaluate each prompt in turn (as runs do, the KV cache carried over); the last one's logits."""
    for prompt in prompts:
        next(model.generate(prompt, temp=0.0))
    return last_logits(model)


@pytest.fixture(scope="module")
def long_prompt(tmp_path_factory):
    """A real prompt of 904 tokens: demo claim js-003 in setting claim+time+full (the claim-first
    layout, whose lengths the cases below were found with), as the
    chat template lays it out."""
    from llama_cpp import Llama, llama_chat_format

    from store import Store
    from workbench.cli.demo import load_demo
    from workbench.prompting import load_template, parse_setting, render

    store = Store.open(tmp_path_factory.mktemp("demo") / "demo.db")
    load_demo(store)
    claim = store.claims.get(store.claims.ids("dataset:demo")[2])
    messages = render(claim, load_template("jsfactcheck-claim-first"), parse_setting("claim+time+full")).messages
    store.close()
    model = Llama(model_path=str(default_gguf_path()), n_ctx=2048, verbose=False)
    template = llama_chat_format.Jinja2ChatFormatter(
        model.metadata["tokenizer.chat_template"], "<|im_end|>", "<|im_start|>"
    )
    tokens = model.tokenize(template(messages=messages).prompt.encode(), add_bos=False, special=True)
    model.close()
    assert len(tokens) == 904
    return tokens


LENGTHS = (400, 512, 904)
"""Prompt lengths at which plain llama-cpp-python's lone last token gave other logits here."""


# 400 = 3 x 133 + 1: with batches of 133 even a whole evaluation would end on a lone token.
@pytest.mark.parametrize("n_batch", [512, 133])
def test_logits_do_not_depend_on_what_was_evaluated_before(long_prompt, n_batch):
    from workbench.backends.llama_engine import LocalLlama

    model = LocalLlama(
        model_path=str(default_gguf_path()), n_ctx=2048, n_batch=n_batch, verbose=False, prefix_cache_bytes=256 << 20
    )
    for length in (400,):
        prompt = long_prompt[:length]
        other = prompt[:20] + prompt[25:]  # shares 20 tokens, then differs
        model.reset()
        model.prefix_states.clear()
        alone = logits_after(model, prompt)
        after_other = logits_after(model, other, prompt)  # the shared prefix comes from the other prompt
        # After an answer the cache holds the prompt and more: llama-cpp-python would evaluate
        # only the prompt's last token again.
        after_its_answer = logits_after(model, prompt + [prompt[5]], prompt)
        one_short = logits_after(model, prompt[:-1] + [prompt[-2]], prompt)  # all but the last token shared
        model.reset()
        model.prefix_states.clear()
        restored = logits_after(model, prompt[:-3] + [1, 2, 3], other, prompt)  # from a kept state
        assert model.prefix_states.restored >= 1
        for logits in (after_other, after_its_answer, one_short, restored):
            assert np.array_equal(logits, alone), length
    model.close()


def test_plain_llama_cpp_python_gives_other_logits_to_a_lone_last_token(long_prompt):
    """Why LocalLlama takes a token back: llama-cpp-python evaluates only the last token of
    a prompt it has just answered, and at some lengths those logits differ from a whole
    evaluation's. (If this ever fails, llama.cpp changed and the rule in llama_engine may go.)"""
    from llama_cpp import Llama

    model = Llama(model_path=str(default_gguf_path()), n_ctx=2048, verbose=False)
    differ = []
    for length in LENGTHS:
        prompt = long_prompt[:length]
        model.reset()
        alone = logits_after(model, prompt)
        differ.append(not np.array_equal(alone, logits_after(model, prompt + [prompt[5]], prompt)))
    model.close()
    assert any(differ)


@pytest.fixture
def five_claims(demo_store):
    return demo_store.claims.ids("dataset:demo")[:CLAIMS]


def answers(store, db_path, claim_ids, name, **params) -> dict[int, str]:
    prepared = prepare_run(
        store,
        RunRequest(claim_ids=claim_ids, params={**PARAMS, **params}, name=name, use_cache=False, setting="claim+time"),
    )
    asyncio.run(execute_run(db_path, prepared))
    return {p.claim_id: p.raw_output for p in store.runs.predictions(prepared.run.id)}


def test_each_answer_is_the_same_alone_after_others_in_another_order_and_after_a_kill(demo_store, db_path, five_claims):
    alone = {}
    for claim_id in five_claims:
        forget_loaded_models()  # a fresh model: nothing evaluated before this claim
        alone.update(answers(demo_store, db_path, [claim_id], f"alone-{claim_id}"))
    assert len(alone) == CLAIMS and all(alone.values())
    forget_loaded_models()
    assert answers(demo_store, db_path, five_claims, "together") == alone
    one_by_one_reversed = {}
    for claim_id in reversed(five_claims):  # each after the others, in the other order, KV cache kept
        one_by_one_reversed.update(answers(demo_store, db_path, [claim_id], f"reversed-{claim_id}"))
    assert one_by_one_reversed == alone
    # 240-odd tokens in batches of 7: many prompts end on a lone token without the rule
    assert answers(demo_store, db_path, five_claims, "small-batches", n_batch=7) == alone
    assert answers(demo_store, db_path, five_claims, "no-kept-prefixes", prefix_cache_mb=0) == alone
    other_threads = max((os.cpu_count() or 2) // 2, 1) + 1  # llama-cpp-python's default, plus one
    assert answers(demo_store, db_path, five_claims, "other-threads", n_threads=other_threads) == alone

    args = [
        "run",
        "--dataset",
        "demo",
        "--limit",
        str(CLAIMS),
        "--setting",
        "claim+time",
        "--no-cache",
        "--name",
        "killed",
        *(f"--param={k}={v}" for k, v in PARAMS.items()),
    ]
    killed = _workbench(db_path, *args, kill_after=2)
    output, _ = killed.communicate(timeout=600)
    assert killed.returncode == -signal.SIGKILL, output
    run = demo_store.runs.get("killed")
    assert len(demo_store.runs.predictions(run.id)) == 2  # killed part way, two answers committed
    resumed = _workbench(db_path, "run", "--resume", "killed")
    output, _ = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, output
    assert {p.claim_id: p.raw_output for p in demo_store.runs.predictions(run.id)} == alone


# The process kills itself (SIGKILL, no clean-up at all) right after its Nth answer is
# committed: a crash at a known point, without a test polling for it.
KILL_AFTER = """
import os, signal
from workbench.runs import answering
finish, done = answering.RunEngine._finish, []
def finish_then_die(self, prediction, cache=None):
    finish(self, prediction, cache)
    done.append(prediction.claim_id)
    if len(done) == {count}:
        os.kill(os.getpid(), signal.SIGKILL)
answering.RunEngine._finish = finish_then_die
"""


def _workbench(db_path, *args, kill_after: int | None = None) -> subprocess.Popen:
    code = (KILL_AFTER.format(count=kill_after) if kill_after else "") + (
        "import sys; from workbench.cli import main; sys.exit(main())"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code, "--db", str(db_path), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
