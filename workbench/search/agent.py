"""A search run's claim: the model searches and reads for up to `max_steps` turns, then
answers as the verdict template asks; every turn goes through the engine (response
cache, retries, concurrency) and is stored as a trajectory step the moment it is done.

Native tool calling where the backend has it; a text protocol (SEARCH: / READ: lines)
for local models, which opens with a search for the claim itself (small models rarely
start one on their own). With image search (image_steps.py) the model may also search
images, look at one (a vision model is shown the picture) and search by the claim's
image. A claim answered again after a kill replays its turns from the response, search
and image caches: the steps already stored stay as they are.
"""

from __future__ import annotations

from store import Claim, Prediction, Step, StoredResult
from workbench.articles.oracle import oracle_article
from workbench.backends import BackendError, CompletionRequest
from workbench.parsing import parse_answer
from workbench.prompting import PromptError, render
from workbench.search.backends import SearchBackend, SearchError, SearchResult, cached_search
from workbench.search.config import SearchConfig
from workbench.search.guards import LEAK, Guards, LeakCheck
from workbench.search.image_steps import ImageSteps, image_instructions
from workbench.search.protocol import READ_CHARS, Action, Wording, native_action, results_text, text_action, tools_for
from workbench.search.shown_images import image_bytes
from workbench.words import counted


class SearchAgent:
    """Answers a search run's claims for one engine (its store, cache and model)."""

    def __init__(self, engine, config: SearchConfig, backend: SearchBackend, wording: Wording, fetcher=None):
        self.engine, self.config, self.backend, self.wording = engine, config, backend, wording
        self.leaks = LeakCheck(config.leak_threshold)
        self.fetcher = fetcher
        """The ImageFetcher of a vision model's image search (None otherwise)."""

    async def answer(self, claim: Claim, before: int) -> None:
        prepared = self.engine.prepared
        try:
            rendered = render(claim, prepared.template, prepared.setting, prepared.json_answer)
            pictures = image_bytes(self.engine.store, rendered.messages)  # the claim's own, with +image
        except PromptError as error:
            self.engine._finish_with_error(claim.id, str(error), before)
            return
        turn = _Turn(self, claim, rendered.messages, before, rendered.json_schema, pictures)
        await turn.go()

    async def aclose(self) -> None:
        await self.backend.aclose()
        if self.fetcher is not None:
            await self.fetcher.aclose()


