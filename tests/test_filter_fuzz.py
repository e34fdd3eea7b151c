"""Whatever a person types or pastes into the filter bar, the filter either runs or says
what is wrong with it (FilterError): SQLite never sees text it cannot take."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store import FilterError, PageRequest, Prediction, Run

# Pieces of the language and the characters that have broken parsers before.
PIECES = [
    "label:",
    "importance:",
    "date<",
    "date:",
    "reftime>=",
    "id>",
    "id:",
    "has:",
    "flagged:",
    "run:",
    "triage:",
    "attr.x:",
    "evidence:",
    "verdict:",
    "status:",
    "wrong",
    "right",
    "missing",
    "-",
    '"',
    "\\",
    "*",
    "^",
    "(",
    ")",
    ":",
    "<",
    ">",
    "=",
    "@",
    "OR",
    "NOT",
    "NEAR",
    "Refuted",
    "2024-01-01",
    "vacc",
    " ",
    "\t",
    "\x00",
    "\x1b",
    "\x7f",
    "é",
    "漢",
    "\u200b",
    "'",
    ";",
    "--",
    "%",
    "_",
    "{",
    "}",
]


@pytest.fixture(scope="module")
def runs_store(tmp_path_factory):
    from store import Store
    from workbench.cli.demo import load_demo

    store = Store.open(tmp_path_factory.mktemp("fuzz") / "fuzz.db")
    load_demo(store)
    ids = store.claims.ids("dataset:demo")[:5]
    run = store.runs.create(Run(name="fuzz-run", model="gguf:default", setting="claim"), ids)
    store.runs.record(Prediction(run_id=run.id, claim_id=ids[0], status="ok", verdict="Refuted"))
    yield store
    store.close()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=4)), max_size=8).map("".join))
def test_any_typed_filter_runs_or_says_why(runs_store, text):
    try:
        runs_store.claims.count(text)
        runs_store.claims.page(PageRequest(filter=text, limit=5))
    except FilterError as error:
        assert str(error)  # a message to show, with its column


def test_a_nul_in_a_text_term_is_refused_with_its_own_message(runs_store):
    with pytest.raises(FilterError, match=r"control character \\x00 \(at column 5\)"):
        runs_store.claims.count("tide\x00 wrong")
