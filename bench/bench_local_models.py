"""Local models: a 12-setting sweep of the demo dataset, and the default model's encoding.
Every figure is a ratio against a baseline measured in this process.

Run: PYTHONPATH=. python bench/bench_local_models.py [--claims 24] [--group 6]
     [--template jsfactcheck] [--variants today,sweep,sweep-q8]

(a) The JSFactCheckBench sweep (12 settings x the demo's claims) with SmolLM2:
      today:   a bare llama-cpp-python loop (plain Llama) asking the prompts in today's
               order, one run after another (setting by setting, claims in id order);
               the engine used to match such a loop (bench_runner.py (a));
      before:  the same loop with the jsfactcheck layout before 2026-12-02, the claim
               first (jsfactcheck-claim-first): what a sweep cost before the change;
      ordered: the same bare loop in the sweep's prefix-sharing order (the order alone);
      sweep:   the engine: `workbench run --setting all` (execute_runs: that order, kept
               prefix states, the last-piece rule);
      sweep-q8: the engine sweep with the Q8_0 re-encoding of (b).
    Target: sweep >= 1.25x today. The claims go in groups (--group), and in each group the
    variants are timed in turn (their order rotating), so load from other work on the
    machine falls on all alike; CPU time (all of llama.cpp's threads) is printed beside the
    wall time. Also printed: prompt tokens each evaluated, prefix states
    restored, last pieces split.
(b) The embedded default in Q4_1 against a Q8_0 re-encoding of the same weights, made here
    with llama.cpp's own quantizer (llama_model_quantize): the engine sweep's time with
    each (variants sweep and sweep-q8), and whether every answer (raw text, verdict) is
    the same.
(c) The prompt tokens to evaluate for the whole demo's sweep, by order and by what the
    model keeps, counted with the model's tokenizer (seconds; --no-tokens leaves it out).
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from store import Store  # noqa: E402
from workbench.backends.llama import completion_arguments, default_gguf_path, forget_loaded_models  # noqa: E402
from workbench.backends.llama_engine import common_prefix  # noqa: E402
from workbench.cli.demo import load_demo  # noqa: E402
from workbench.runs.engine import RunRequest, execute_runs, prepare_run  # noqa: E402
from workbench.runs.ordering import RunQueue, WorkFeed  # noqa: E402
from workbench.runs.requests import verdict_request  # noqa: E402

SETTINGS = [
    "claim",
    "claim+reference",
    "claim+full",
    "claim+pages",
    "claim+time",
    "claim+time+reference",
    "claim+time+full",
    "claim+time+pages",
    "claim+time+qr",
    "claim+time+qr+reference",
    "claim+time+qr+full",
    "claim+time+qr+pages",
]


def in_thread(work):
    """Run `work` in a worker thread, as the engine runs llama.cpp (the main thread is slower here)."""
    result = {}
    thread = threading.Thread(target=lambda: result.update(value=work()))
    thread.start()
    thread.join()
    return result["value"]


class Bench:
    def __init__(self, folder: Path, template: str):
        self.folder, self.template, self.made = folder, template, 0
        self.db_path = folder / "bench.db"
        self.store = Store.open(self.db_path)
        load_demo(self.store)

    def prepare(self, claim_ids: list[int], model: str = "gguf:default", template: str | None = None) -> list:
        """The sweep's twelve runs over these claims (new runs: nothing from the cache)."""
        self.made += 1
        return [
            prepare_run(
                self.store,
                RunRequest(
                    model=model,
                    claim_ids=claim_ids,
                    setting=setting,
                    prompt=template or self.template,
                    use_cache=False,
                    name=f"b{self.made}-{setting}",
                ),
            )
            for setting in SETTINGS
        ]

    def requests_today(self, runs: list) -> list:
        """Run after run, claims in id order: what twelve `workbench run` commands asked."""
        return [
            verdict_request(prepared, claim)
            for prepared in runs
            for claim in self.store.runs.claims(prepared.pending_claim_ids)
        ]

    def requests_ordered(self, runs: list) -> list:
        """The engine's own order for the sweep (runs.ordering)."""
        feed = WorkFeed(
            self.store, [RunQueue(p, p.pending_claim_ids, lambda c, p=p: verdict_request(p, c)) for p in runs]
        )
        items = []
        while (item := feed.next()) is not None:
            items.append(item.request)
        return items

    def engine(self, runs: list) -> tuple[float, dict]:
        started = time.perf_counter()
        in_thread(lambda: asyncio.run(execute_runs(self.db_path, runs)))
        seconds = time.perf_counter() - started
        answers = {}
        for prepared in runs:
            for p in self.store.runs.predictions(prepared.run.id):
                answers[(prepared.run.setting, p.claim_id)] = p
        return seconds, answers


def bare_loop(model, requests: list) -> tuple[float, int, int]:
    """A plain llama-cpp-python loop: seconds, and the prompt and generated tokens llama.cpp
    evaluated."""
    from llama_cpp import llama_cpp

    def work():
        evaluated = generated = 0
        started = time.perf_counter()
        for request in requests:
            llama_cpp.llama_perf_context_reset(model.ctx)
            model.create_chat_completion(**completion_arguments(request))
            counters = llama_cpp.llama_perf_context(model.ctx)
            evaluated, generated = evaluated + counters.n_p_eval, generated + counters.n_eval
        return time.perf_counter() - started, evaluated, generated

    return in_thread(work)


