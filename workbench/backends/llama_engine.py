"""llama-cpp-python's Llama with reproducible prompt evaluation, prefix states kept across
prompts, and llama.cpp's own timings for every answer.

Reproducibility. llama-cpp-python reuses the KV cache of the previous prompt's shared
prefix, so a prompt is evaluated in different pieces depending on what ran before it.
Measured here (CPU, Q4_1 and Q8_0): the KV cache and the logits come out bit for bit the
same however a prompt is split, except when the last piece is a single token, whose
logits then differ (by up to ~0.8); that happens when the unshared rest of a prompt is
one token, or when its length is one more than a multiple of the batch size. So the last
piece here always holds at least two tokens, and a claim's answer at temperature 0 is the
same alone, after other claims, in any order and after a resume.

Prefix states. After each prompt its KV state (llama.cpp's sequence state: the cells of
sequence 0, nothing else) is kept, newest last, within a byte cap; a later prompt that
shares a longer prefix with a kept state than with what the model holds now starts from
that state. Runs are ordered so that consecutive prompts share the longest prefixes
(runs.ordering), which makes this matter only where the order cannot help: across the
windows the order is computed in, and across runs.
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from collections.abc import Sequence

from llama_cpp import Llama, llama_cpp

from workbench.backends.base import AnswerTimings

MIN_RESTORE_GAIN = 16
"""Restore a kept state only when it spares at least this many more tokens than the model's
current one (restoring costs a copy of the state)."""


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens two sequences share."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class PrefixStates:
    """Saved sequence states keyed by their tokens, least recently used first, within a cap."""

    def __init__(self, cap_bytes: int):
        self.cap_bytes = cap_bytes
        self.entries: OrderedDict[tuple[int, ...], bytes] = OrderedDict()
        self.size = 0
        self.restored = 0
        """States loaded instead of evaluating their tokens (for the benchmark and tests)."""

    def best(self, tokens: Sequence[int]) -> tuple[tuple[int, ...] | None, int]:
        """The kept state sharing the longest prefix with `tokens`, and that length."""
        best_key, best_length = None, 0
        for key in self.entries:
            length = common_prefix(key, tokens)
            if length > best_length:
                best_key, best_length = key, length
        return best_key, best_length

    def add(self, key: tuple[int, ...], state: bytes) -> None:
        """Keep a state; states it extends are dropped (it holds their tokens too)."""
        if self.cap_bytes <= 0 or len(state) > self.cap_bytes:
            return
        for old in [k for k in self.entries if len(k) <= len(key) and key[: len(k)] == k]:
            self._drop(old)
        self.entries[key] = state
        self.size += len(state)
        while self.size > self.cap_bytes:
            self._drop(next(iter(self.entries)))

    def covers(self, key: tuple[int, ...]) -> bool:
        """True when a kept state already holds these tokens as its prefix."""
        return any(len(k) >= len(key) and k[: len(key)] == key for k in self.entries)

    def clear(self) -> None:
        self.entries.clear()
        self.size = 0

    def _drop(self, key: tuple[int, ...]) -> None:
        self.size -= len(self.entries.pop(key))


class LocalLlama(Llama):
    """Llama with the last prompt piece never a lone token, kept prefix states and timings."""

    def __init__(self, *args, prefix_cache_bytes: int = 0, **kwargs):
        super().__init__(*args, **kwargs)
        # A multimodal chat handler evaluates image embeddings itself, at positions whose
        # token ids are placeholders: neither the rule below nor kept states apply there.
        self.text_only = kwargs.get("chat_handler") is None
        self.prefix_states = PrefixStates(prefix_cache_bytes if self.text_only else 0)
        self._prompt_next = False
        self.pieces_split = 0
        """Prompts whose last piece the rule below changed (its cost: one small decode each)."""

    # -- llama-cpp-python's hooks --------------------------------------------------------------

    def generate(self, tokens: Sequence[int], *args, **kwargs):
        """Start from the kept state that shares most of `tokens`, then generate as usual."""
        if self.text_only:
            self._restore_longest_prefix(list(tokens))
            self._prompt_next = True
        try:
            yield from super().generate(tokens, *args, **kwargs)
        finally:
            self._prompt_next = False

    def eval(self, tokens: Sequence[int]) -> None:
        """Evaluate tokens; the prompt's last piece gets at least two tokens (see above)."""
        if not self._prompt_next:
            super().eval(tokens)
            return
        self._prompt_next = False
        tokens = list(tokens)
        if len(tokens) == 1 and self.n_tokens > 0:  # all but one token shared: take one back
            self.n_tokens -= 1
            tokens.insert(0, int(self.input_ids[self.n_tokens]))
            self.pieces_split += 1
        if len(tokens) > 2 and len(tokens) % self.n_batch == 1:
            super().eval(tokens[:-2])
            tokens = tokens[-2:]
            self.pieces_split += 1
        super().eval(tokens)
        self._keep_state()

    # -- timings -------------------------------------------------------------------------------

    def reset_timings(self) -> None:
        llama_cpp.llama_perf_context_reset(self.ctx)

    def timings(self) -> AnswerTimings:
        """llama.cpp's counters since reset_timings()."""
        data = llama_cpp.llama_perf_context(self.ctx)
        return AnswerTimings(int(data.n_p_eval), float(data.t_p_eval_ms), int(data.n_eval), float(data.t_eval_ms))

    # -- prefix states ---------------------------------------------------------------------------

    def _keep_state(self) -> None:
        key = tuple(int(t) for t in self.input_ids[: self.n_tokens])
        if self.prefix_states.cap_bytes <= 0 or not key or self.prefix_states.covers(key):
            return
        size = llama_cpp.llama_state_seq_get_size(self.ctx, 0)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data(self.ctx, buffer, size, 0)
        if written:  # string_at copies the bytes at C speed (a ctypes slice makes a list of ints)
            self.prefix_states.add(key, ctypes.string_at(buffer, written))

    def _restore_longest_prefix(self, tokens: list[int]) -> None:
        if not self.prefix_states.entries:
            return
        now = common_prefix(self.input_ids[: self.n_tokens].tolist(), tokens)
        key, length = self.prefix_states.best(tokens)
        if key is None or length < now + MIN_RESTORE_GAIN:
            return
        state = self.prefix_states.entries[key]
        self.prefix_states.entries.move_to_end(key)
        self._ctx.kv_cache_seq_rm(-1, 0, -1)
        buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
        if llama_cpp.llama_state_seq_set_data(self.ctx, buffer, len(state), 0) != len(state):
            self.reset()  # the state did not load: evaluate from scratch
            return
        self.input_ids[: len(key)] = key
        self.n_tokens = len(key)
        self._requires_eval = True
        self.prefix_states.restored += 1


def engine_facts(model: Llama) -> dict:
    """The engine settings of a loaded model that a run records (see docs/models.md)."""
    system = llama_cpp.llama_print_system_info().decode(errors="replace")
    features = [
        part.split("=")[0].strip() for part in system.replace("CPU :", "").split("|") if part.strip().endswith("= 1")
    ]
    params = model.context_params
    return {
        "build": " ".join(features),
        "n_threads": model.n_threads,
        "n_threads_batch": model.n_threads_batch,
        "n_batch": model.n_batch,
        "n_ubatch": int(params.n_ubatch),
        "n_ctx": model.n_ctx(),
        "n_gpu_layers": int(model.model_params.n_gpu_layers),
        "flash_attn": int(params.flash_attn_type),
        "type_k": int(params.type_k),
    }
