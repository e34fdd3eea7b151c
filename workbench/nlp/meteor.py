"""METEOR with NLTK's exact results, fast when many pairs share strings.

`nltk.translate.meteor_score.single_meteor_score` re-tokenises, re-stems and asks
WordNet again for every pair. AVeriTeC scoring compares every predicted evidence
string with every gold one, so the same strings and words recur constantly. Here each
string is tokenised, lower-cased and stemmed once, and each word's WordNet synonym
set is looked up once; the alignment then follows NLTK 3.9's order step by step, so
scores are equal to NLTK's bit for bit.

NLTK's alignment, which this reproduces:
1. exact stage: hypothesis words from last to first; each takes the last still
   unmatched reference word equal to it;
2. stem stage: the same over the Porter stems of the words still unmatched;
3. synonym stage: hypothesis stems from last to first; each takes the last still
   unmatched reference stem found in its WordNet synonym set (single-word lemma
   names of every synset of the stem, plus the stem itself).
Matches sorted by hypothesis position give the chunks for the fragmentation penalty.
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain
from multiprocessing import get_context

import numpy as np

from workbench.nlp.nlp_data import check_nlp_data


@dataclass(frozen=True)
class Prepared:
    """One tokenised string: lower-cased tokens and their Porter stems."""

    words: tuple[str, ...]
    stems: tuple[str, ...]
    vocabulary: frozenset[str]  # set(words), to skip pairs with no word in common


class MeteorScorer:
    """Sentence-level METEOR equal to nltk's `single_meteor_score` with its defaults.

    Caches tokenisation per string, stems per word and WordNet synonyms per stem, so
    scoring many pairs over a shared vocabulary is much faster than calling nltk.
    """

    def __init__(self, alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5):
        # Fail now, with the fix in the message, rather than score without WordNet.
        check_nlp_data()
        from nltk.corpus import wordnet
        from nltk.stem.porter import PorterStemmer
        from nltk.tokenize import word_tokenize

        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        self._tokenize = word_tokenize
        self._stemmer = PorterStemmer()
        self._lemma_names = LemmaNames(wordnet)
        self._prepared: dict[str, Prepared] = {}
        self._stems: dict[str, str] = {}
        self._synonyms: dict[str, frozenset[str]] = {}

    def prepare(self, text: str) -> Prepared:
        """Tokenise `text` with `word_tokenize` (cached per string)."""
        found = self._prepared.get(text)
        if found is None:
            found = self.prepare_tokens(self._tokenize(text))
            self._prepared[text] = found
        return found

    def prepare_tokens(self, tokens: Sequence[str]) -> Prepared:
        """Lower-case and stem already tokenised text, as nltk does before aligning."""
        words = tuple(token.lower() for token in tokens)
        return Prepared(words, tuple(self._stem(word) for word in words), frozenset(words))

    def _stem(self, word: str) -> str:
        stem = self._stems.get(word)
        if stem is None:
            stem = self._stems[word] = self._stemmer.stem(word)
        return stem

    def synonyms(self, stem: str) -> frozenset[str]:
        """Single-word lemma names of every WordNet synset of `stem`, plus `stem`."""
        found = self._synonyms.get(stem)
        if found is None:
            names = self._lemma_names.of(stem)
            found = frozenset(name for name in names if "_" not in name) | {stem}
            self._synonyms[stem] = found
        return found

    def warm_up(
        self, texts: Iterable[str], hypotheses: Iterable[str] = (), workers: int = 1, report: Report | None = None
    ) -> None:
        """Tokenise `texts` + `hypotheses` and fetch WordNet synonyms for the words of
        `hypotheses` ahead of scoring, in `workers` processes where that is safe.

        Only fills caches, so scores are the same with or without it. The unique
        strings and words are shared out, so no work is done twice. `report(phase,
        done, total)` hears how far each of the two phases has come.
        """
        hypotheses = list(hypotheses)
        todo = sorted(set(chain(texts, hypotheses)) - self._prepared.keys())
        done = phase_counter(report, "tokenising texts", len(todo))
        self._prepared.update(zip(todo, self.parallel_map(_prepare_all, todo, workers, done)))
        stems = {stem for text in hypotheses for stem in self._prepared[text].stems}
        todo = sorted(stems - self._synonyms.keys())
        done = phase_counter(report, "looking words up in WordNet", len(todo))
        self._synonyms.update(zip(todo, self.parallel_map(_synonyms_all, todo, workers, done)))

    def parallel_map(
        self,
        fn: Callable[[MeteorScorer, list], list],
        items: Sequence,
        workers: int,
        done: Callable[[int], object] | None = None,
    ) -> list:
        """`fn(scorer, chunk)` over chunks of `items`, concatenated in input order.

        Runs in `workers` forked processes that share this scorer and its caches
        (what they add is not sent back); in this process when workers <= 1 or
        forking is unsafe. `fn` must be a module-level function. `done(n)` is told
        each time n more items are through (then the chunks are smaller, so it hears
        often: a progress bar moves while a person waits).
        """
        items = list(items)
        forked = workers > 1 and len(items) >= 2 and can_fork()
        if done is None and not forked:
            return fn(self, items)
        pieces = (workers * 4 if forked else 1) * (16 if done is not None else 1)
        size = max(1, -(-len(items) // pieces))
        chunks = [items[i : i + size] for i in range(0, len(items), size)]
        if not forked:
            return list(chain.from_iterable(_counted(fn(self, chunk), done) for chunk in chunks))
        with _worker_pool(self, workers) as pool:
            # Results are put back in input order, so they never depend on scheduling.
            futures = [pool.submit(_with_worker_scorer, fn, chunk) for chunk in chunks]
            if done is not None:
                for future in as_completed(futures):
                    done(len(future.result()))
            return list(chain.from_iterable(future.result() for future in futures))

    def score(self, reference: str, hypothesis: str) -> float:
        """METEOR of `hypothesis` against `reference`, both raw strings."""
        return self.score_prepared(self.prepare(reference), self.prepare(hypothesis))

    def score_tokens(self, reference: Sequence[str], hypothesis: Sequence[str]) -> float:
        """METEOR of pre-tokenised text, like nltk's `single_meteor_score(ref, hyp)`."""
        return self.score_prepared(self.prepare_tokens(reference), self.prepare_tokens(hypothesis))

    def matrix(self, references: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Scores of every pair: shape (len(references), len(hypotheses)), [i, j] is
        `score(references[i], hypotheses[j])`."""
        refs = [self.prepare(text) for text in references]
        hyps = [self.prepare(text) for text in hypotheses]
        out = np.zeros((len(refs), len(hyps)), dtype=float)
        for i, ref in enumerate(refs):
            for j, hyp in enumerate(hyps):
                out[i, j] = self.score_prepared(ref, hyp)
        return out

    def score_prepared(self, ref: Prepared, hyp: Prepared) -> float:
        """METEOR from prepared strings, with nltk's arithmetic in nltk's order."""
        matches = self.align(ref, hyp)
        count = len(matches)
        try:
            precision = float(count) / len(hyp.words)
            recall = float(count) / len(ref.words)
            fmean = (precision * recall) / (self.alpha * precision + (1 - self.alpha) * recall)
            frag_frac = float(count_chunks(matches)) / count
        except ZeroDivisionError:  # nltk's convention: nothing matched scores 0
            return 0.0
        penalty = self.gamma * frag_frac**self.beta
        return (1 - penalty) * fmean

    def align(self, ref: Prepared, hyp: Prepared) -> list[tuple[int, int]]:
        """(hypothesis position, reference position) matches, sorted like nltk's."""
        matches: list[tuple[int, int]] = []
        hyp_left, ref_left = pair_equal(
            hyp.words,
            ref.words,
            range(len(hyp.words)),
            range(len(ref.words)),
            matches,
            common=hyp.vocabulary & ref.vocabulary,
        )
        hyp_left, ref_left = pair_equal(hyp.stems, ref.stems, hyp_left, ref_left, matches)
        self._pair_synonyms(hyp.stems, ref.stems, hyp_left, ref_left, matches)
        matches.sort()
        return matches

    def _pair_synonyms(
        self,
        hyp_stems: Sequence[str],
        ref_stems: Sequence[str],
        hyp_left: list[int],
        ref_left: list[int],
        matches: list[tuple[int, int]],
    ) -> None:
        if not (hyp_left and ref_left):
            return
        cache = self._synonyms
        # May keep stems already taken below: that costs a needless scan, never a match.
        remaining = {ref_stems[j] for j in ref_left}
        # Not an equivalence relation, so keep nltk's greedy scan order literally.
        for i in reversed(hyp_left):
            synonyms = cache.get(hyp_stems[i]) or self.synonyms(hyp_stems[i])
            if synonyms.isdisjoint(remaining):
                continue
            for k in range(len(ref_left) - 1, -1, -1):
                if ref_stems[ref_left[k]] in synonyms:
                    matches.append((i, ref_left.pop(k)))
                    break
            if not ref_left:
                return


class LemmaNames:
    """Lemma names of all WordNet synsets of a word, as nltk's METEOR reads them.

    Through nltk's public `wordnet.synsets` (which keeps each synset it builds, so
    words sharing synsets build them once); METEOR's own cache of synonyms per stem
    sits above this.
    """

    def __init__(self, wordnet):
        self._wordnet = wordnet

    def of(self, word: str) -> list[str]:
        """Every synset's lemma names, synsets in any order (callers take a set)."""
        return [name for synset in self._wordnet.synsets(word) for name in synset.lemma_names()]


Report = Callable[[str, int, "int | None"], object]
"""report(phase, done, total): how far a slow step has come (a progress bar listens)."""


def phase_counter(report: Report | None, phase: str, total: int) -> Callable[[int], object] | None:
    """A done(n) for parallel_map that tells `report` the phase's running count."""
    if report is None:
        return None
    count = [0]
    report(phase, 0, total)

    def done(n: int) -> None:
        count[0] += n
        report(phase, count[0], total)

    return done


def _counted(results: list, done: Callable[[int], object] | None) -> list:
    if done is not None:
        done(len(results))
    return results


# -- forked workers ------------------------------------------------------------------

_worker_scorer: MeteorScorer | None = None


def can_fork() -> bool:
    """Whether forked workers are safe here: Linux, no other threads, and an nltk
    whose WordNet reader lets a worker reopen its files (see _adopt)."""
    from nltk.corpus import wordnet

    return (
        sys.platform == "linux"
        and threading.active_count() == 1  # forking beside threads can deadlock
        and isinstance(getattr(wordnet, "_data_file_map", None), dict)
    )


def _adopt(scorer: MeteorScorer) -> None:
    """Worker initializer: use the parent's scorer and reopen WordNet's data files.

    nltk reads synsets by seek + readline on open files. Forked processes share
    the parent's file offsets, so concurrent lookups would read each other's lines.
    """
    global _worker_scorer
    from nltk.corpus import wordnet

    wordnet._data_file_map = {}
    _worker_scorer = scorer


@contextmanager
def _worker_pool(scorer: MeteorScorer, workers: int) -> Iterator[ProcessPoolExecutor]:
    # Frozen objects are skipped by the children's garbage collector, which would
    # otherwise touch, and so copy, every page of the loaded WordNet in each child.
    gc.freeze()
    try:
        with ProcessPoolExecutor(
            workers, mp_context=get_context("fork"), initializer=_adopt, initargs=(scorer,)
        ) as pool:
            yield pool
    finally:
        gc.unfreeze()


def _with_worker_scorer(fn: Callable[[MeteorScorer, list], list], chunk: list) -> list:
    return fn(_worker_scorer, chunk)


def _prepare_all(scorer: MeteorScorer, texts: list[str]) -> list[Prepared]:
    return [scorer.prepare(text) for text in texts]


def _synonyms_all(scorer: MeteorScorer, stems: list[str]) -> list[frozenset[str]]:
    return [scorer.synonyms(stem) for stem in stems]


# -- alignment helpers --------------------------------------------------------------


def pair_equal(
    hyp_keys: Sequence[str],
    ref_keys: Sequence[str],
    hyp_positions: Sequence[int],
    ref_positions: Sequence[int],
    matches: list[tuple[int, int]],
    common: set[str] | frozenset[str] | None = None,
) -> tuple[list[int], list[int]]:
    """One exact-equality stage of nltk's alignment over the still unmatched positions.

    nltk walks the hypothesis backwards and gives each word the last unmatched equal
    reference word; per key that pairs the k-th last positions on both sides.
    Appends to `matches`; returns the unmatched positions, ascending. `common`: the
    keys on both sides, when the caller knows them already.
    """
    if common is None:
        common = {hyp_keys[i] for i in hyp_positions}
        common.intersection_update(ref_keys[j] for j in ref_positions)
    if not common:
        return list(hyp_positions), list(ref_positions)
    free: dict[str, list[int]] = {}
    for j in ref_positions:
        if ref_keys[j] in common:
            free.setdefault(ref_keys[j], []).append(j)
    hyp_left: list[int] = []
    taken: set[int] = set()
    for i in reversed(hyp_positions):
        candidates = free.get(hyp_keys[i])
        if candidates:
            taken.add(candidates[-1])
            matches.append((i, candidates.pop()))
        else:
            hyp_left.append(i)
    hyp_left.reverse()
    return hyp_left, [j for j in ref_positions if j not in taken]


def count_chunks(matches: Sequence[tuple[int, int]]) -> int:
    """Fewest runs of matches adjacent in both hypothesis and reference (nltk's rule)."""
    chunks = 1
    for (h0, r0), (h1, r1) in zip(matches, matches[1:]):
        if not (h1 == h0 + 1 and r1 == r0 + 1):
            chunks += 1
    return chunks
