"""What the target model was shown when it wrote its articles: the claim alone (the text-only
probe, the paper's protocol) or the claim with its images (`--setting claim+image`).

Scores and flags keep the two probes apart by the stored metric's name: `meteor` scores
articles written from the claim's text, `meteor+image` the same metric over articles
written with the claim's images shown. Every place that keys scores and flags by model and
metric (summary, show, sweep, combine, the TUI's contamination view) thereby keeps them
apart, and `contaminated@MODEL` still means "found for MODEL" by either probe.
"""

from __future__ import annotations

from workbench.prompting import IMAGE_SUFFIX

ARTICLE_SETTINGS = ("claim", "claim" + IMAGE_SUFFIX)
"""The settings an article can be written in (it is written from memory: no evidence)."""
TEXT_ONLY, WITH_IMAGE = "text only", "with image"


def parse_article_setting(text: str | None) -> bool | None:
    """True for claim+image, False for claim; None when `text` is neither."""
    typed = (text or "claim").strip().lower()
    return {"claim": False, "claim" + IMAGE_SUFFIX: True}.get(typed)


def probe_metric(metric: str, image: bool) -> str:
    """The stored metric name of a probe: `meteor` (text only) or `meteor+image`."""
    base, _ = split_probe(metric)
    return base + IMAGE_SUFFIX if image else base


def split_probe(stored: str) -> tuple[str, bool]:
    """(metric, shown the images?) of a stored metric name."""
    if stored.endswith(IMAGE_SUFFIX):
        return stored.removesuffix(IMAGE_SUFFIX), True
    return stored, False


def probe_label(stored_metric: str) -> str:
    """ "with image" or "text only", for a stored metric name."""
    return WITH_IMAGE if split_probe(stored_metric)[1] else TEXT_ONLY