VARIANTS = ("today", "before", "ordered", "sweep", "sweep-q8")
CLAIM_FIRST = "jsfactcheck-claim-first"


def bench_sweep(bench: Bench, claim_ids: list[int], group: int, variants: list[str]) -> None:
    """Time the variants over the same claims, group by group in rotating order."""
    from llama_cpp import Llama

    plain = Llama(model_path=str(default_gguf_path()), n_ctx=4096, verbose=False)
    in_thread(lambda: plain.create_chat_completion(messages=[{"role": "user", "content": "Hello"}], max_tokens=4))
    q8 = None
    if "sweep-q8" in variants:
        q8 = bench.folder / "SmolLM2-135M-Instruct.Q8_0.gguf"
        made_in = quantize(default_gguf_path(), q8, 7)
    wall = {v: 0.0 for v in variants}
    cpu = {v: 0.0 for v in variants}
    tokens = {v: 0 for v in variants}
    written = {v: 0 for v in variants}
    per_group = {v: [] for v in variants}
    answers: dict[str, dict] = {v: {} for v in variants}
    counters = {"restored": 0, "split": 0}
    groups = [claim_ids[i : i + group] for i in range(0, len(claim_ids), group)]
    for n, ids in enumerate(groups):
        for variant in variants[n % len(variants) :] + variants[: n % len(variants)]:  # rotate: drift hits all
            started_cpu = time.process_time()
            if variant.startswith("sweep"):
                forget_loaded_models()  # each engine sweep loads its model fresh (its kept states empty)
                runs = bench.prepare(ids, "gguf:default" if variant == "sweep" else f"gguf:{q8}")
                seconds, got = bench.engine(runs)
                answers[variant].update(got)
                tokens[variant] += sum(p.prompt_eval_tokens or 0 for p in got.values())
                written[variant] += sum(p.eval_tokens or 0 for p in got.values())
                model = _engine_model()
                counters["restored"] += model.prefix_states.restored if variant == "sweep" else 0
                counters["split"] += model.pieces_split if variant == "sweep" else 0
            else:
                runs = bench.prepare(ids, template=CLAIM_FIRST if variant == "before" else None)
                requests = bench.requests_ordered(runs) if variant == "ordered" else bench.requests_today(runs)
                seconds, evaluated, generated = bare_loop(plain, requests)
                tokens[variant] += evaluated
                written[variant] += generated
            wall[variant] += seconds
            per_group[variant].append(seconds)
            cpu[variant] += time.process_time() - started_cpu
        so_far = ", ".join(f"{v} {wall[v]:.0f} s" for v in variants)
        print(f"    group {n + 1}/{len(groups)} ({len(ids)} claims x 12 settings): {so_far}", flush=True)
    plain.close()
    prompts = len(claim_ids) * len(SETTINGS)
    print(f"(a) 12-setting sweep of {len(claim_ids)} demo claims ({prompts} prompts), template {bench.template}:")
    labels = {
        "today": "bare loop, today's order",
        "before": f"bare loop, today's order, {CLAIM_FIRST}",
        "ordered": "bare loop, the sweep's order",
        "sweep": "engine sweep (Q4_1, the default)",
        "sweep-q8": "engine sweep, Q8_0 re-encoding",
    }
    base = "today" if "today" in variants else variants[0]
    for variant in variants:
        ratio = (
            f" -> {wall[base] / wall[variant]:.2f}x {base} (CPU time {cpu[base] / cpu[variant]:.2f}x)"
            if variant != base
            else ""
        )
        groups_text = " + ".join(f"{g:.0f}" for g in per_group[variant])
        print(
            f"    {labels[variant]:34s} {wall[variant]:7.1f} s wall ({groups_text}), {cpu[variant]:7.1f} s CPU,"
            f" {tokens[variant]:,} prompt tokens evaluated, {written[variant]:,} generated{ratio}"
        )
    if "sweep" in variants and "before" in variants:
        print(
            f"    engine sweep against the claim-first layout in today's order: {wall['before'] / wall['sweep']:.2f}x"
        )
    if "sweep" in variants and "ordered" in variants:
        print(f"    engine sweep against the bare loop in the same order: {wall['ordered'] / wall['sweep']:.2f}x")
    if "sweep" in variants:
        print(
            f"    engine (Q4_1 sweeps): {counters['restored']} kept prefix states restored, {counters['split']}"
            " prompts' last piece split (one extra decode of two tokens each: the reproducibility rule's cost)"
        )
    if q8 is not None and "sweep" in variants:
        keys = answers["sweep"].keys()
        same_text = sum(answers["sweep"][k].raw_output == answers["sweep-q8"][k].raw_output for k in keys)
        same_verdict = sum(answers["sweep"][k].verdict == answers["sweep-q8"][k].verdict for k in keys)
        faster = wall["sweep-q8"] < wall["sweep"]
        print(
            f"(b) Q8_0 re-encoding ({q8.stat().st_size / 1e6:.0f} MB, made by llama_model_quantize in {made_in:.1f} s)"
            f" against Q4_1 ({default_gguf_path().stat().st_size / 1e6:.0f} MB): {wall['sweep'] / wall['sweep-q8']:.2f}x"
            f" as fast; identical raw answers {same_text}/{len(keys)}, identical verdicts {same_verdict}/{len(keys)}"
            f" -> {'ship Q8_0 as the default' if faster and same_text == len(keys) else 'keep Q4_1 as the default'}"
        )


