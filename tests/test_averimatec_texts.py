"""Whatever text an AVerImaTeC file holds (markup, escapes, braces, any script), it is
imported as written and reaches the judge literally, once, in its place."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store import Store
from workbench.contamination.averimatec_evidence import PARTS
from workbench.contamination.averimatec_task import TEMPLATES, AverimatecTask
from workbench.importers.averimatec import import_averimatec
from workbench.prompting import load_task_template

HOSTILE = ["[bold]", "[/", "[link=x]", "\x1b[31m", "{claim}", "{}", "{{", "\x00reference\x00", "R1.", "[IMG_1]"]
text = st.one_of(st.sampled_from(HOSTILE), st.text(min_size=1, max_size=40)).map(lambda t: t + "x")


def rendered_text(task: AverimatecTask, store: Store, claim) -> str:
    content = task.render(store, claim).messages[-1]["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(claim=text, question=text, answer=text, justification=text, predicted=text)
def test_any_text_is_imported_and_shown_to_the_judge_as_written(claim, question, answer, justification, predicted):
    with tempfile.TemporaryDirectory() as folder:
        gold = Path(folder) / "gold.json"
        gold.write_text(
            json.dumps(
                [
                    {
                        "claim_text": claim,
                        "label": "Refuted",
                        "justification": justification,
                        "questions": [
                            {"question": question, "answers": [{"answer_type": "Abstractive", "answer_text": answer}]}
                        ],
                    }
                ]
            )
        )
        answers = Path(folder) / "answers.json"
        answers.write_text(
            json.dumps(
                [
                    {
                        "questions": [predicted],
                        "evidence": [{"text": predicted, "images": []}],
                        "verdict": "Refuted",
                        "justification": predicted,
                    }
                ]
            )
        )
        store = Store.open(Path(folder) / "w.db")
        try:
            import_averimatec(store, gold, "g")
            run = import_averimatec(store, answers, "g", "sys").run
            stored = store.claims.get(store.claims.ids("dataset:g")[0])
            assert stored.text == claim and stored.justification == justification
            shown = {}
            for part in PARTS:
                task = AverimatecTask(load_task_template(TEMPLATES[part], "averimatec"), run.id, run.name, part)
                shown[part] = rendered_text(task, store, stored)
        finally:
            store.close()
    flat = lambda value: value.replace("\n", "; ")  # noqa: E731 (a question or answer is kept on one line)
    assert f"Claim being checked: {claim}\n" in shown["evidence"]
    assert f"R1. {flat(question)}\n" in shown["questions"] and f"P1. {predicted}\n" in shown["questions"]
    assert f"R1. Q: {flat(question)} A: {flat(answer)}\n" in shown["evidence"]
    assert f"R1. {justification}\n" in shown["justification"] and f"P1. {predicted}\n" in shown["justification"]
    assert not any(re.search("\x00[0-9a-f]{16}(reference|predicted)\x00", value) for value in shown.values())