class _Turn(ImageSteps):
    """One claim's trajectory as it happens."""

    def __init__(
        self,
        agent: SearchAgent,
        claim: Claim,
        messages: list[dict],
        attempts: int,
        schema=None,
        pictures: dict | None = None,
    ):
        self.agent, self.claim, self.attempts = agent, claim, attempts
        self.engine, self.config = agent.engine, agent.config
        self.backend = agent.backend.for_claim(claim)
        native = self.config.tools == "native"
        self.image_search = self.config.image_search and getattr(self.backend, "images", False)
        self.by_image = self.image_search and getattr(self.backend, "lens", False) and bool(claim.images)
        tools = tools_for(self.image_search, self.config.vision, self.by_image)
        self.known = tuple(tool["name"] for tool in tools)
        instructions = (agent.wording.native if native else agent.wording.text).format(
            max_searches=self.config.max_searches
        )
        if self.image_search:
            instructions += "\n\n" + image_instructions(agent.wording, native, self.config, self.by_image)
        self.messages = [*messages[:-1], {**messages[-1], "content": _with(messages[-1]["content"], instructions)}]
        self.tools = tools if native else None
        self.guards = Guards(claim, self.config.blocked_domains)
        self.pictures = dict(pictures or {})
        """sha256 -> ImageData of every image the messages show (the claim's, then retrieved ones)."""
        self.found: list[SearchResult] = []
        """Image results shown to the model, numbered from 1."""
        self.looked = 0
        self.showing: list[dict] = []
        """Image parts the current turn's actions put before the model (sent with their replies)."""
        self.article = oracle_article(self.engine.store, claim)
        """The claim's own fact-check (its text, else the one fetched), which results must not be."""
        self.backend = agent.backend.for_claim(claim)
        self.shown: list[SearchResult] = []
        self.searches, self.step, self.leaked = 0, 0, False
        self.tokens_in = self.tokens_out = 0
        self.model_s = 0.0
        """Time in model calls over every turn (a claim's time, as runs and reports show it)."""
        self.queries: list[str] = []
        self.schema = schema
        self.forced = False
        """The model was asked to answer now (its answer could not be read, or its tokens are
        spent): that turn comes even past the step limit, without tools."""

    async def go(self) -> None:
        if self.tools is None:  # the text protocol opens with a search for the claim
            opening = Action("search", query=self.claim.text, arguments=self.claim.text)
            reply = await self._act(opening, None)
            self.messages.append({"role": "user", "content": reply})
        turns = 0
        while turns < self.config.max_steps or self.forced:  # an answer asked for gets its turn
            turns += 1
            params = self.engine.prepared.params
            request = CompletionRequest(
                self.messages,
                int(params["max_tokens"]),
                float(params.get("temperature") or 0.0),
                params.get("seed"),
                self.schema if self.forced else None,
                images=self.pictures,
                tools=self.tools,
                answer_only=self.forced,
            )
            answer = await self.engine._complete(request)
            if answer.stopped:  # the budget: the claim stays pending, its steps so far kept
                return
            self.attempts += answer.calls
            if answer.completion is None:
                self.engine._finish_with_error(
                    self.claim.id, answer.error.message, self.attempts, fatal=answer.error.fatal
                )
                return
            if answer.cache_entry is not None:  # each turn cached on arrival: a resume replays it
                self.engine.store.runs.cache_response(*answer.cache_entry)
            completion = answer.completion
            self.tokens_in += completion.tokens_in or 0
            self.tokens_out += completion.tokens_out or 0
            self.model_s += completion.latency_s
            if self.forced or not await self._tools(completion):
                if self._readable(completion) or self.forced:
                    self._answered(completion, answer.cached)
                    return
                self._ask_for_the_answer(completion)
            elif self._over_budget():
                self._budget_spent()
        self._out_of_steps()

    def _over_budget(self) -> bool:
        budget = self.config.claim_tokens
        return budget is not None and self.tokens_in + self.tokens_out >= budget

    def _budget_spent(self) -> None:
        """The claim's tokens are spent: one last turn, without tools, for the answer."""
        self.step += 1
        self.engine.store.search.record_step(
            self.engine.run_id,
            self.claim.id,
            Step(
                self.step,
                "limit",
                note=f"{self.tokens_in + self.tokens_out:,} tokens used (limit"
                f" {self.config.claim_tokens:,}); asked for the answer",
            ),
        )
        self.messages.append(
            {"role": "user", "content": "No more searching: give your answer now, in the form asked for above."}
        )
        self.forced = True

    def _readable(self, completion) -> bool:
        prepared = self.engine.prepared
        return (
            parse_answer(
                completion.text,
                prepared.label_space,
                tuple(prepared.template.output_fields[:1]),
                prepared.allowed_verdicts,
            ).status
            != "parse_failure"
        )

    def _ask_for_the_answer(self, completion) -> None:
        """An answer that cannot be read: once, the model is asked for it in the form asked
        (with the answer's schema, no tools; a local model is held to it by its grammar)."""
        self.step += 1
        self.engine.store.search.record_step(
            self.engine.run_id,
            self.claim.id,
            Step(self.step, "invalid", completion.text, note="an answer that could not be read; asked again"),
        )
        self.messages.append({"role": "assistant", "content": completion.text})
        self.messages.append({"role": "user", "content": "Give your answer now, in the form asked for above."})
        self.forced = True

    async def _tools(self, completion) -> bool:
        """Carry out the tool use the answer asks for; False when it is the final answer."""
        if self.tools is not None:
            if not completion.tool_calls:
                return False
            self.messages.append(
                {
                    "role": "assistant",
                    "content": completion.text,
                    "tool_calls": [
                        {"id": c.id, "name": c.name, "arguments": c.arguments} for c in completion.tool_calls
                    ],
                }
            )
            for call in completion.tool_calls:
                reply = await self._act(
                    native_action(call.name, call.arguments, self.known), completion.text, call.name
                )
                self.messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name, "content": reply})
            if self.showing:  # pictures cannot go in a tool result everywhere: a user turn after them
                self.messages.append({"role": "user", "content": self._shown_parts(None)})
            return True
        action = text_action(completion.text, self.known)
        if action is None:
            return False
        self.messages.append({"role": "assistant", "content": completion.text})
        reply = await self._act(action, completion.text)
        self.messages.append({"role": "user", "content": self._shown_parts(reply) if self.showing else reply})
        return True

    async def _act(self, action: Action, said: str | None, tool: str | None = None) -> str:
        """Do one action, store it as a step, and say to the model what came of it."""
        self.step += 1
        step = Step(self.step, "invalid", said, tool or action.tool, action.arguments, action.query)
        if action.problem:
            step.note = action.problem
            reply = f"That could not be done: {action.problem}."
        elif action.tool == "search":
            reply = await self._search(action.query, step)
        elif action.tool == "read":
            reply = await self._read(action.result, step)
        else:
            reply = await self._image_action(action, step)
        self.engine.store.search.record_step(self.engine.run_id, self.claim.id, step)
        return reply

    def _counted(self, query: str, step: Step) -> str | None:
        """Count one search (web or image); the reply to give instead when the limit is reached."""
        step.kind = "search"
        if self.searches >= self.config.max_searches:
            step.note = "search limit reached"
            return self.agent.wording.limit.format(max_searches=self.config.max_searches)
        self.searches += 1
        if query in self.queries:
            step.note = f"repeats search {self.queries.index(query) + 1}"
        self.queries.append(query)
        return None

    async def _search(self, query: str, step: Step) -> str:
        refused = self._counted(query, step)
        if refused is not None:
            return refused
        try:
            results = await cached_search(self.engine.store, self.backend, query, self.config.results)
        except SearchError as error:
            step.note = f"search failed: {error}"
            return f"The search failed: {error}."
        numbered = []
        for rank, result in enumerate(results):
            dropped = self.guards.reason_to_drop(result)
            step.results.append(StoredResult(rank, result.url, result.title, result.snippet, result.published, dropped))
            if dropped is None:
                self.shown.append(result)
                numbered.append((len(self.shown), result))
                if not self.leaked:  # the page's text where the backend has it (never fetched from the web)
                    self.leaked = self.agent.leaks.leaked(
                        self.claim, result, await self.backend.read(result), self.article
                    )
        return results_text(self.agent.wording, query, numbered)

    async def _read(self, number: int, step: Step) -> str:
        step.kind = "read"
        if not 1 <= number <= len(self.shown):
            step.kind, step.note = "invalid", f"no result {number}"
            return f"There is no result {number}; the results are numbered 1 to {len(self.shown)}."
        result = self.shown[number - 1]
        text = await self.backend.read(result)
        step.results.append(StoredResult(0, result.url, result.title, (text or "")[:400] or None, result.published))
        if not text:
            step.note = "no text beyond the snippet"
            return f"Only the snippet of result {number} is available: {result.snippet or '(none)'}"
        self.leaked = self.leaked or self.agent.leaks.leaked(self.claim, result, text, self.article)
        return f"Result {number}, {result.title or result.url}:\n{text[:READ_CHARS]}"

    def _answered(self, completion, cached: bool) -> None:
        prepared = self.engine.prepared
        self.step += 1
        self.engine.store.search.record_step(
            self.engine.run_id, self.claim.id, Step(self.step, "answer", completion.text)
        )
        parsed = parse_answer(
            completion.text, prepared.label_space, tuple(prepared.template.output_fields[:1]), prepared.allowed_verdicts
        )
        self._flag_leak()
        self.engine._finish(
            Prediction(
                run_id=self.engine.run_id,
                claim_id=self.claim.id,
                status=parsed.status,
                verdict=parsed.verdict,
                raw_verdict=parsed.raw_verdict,
                explanation=parsed.explanation,
                raw_output=completion.text,
                parsed=self._summary(parsed.parsed),
                attempts=self.attempts,
                latency_s=self.model_s,
                tokens_in=self.tokens_in,
                tokens_out=self.tokens_out,
                finish_reason=completion.finish_reason,
                cached=cached,
            )
        )

    def _out_of_steps(self) -> None:
        self.step += 1
        note = f"no answer within {counted(self.config.max_steps, 'step')}"
        self.engine.store.search.record_step(self.engine.run_id, self.claim.id, Step(self.step, "limit", note=note))
        self._flag_leak()
        self.engine._finish(
            Prediction(
                run_id=self.engine.run_id,
                claim_id=self.claim.id,
                status="parse_failure",
                explanation=note,
                parsed=self._summary(None),
                attempts=self.attempts,
                latency_s=self.model_s,
                tokens_in=self.tokens_in,
                tokens_out=self.tokens_out,
            )
        )

    def _summary(self, parsed) -> dict:
        found = {"searches": self.searches, "steps": self.step, "leak": self.leaked}
        if self.image_search:
            found["images_viewed"] = self.looked
        return {**parsed, "search": found} if isinstance(parsed, dict) else {"search": found}

    def _flag_leak(self) -> None:
        if self.leaked:
            run = self.engine.prepared.run
            self.engine.store.annotations.flag(
                [self.claim.id],
                LEAK,
                note=f"search run {run.name} was shown the claim's own fact-check",
                source="pipeline",
                model=run.model,
            )


def open_agent(engine, config: SearchConfig, settings) -> SearchAgent:
    """The agent for a run's engine: its search backend opened, the wording read (and, for
    a vision model's image search, the image fetcher)."""
    from workbench.search.image_fetch import ImageFetcher
    from workbench.search.opening import open_any
    from workbench.search.protocol import load_wording

    try:
        backend = open_any(config.backend, config.url, engine.store, settings)
    except SearchError as error:
        raise BackendError(str(error), fatal=True) from None
    fetcher = ImageFetcher(engine.store, config.fetch_private) if config.image_search and config.vision else None
    return SearchAgent(engine, config, backend, load_wording(settings.prompts_dir), fetcher)


def _with(content, instructions: str):
    """The verdict prompt's last message with the tool instructions added."""
    if isinstance(content, list):  # a message with images: the instructions go in as text
        return [*content, {"type": "text", "text": instructions}]
    return f"{content}\n\n{instructions}"


__all__ = ["SearchAgent", "open_agent"]
