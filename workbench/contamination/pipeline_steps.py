"""Executing a planned contamination pipeline: three engine runs, then scores and flags."""

from __future__ import annotations

from pathlib import Path

from store import Store
from store.contamination import ScoreRow
from workbench.backends import parse_model_spec
from workbench.contamination.flagging import current_tau, pick_group, write_flags
from workbench.contamination.pipeline_evidence import generated_side, oracle_side, qa_evidence
from workbench.contamination.pipeline_plan import PipelineOutcome, PipelinePlan
from workbench.contamination.pipeline_tasks import ArticleTask, ExtractTask
from workbench.contamination.similarity import ClaimScore, PairScorer, score_claim
from workbench.runs.setup import prepare_task_run
from workbench.runs.types import RunFinished, RunSetupError, TaskRunRequest

ORACLE_STEP, ARTICLE_STEP, GENERATED_STEP = "oracle evidence", "articles", "generated evidence"


class StepStopped(Exception):
    """A step ended cancelled or failed; later steps must not run."""

    def __init__(self, status: str, message: str | None):
        super().__init__(message or status)
        self.status, self.message = status, message


class PipelineSteps:
    """One execution of a plan on one store connection (each run opens its own)."""

    def __init__(self, db_path: Path, store: Store, plan: PipelinePlan, on_step, on_event, cancel):
        self.db_path, self.store, self.plan = db_path, store, plan
        self.on_step, self.on_event, self.cancel = on_step, on_event, cancel
        self.request = plan.request
        self.runs: dict[str, str] = {}

    def run(self) -> PipelineOutcome:
        try:
            oracle_run = self._oracle_step() if self.plan.article_claims else None
            article_run = self._article_step(oracle_run)
            generated_run = self._generated_step(article_run)
        except StepStopped as stop:
            return PipelineOutcome(stop.status, stop.message, dict(self.runs))
        except RunSetupError as error:
            return PipelineOutcome("failed", str(error), dict(self.runs))
        rows = self._score(oracle_run, article_run, generated_run)
        tau = self._flag()
        return PipelineOutcome("finished", None, dict(self.runs), tau, len(rows), sum(r.scorable for r in rows))

    # -- the model steps ---------------------------------------------------------------

    def _oracle_step(self) -> int:
        task = ExtractTask(self.plan.extract_template, None, max_evidence=self.request.max_evidence)
        return self._execute(
            ORACLE_STEP,
            task,
            self.request.extractor,
            self.plan.article_claims,
            f"{self._short(self.request.extractor, self.request.extractor_base_url)}-extract-oracle-{self.plan.label}",
            self.request.extractor_base_url,
            self.request.extractor_params,
        )

    def _article_step(self, oracle_run: int | None) -> int | None:
        """Articles only for claims whose oracle evidence is known: the others cannot be scored."""
        scorable = set(self.plan.qa_claims)
        if oracle_run is not None:
            scorable |= {
                p.claim_id
                for p in self.store.runs.predictions(oracle_run, "p.status = 'ok'")
                if isinstance(p.parsed, dict) and p.parsed.get("evidence")
            }
        claims = [c for c in self.plan.claim_ids if c in scorable]
        if not claims:
            return None
        shown = "article-image" if self.plan.image else "article"
        return self._execute(
            ARTICLE_STEP,
            ArticleTask(self.plan.article_template, self.plan.image),
            self.request.model,
            claims,
            f"{self._short(self.request.model, self.request.base_url)}-{shown}-{self.plan.label}",
            self.request.base_url,
            self.request.params,
        )

    def _generated_step(self, article_run_id: int | None) -> int | None:
        if article_run_id is None:
            return None
        article_run = self.store.runs.get(article_run_id)
        written = [p.claim_id for p in self.store.runs.predictions(article_run_id, "p.status = 'ok'")]
        if not written:
            return None
        task = ExtractTask(
            self.plan.extract_template, article_run_id, article_run.name, max_evidence=self.request.max_evidence
        )
        return self._execute(
            GENERATED_STEP,
            task,
            self.request.extractor,
            written,
            f"{self._short(self.request.extractor, self.request.extractor_base_url)}-extract-{article_run.name}",
            self.request.extractor_base_url,
            self.request.extractor_params,
        )

    def _execute(self, step: str, task, model: str, claim_ids: list[int], name: str, base_url, params) -> int:
        from workbench.runs.engine import run_blocking

        if self.cancel.is_set():
            raise StepStopped("cancelled", None)
        prepared = prepare_task_run(
            self.store,
            TaskRunRequest(
                task=task,
                model=model,
                claim_ids=claim_ids,
                name=name,
                base_url=base_url,
                params=dict(params),
                concurrency=self.request.concurrency,
                use_cache=self.request.use_cache,
                dataset_id=self.plan.dataset_id,
                subset_filter=self.request.filter or None,
            ),
        )
        self.runs[step] = prepared.run.name
        self.on_step(step, prepared)
        if prepared.pending_claim_ids:
            finished: list[RunFinished] = []
            run_blocking(self.db_path, prepared, lambda event: self._relay(event, finished), self.cancel)
            status = finished[-1].status if finished else "cancelled"
            if status != "finished":
                raise StepStopped(status, finished[-1].message if finished else None)
        return prepared.run.id

    def _relay(self, event, finished: list) -> None:
        if isinstance(event, RunFinished):
            finished.append(event)
        self.on_event(event)

    @staticmethod
    def _short(model: str, base_url: str | None) -> str:
        return parse_model_spec(model, base_url).short_name

    # -- scores and flags ------------------------------------------------------------------

    def _score(self, oracle_run: int | None, article_run: int | None, generated_run: int | None) -> list[ScoreRow]:
        scorer = PairScorer(self.plan.metric)
        # Sets: membership is asked once per claim, and a benchmark can have many thousands.
        missing, qa_claims = set(self.plan.missing), set(self.plan.qa_claims)
        sides = [
            self._sides(claim_id, oracle_run, article_run, generated_run, missing, qa_claims)
            for claim_id in self.plan.claim_ids
        ]
        scorer.warm([s for _, oracle, generated in sides for s in (oracle or []) + (generated or [])])
        written = set(self.store.runs.claim_ids(article_run)) if article_run is not None else set()
        with_article = set(self.plan.article_claims)
        rows = []
        for claim_id, oracle, generated in sides:
            in_articles = claim_id in written
            result = (
                score_claim(oracle, generated, scorer)
                if oracle and generated is not None
                else ClaimScore(None, False, len(oracle or []), len(generated or []))
            )
            rows.append(
                ScoreRow(
                    claim_id,
                    self.plan.target,
                    self.plan.extractor,
                    self.plan.stored_metric,
                    result.score,
                    result.scorable,
                    result.n_oracle,
                    result.n_generated,
                    [list(p) for p in result.pairs],
                    article_run if in_articles else None,
                    oracle_run if claim_id in with_article else None,
                    generated_run if in_articles else None,
                )
            )
        self.store.contamination.save_scores(rows)
        return rows

    def _sides(self, claim_id: int, oracle_run, article_run, generated_run, missing: set[int], qa_claims: set[int]):
        """(claim id, oracle sentences or None, generated sentences or None)."""
        if claim_id in missing:
            return claim_id, None, None
        claim = self.store.claims.get(claim_id)
        if claim_id in qa_claims:
            oracle = qa_evidence(claim)
        else:
            oracle = oracle_side(self.store, claim, oracle_run).sentences
        generated = generated_side(self.store, claim_id, article_run, generated_run).sentences
        return claim_id, oracle, generated

    def _flag(self) -> float:
        plan = self.plan
        tau = (
            plan.request.tau
            if plan.request.tau is not None
            else current_tau(self.store, plan.target, plan.stored_metric)
        )
        group = pick_group(self.store, plan.target, plan.stored_metric, plan.extractor)
        write_flags(self.store, group, tau)
        return tau
