"""plain.py against Rich itself: every block shape the reading commands print, drawn by
both at many widths with awkward text (long words, newlines, runs of spaces, wide CJK
characters, empty cells), byte for byte the same."""

from __future__ import annotations

import io
import sys

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rich.console import Console

from workbench.cli.data_commands import datasets_table as datasets_columns
from workbench.render import blocks, plain
from workbench.render.blocks import Styled, literal
from workbench.render.console import WITH_RICH, ReadingConsole, plain_output, plain_width
from workbench.render.rich_blocks import to_rich

WORDS = ["a", "claim", "the", "lighthouse", "漢字", "漢字の灯台", "…", "x" * 35, "supercalifragilistic" * 3,
         "Refuted", "1,234", "-", "naïve", "https://example.org/a/very/long/path?query=1&b=2", ""]
SEPARATORS = [" ", " ", " ", "  ", "\n", "   ", "\n\n", " \n"]


@st.composite
def texts(draw, max_words: int = 12) -> str:
    words = draw(st.lists(st.sampled_from(WORDS), max_size=max_words))
    seps = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(words), max_size=len(words)))
    text = "".join(word + sep for word, sep in zip(words, seps))
    return text if draw(st.booleans()) else text.strip()


one_line_texts = texts().map(lambda text: " ".join(text.split()))
widths = st.integers(min_value=10, max_value=200)


def rich_console(width: int) -> Console:
    """Rich printing to a file, as to a pipe: no styles."""
    return Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False, highlight=False)


def with_rich(block, width: int) -> str:
    console = rich_console(width)
    console.print(to_rich(block))
    return console.file.getvalue()


def through_reading_console(monkeypatch, block, width: int = 80, soft_wrap: bool = False) -> str:
    """What ReadingConsole().print(block) writes to a (captured) stdout `width` columns wide."""
    shown = io.StringIO()
    monkeypatch.setattr(sys, "stdout", shown)
    monkeypatch.setenv("COLUMNS", str(width))
    ReadingConsole().print(block, soft_wrap=soft_wrap)
    return shown.getvalue()


def with_plain(block, width: int) -> str:
    try:
        return plain.render(block, width)
    except plain.Unsupported:
        assume(False)  # Rich prints these (a cell with no room at a narrow width)


def same(block, width: int) -> None:
    assert with_plain(block, width) == with_rich(block, width)


@given(texts(40), widths)
def test_text_wraps_as_rich_wraps_it(text, width):
    same(literal(text), width)


@given(texts(), texts(), widths)
def test_styled_parts_print_as_one_text(first, second, width):
    same(Styled().append(literal(first, "bold")).append(second, "dim"), width)


@given(texts(30), widths, st.booleans())
def test_a_str_prints_as_rich_prints_it_without_markup(text, width, soft_wrap):
    console = rich_console(width)
    console.print(text, markup=False, soft_wrap=soft_wrap)
    assert plain.render_str(text, width, soft_wrap) == console.file.getvalue()


def datasets_table(rows) -> blocks.Table:
    table = datasets_columns()
    for row in rows:
        table.add_row(*(literal(cell) for cell in row))
    return table


@settings(max_examples=150)
@given(st.lists(st.tuples(one_line_texts, one_line_texts, one_line_texts, one_line_texts, texts()), max_size=5),
       widths)
def test_the_datasets_table(rows, width):
    same(datasets_table(rows), width)


@settings(max_examples=150)
@given(st.lists(st.tuples(one_line_texts, one_line_texts, one_line_texts), max_size=5),
       st.lists(st.integers(1, 30), min_size=3, max_size=3), widths)
def test_the_claims_table_of_fixed_widths(rows, fixed, width):
    table = blocks.Table(box="SIMPLE_HEAD", pad_edge=False, show_edge=False, collapse_padding=True)
    for name, w in zip(("id", "label", "claim"), fixed):
        table.add_column(name, no_wrap=True, overflow="ellipsis", width=w)
    for row in rows:
        table.add_row(*(literal(cell) for cell in row))
    same(table, width)


@settings(max_examples=150)
@given(st.lists(st.tuples(one_line_texts, texts(), st.integers(0, 10**7)), max_size=5), widths)
def test_the_runs_table(rows, width):
    table = blocks.Table(box="SIMPLE_HEAD", pad_edge=False, collapse_padding=True)
    table.add_column("id", no_wrap=True)
    table.add_column("run", min_width=22, overflow="fold")
    for header in ("total", "ok", "it/s"):
        table.add_column(header, justify="right", no_wrap=True)
    for n, (name, detail, count) in enumerate(rows):
        label = literal(name).append(" finished", "bold").append("\n" + detail, "dim")
        table.add_row(str(n), label, f"{count:,}", f"{count // 3:,}", "")
    same(table, width)


