"""Image evidence in a search run's trajectory: image search, looking at a retrieved image,
and search by the claim's own image (mixed into the agent's per-claim turn).

Image results pass the same leakage guards as pages (the page an image is on, the
picture's own address, the date); each is stored with its reason when dropped. A vision
model that asks to look at an image is shown it: fetched once (image_fetch.py), stored by
sha256 like a claim's image, and sent as an image part in the next user turn. A text-only
model gets each image's title and where it is, and no tool to look.
"""

from __future__ import annotations

from store import Step, StoredResult
from workbench.backends.images import ImageData
from workbench.search.backends import SearchError, cached_search
from workbench.search.guards import DROPPED_FACT_CHECKER
from workbench.search.image_fetch import FetchRefused
from workbench.search.protocol import Action, Wording, image_lines

VIEW_LIMIT = "You have looked at {max_images} images, the most allowed."


def image_instructions(wording: Wording, native: bool, config, by_image: bool) -> str:
    """What the model is told about its image tools (prompts/search_agent.toml)."""
    style = "native" if native else "text"
    parts = [wording.images[f"images_{style}"]]
    if config.vision:
        parts.append(wording.images[f"view_{style}"].format(max_images=config.max_images))
    else:
        parts.append(wording.images["blind"])
    if by_image:
        parts.append(wording.images[f"by_image_{style}"])
    return "\n".join(parts)


class ImageSteps:
    """The image tools of one claim's turn (the agent's _Turn provides the state)."""

    async def _image_action(self, action: Action, step: Step) -> str:
        if action.tool == "search_images":
            return await self._search_images(action.query, step)
        if action.tool == "view_image":
            return await self._view_image(action.result, step)
        return await self._search_by_image(action.result, step)

    async def _search_images(self, query: str, step: Step) -> str:
        refused = self._counted(query, step)
        if refused is not None:
            return refused
        try:
            results = await cached_search(self.engine.store, self.backend, query, self.config.results, "images")
        except SearchError as error:
            step.note = f"search failed: {error}"
            return f"The image search failed: {error}."
        shown = self._keep_images(results, step)
        words = self.agent.wording.images
        if not shown:
            return words["no_images"].format(query=query)
        return words["image_results"].format(query=query, results=image_lines(shown, self.config.vision))

    async def _search_by_image(self, number: int, step: Step) -> str:
        images = self.claim.images
        step.kind = "search"
        if not 1 <= number <= len(images):
            step.kind, step.note = "invalid", f"no claim image {number}"
            return f"The claim has no image {number}; its images are numbered 1 to {len(images)}."
        image = images[number - 1]
        if not image.url:
            step.note = f"the claim's image {number} has no public address"
            return (
                f"The claim's image {number} came from a file, not from the web, so it cannot be searched by"
                " image (the search engine needs a public address)."
            )
        refused = self._counted(f"by image: {image.url}", step)
        step.query = None  # not a typed query (the reformulation analysis reads typed ones)
        step.note = step.note or f"the claim's image {number}: {image.url}"
        if refused is not None:
            return refused
        try:
            results = await cached_search(self.engine.store, self.backend, image.url, self.config.results, "by image")
        except SearchError as error:
            step.note = f"search failed: {error}"
            return f"The search by image failed: {error}."
        shown = self._keep_images(results, step)
        if not shown:
            return f"No pages were found showing the claim's image {number}."
        return self.agent.wording.images["by_image_results"].format(
            number=number, results=image_lines(shown, self.config.vision)
        )

    def _keep_images(self, results, step: Step) -> list[tuple[int, object]]:
        """Guard each image result; number the ones shown (after those shown before)."""
        shown = []
        for rank, result in enumerate(results):
            dropped = self.guards.reason_to_drop(result)
            step.results.append(
                StoredResult(
                    rank,
                    result.url,
                    result.title,
                    result.snippet,
                    result.published,
                    dropped,
                    result.image_url,
                    result.source,
                )
            )
            if dropped is None:
                self.found.append(result)
                shown.append((len(self.found), result))
                self.leaked = self.leaked or self.agent.leaks.leaked(self.claim, result, None)
        return shown

    async def _view_image(self, number: int, step: Step) -> str:
        step.kind = "read"
        if not 1 <= number <= len(self.found):
            step.kind, step.note = "invalid", f"no image {number}"
            if not self.found:
                return f"There is no image {number}: no image results have been shown yet."
            return f"There is no image {number}; the images are numbered 1 to {len(self.found)}."
        result = self.found[number - 1]
        stored = StoredResult(
            0, result.url, result.title, None, result.published, None, result.image_url, result.source
        )
        step.results.append(stored)
        if self.looked >= self.config.max_images:
            step.note = "image limit reached"
            return VIEW_LIMIT.format(max_images=self.config.max_images)
        outcome = (
            await self.agent.fetcher.fetch(result.image_url)
            if result.image_url
            else FetchRefused("", "the result names no picture")
        )
        if isinstance(outcome, FetchRefused):
            step.note = f"not shown: {outcome.reason}"
            return f"Image {number} cannot be shown: {outcome.reason}."
        if outcome.final_url != outcome.url and self.guards.on_fact_checker(outcome.final_url):
            stored.dropped = f"{DROPPED_FACT_CHECKER} (where its address led)"
            return f"Image {number} cannot be shown: its address leads to a fact-checking site."
        self.looked += 1
        stored.sha256 = outcome.sha256
        self.pictures[outcome.sha256] = ImageData(outcome.mime, outcome.data)
        self.showing.append({"type": "image", "sha256": outcome.sha256, "mime": outcome.mime})
        kind = outcome.mime.removeprefix("image/").upper()
        where = "in the next message" if self.tools is not None else "below"
        return (
            f"Image {number} ({' '.join((result.title or 'no title').split())[:120]}, on {result.url or 'no page'})"
            f" is shown {where}: {kind} {outcome.width}×{outcome.height}."
        )

    def _shown_parts(self, reply: str | None) -> list[dict]:
        """A user turn's content: the reply (or a caption), then the pictures asked for."""
        parts = [{"type": "text", "text": reply or "The images you asked to look at:"}, *self.showing]
        self.showing = []
        return parts
