"""Double-width text in one-line cells: cut and padded by terminal cells, characters kept whole."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from workbench.render.display import one_line
from workbench.tui.widgets.columns import fit

MIXED = st.text(
    st.sampled_from(list("abc 12") + list("交通製品安全カタカナひらがな、。「」") + ["ｶ", "Ａ"]), max_size=40
)


@given(text=MIXED, width=st.integers(1, 30), align=st.sampled_from(["left", "right"]))
def test_a_cell_is_exactly_its_width_in_cells(text, width, align):
    cell = fit(text, width, align)
    assert cell_len(cell) == width
    shown = cell.strip(" ").removesuffix("…").rstrip(" ")
    assert " ".join(text.split()).startswith(shown)  # a prefix of the text: no character halved


@given(text=MIXED, width=st.integers(1, 30))
def test_one_line_never_exceeds_its_width(text, width):
    line = one_line(text, width)
    assert cell_len(line) <= width
    assert line == " ".join(text.split()) or line.endswith("…")


def test_a_japanese_domain_takes_its_cells_and_no_more():
    assert fit("製品安全", 10) == "製品安全  "
    assert fit("製品安全の取り組み", 10) == "製品安全 …"  # の would straddle the cut: a space instead