@settings(max_examples=150)
@given(st.lists(st.tuples(*[one_line_texts] * 4, texts()), max_size=5), widths)
def test_the_predictions_table(rows, width):
    table = blocks.Table()
    for header in ("claim", "ext id", "gold", "verdict", "status", "explanation / error"):
        table.add_column(header)
    for n, row in enumerate(rows):
        table.add_row(str(n), *(literal(cell) for cell in row))
    same(table, width)


@settings(max_examples=100)
@given(one_line_texts, st.lists(st.tuples(one_line_texts, st.integers(0, 999)), max_size=4), widths)
def test_the_search_subsets_table(by, rows, width):
    table = blocks.Table(box="SIMPLE_HEAD")
    table.add_column(literal(by))
    for header in ("claims", "searches/claim"):
        table.add_column(header, justify="right")
    for value, n in rows:
        table.add_row(literal(value), f"{n:,}", f"{n / 7:.2f}")
    same(table, width)


@settings(max_examples=150)
@given(st.lists(st.tuples(one_line_texts, texts()), max_size=6), widths)
def test_the_metadata_grid(rows, width):
    grid = blocks.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    for name, value in rows:
        grid.add_row(literal(name), literal(value))
    same(grid, width)


@settings(max_examples=150)
@given(texts(40), texts(6), st.sampled_from(["left", "center", "right"]), widths)
def test_panels_with_titles(body, title, align, width):
    same(blocks.Panel(literal(body), title=literal(title), title_align=align), width)
    same(blocks.Panel(literal(body), title="question and response"), width)


@given(texts(), one_line_texts, widths)
def test_a_group_is_its_blocks_in_turn(text, cell, width):
    table = blocks.Table(box="SIMPLE_HEAD")
    table.add_column("x")
    table.add_row(literal(cell))
    same(blocks.Group([literal(text), table, blocks.Panel(literal(cell))]), width)


def table_of(cell) -> blocks.Table:
    table = blocks.Table()
    table.add_column("header")
    table.add_row(cell)
    return table


@pytest.mark.parametrize("block", [
    literal("a\ttab"),
    Styled("a carriage\rreturn Rich drops"),
    table_of("[bold]markup[/bold] Rich reads in a str cell"),
    table_of("a :thumbs_up: code Rich reads in a str cell"),
    blocks.Panel(literal("a panel"), title=literal("a\ttab in the title")),
])
def test_what_plain_does_not_draw_rich_prints(block, monkeypatch):
    """A tab (Rich's tab stops), markup or an emoji code in a str: Rich prints it, plain.py
    does not guess."""
    with pytest.raises(plain.Unsupported):
        plain.render(block, 80)
    assert through_reading_console(monkeypatch, block) == with_rich(block, 80)


@pytest.mark.parametrize("text", ["fixed :thumbs_up: today", "a carriage\rreturn", "a\ttab"])
def test_a_str_plain_does_not_draw_rich_prints(text, monkeypatch):
    with pytest.raises(plain.Unsupported):
        plain.render_str(text, 80)
    console = rich_console(80)
    console.print(text, markup=False)
    assert through_reading_console(monkeypatch, text) == console.file.getvalue()


def test_an_emoji_code_in_a_str_is_rich_s_to_print(monkeypatch):
    with pytest.raises(plain.Unsupported):
        plain.render_str("fixed :thumbs_up: today", 80)
    assert "👍" in through_reading_console(monkeypatch, "fixed :thumbs_up: today")


@pytest.mark.parametrize(("env", "plain_one"), [
    ({}, True), ({"FORCE_COLOR": "1"}, False), ({"FORCE_COLOR": ""}, True), ({"TTY_COMPATIBLE": "1"}, False),
    ({"TTY_COMPATIBLE": "0", "FORCE_COLOR": "1"}, True), ({WITH_RICH: "1"}, False),
])
def test_plain_where_rich_would_print_no_styles(env, plain_one, monkeypatch):
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", WITH_RICH):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert plain_output() is plain_one
    assert plain_width() == Console().width


def test_not_in_a_utf_encoding(monkeypatch):
    """Rich draws boxes in ASCII there: plain.py leaves it to Rich."""
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding="latin-1"))
    assert not plain_output()


def test_a_block_printed_with_soft_wrap_is_rich_s_to_print(monkeypatch):
    """plain.py wraps blocks at the width; soft_wrap (one long line) is Rich's."""
    block = literal("a long line " * 20)
    console = rich_console(40)
    console.print(to_rich(block), soft_wrap=True)
    assert through_reading_console(monkeypatch, block, 40, soft_wrap=True) == console.file.getvalue() == block.plain + "\n"
