"""Terminal charts (plotext) of contamination scores: the distribution of s with the
threshold marked, and a threshold sweep. The same drawing serves the CLI (plotext's
text output) and the TUI (textual-plotext's PlotextPlot hands in its `plt`)."""

from __future__ import annotations

from typing import Any

BINS = 20
TICKS = [0, 0.25, 0.5, 0.75, 1]


def histogram_counts(scores: list[float], bins: int = BINS) -> list[int]:
    """How many scores fall in each of `bins` equal bins over [0, 1] (1.0 in the last)."""
    counts = [0] * bins
    for score in scores:
        counts[min(int(score * bins), bins - 1)] += 1
    return counts


def count_ticks(top: int) -> list[int]:
    """Whole-number y ticks from 0 to `top` (claim counts are never fractional)."""
    top = max(int(top), 1)
    step = -(-top // 4)  # at most five ticks
    return sorted(set(range(0, top + 1, step)) | {top})


def draw_histogram(plt: Any, scores: list[float], tau: float, title: str = "", compact: bool = False) -> None:
    """Bars of the score distribution over [0, 1] and a vertical line at tau.

    The y axis is pinned to whole claim counts: plotext's automatic ticks label a short
    chart with fractions that do not match the bars. `compact` drops the x label (the
    title names the axis) so a short chart keeps one more row for the bars.
    """
    plt.clear_figure()
    counts = histogram_counts(scores)
    centres = [(i + 0.5) / BINS for i in range(BINS)]
    plt.bar(centres, counts)
    plt.vline(tau, "red")
    plt.xlim(0, 1)
    plt.xticks(TICKS)
    ticks = count_ticks(max(counts, default=0))
    plt.ylim(0, ticks[-1])
    plt.yticks(ticks)
    plt.title(title or f"claim scores s (tau {tau:.2f})")
    if not compact:
        plt.xlabel("s")


def draw_sweep(plt: Any, taus: list[float], agreement: list[float], best_tau: float, compact: bool = False) -> None:
    """Agreement with people's labels against tau, the best tau marked."""
    plt.clear_figure()
    plt.plot(taus, agreement, marker="braille")
    plt.vline(best_tau, "red")
    plt.xlim(0, 1)
    plt.xticks(TICKS)
    plt.ylim(0, 1)
    plt.yticks([0, 0.5, 1])  # fixed ticks: automatic ones mislabel a short chart's rows
    plt.title(f"agreement with manual labels against tau (best tau {best_tau:.2f})")
    if not compact:
        plt.xlabel("tau")


def as_text(draw, *args, width: int = 70, height: int = 15) -> str:
    """A chart as plain text for the command line (no colours, no escape codes)."""
    import plotext

    draw(plotext, *args)
    plotext.plotsize(width, height)
    text = plotext.uncolorize(plotext.build())
    plotext.clear_figure()
    return text