def token_counts(bench: Bench, templates: list[str]) -> None:
    """(c) The prompt tokens a local model evaluates for the whole demo's sweep, by order and
    by what it keeps (the previous prompt only, or kept states within 512 MB): the prompts
    are tokenised with the model's own tokenizer and chat template, not run."""
    from collections import OrderedDict

    from llama_cpp import Llama, llama_chat_format

    from workbench.backends import CompletionRequest
    from workbench.prompting import load_template, parse_setting, render
    from workbench.runs.ordering import prompt_key

    vocab = Llama(model_path=str(default_gguf_path()), vocab_only=True, verbose=False)
    chat = llama_chat_format.Jinja2ChatFormatter(
        vocab.metadata["tokenizer.chat_template"], "<|im_end|>", "<|im_start|>"
    )
    per_token = 2 * 30 * 192 * 2  # SmolLM2-135M's KV cache: K and V, 30 layers, 3 x 64 wide, f16
    claims = [bench.store.claims.get(i) for i in bench.store.claims.ids("dataset:demo")]

    def evaluated(order, prompts, cap_bytes):
        previous, kept, total = [], OrderedDict(), 0
        for key in order:
            tokens = prompts[key]
            best = max([common_prefix(previous, tokens)] + [common_prefix(k, tokens) for k in kept.values()])
            total += len(tokens) - best
            previous = tokens
            if cap_bytes:
                kept[key] = tokens
                while sum(len(v) for v in kept.values()) * per_token > cap_bytes:
                    kept.popitem(last=False)
        return total

    print(f"(c) prompt tokens to evaluate for the sweep of all {len(claims)} demo claims (tokenised, not run):")
    for name in templates:
        template = load_template(name)
        prompts, keys = {}, {}
        for setting in SETTINGS:
            for claim in claims:
                messages = render(claim, template, parse_setting(setting)).messages
                prompts[(setting, claim.id)] = vocab.tokenize(
                    chat(messages=messages).prompt.encode(), add_bos=False, special=True
                )
                keys[(setting, claim.id)] = prompt_key(CompletionRequest(messages))
        today = [(s, c.id) for s in SETTINGS for c in claims]
        ordered = sorted(prompts, key=keys.__getitem__)
        base = evaluated(today, prompts, 0)
        print(
            f"    {name}: {sum(map(len, prompts.values())):,} prompt tokens in all; today's order {base:,};"
            f" today's order with kept states {evaluated(today, prompts, 512 << 20):,};"
            f" the sweep's order {evaluated(ordered, prompts, 0):,} ({1 - evaluated(ordered, prompts, 0) / base:.0%}"
            f" fewer); with kept states too {evaluated(ordered, prompts, 512 << 20):,}"
        )
    vocab.close()


def _engine_model():
    from workbench.backends import llama

    loaded = list(llama._models.values())
    return loaded[0][0] if loaded else None


def quantize(source: Path, target: Path, file_type: int) -> float:
    """Re-encode a GGUF with llama.cpp's own quantizer; seconds taken."""
    from llama_cpp import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = file_type
    params.allow_requantize = True  # from Q4_1's own values: the same weights, another encoding
    started = time.perf_counter()
    if llama_cpp.llama_model_quantize(str(source).encode(), str(target).encode(), ctypes.byref(params)) != 0:
        raise RuntimeError(f"llama.cpp could not re-encode {source}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--claims", type=int, default=24, help="demo claims in the sweep (the demo has 24)")
    parser.add_argument("--group", type=int, default=6, help="claims per timed group")
    parser.add_argument("--variants", default="today,sweep,sweep-q8", help=f"comma-separated, of {', '.join(VARIANTS)}")
    parser.add_argument("--template", default="jsfactcheck")
    parser.add_argument(
        "--tokens",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="(c) first: the tokens to evaluate, counted for the whole demo (seconds)",
    )
    args = parser.parse_args()
    variants = [v for v in args.variants.split(",") if v]
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variants {', '.join(sorted(unknown))}")
    with tempfile.TemporaryDirectory() as folder:
        bench = Bench(Path(folder), args.template)
        claim_ids = bench.store.claims.ids("dataset:demo")[: args.claims]
        if args.tokens:
            token_counts(bench, ["jsfactcheck-claim-first", "jsfactcheck"])
        if variants:
            bench_sweep(bench, claim_ids, args.group, variants)
        bench.store.close()
        forget_loaded_models()


if __name__ == "__main__":
    main()
