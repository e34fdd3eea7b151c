"""AVerImaTeC (FEVER-9, 2026): its gold and prediction files imported with their images, and its
scores computed by a loopback judge that returns recorded counts, checked against the
organisers' formula written out by hand, with the one malformed reply kept apart."""

from __future__ import annotations

import base64
import json

import pytest

from tests.loopback_servers import LoopbackServer
from tests.support.averimatec import (
    CLAIMS,
    MALFORMED_CLAIM,
    NO_EVIDENCE_CLAIM,
    gold_label,
    imported,
    predicted_verdict,
    prompt_text,
    recorded_counts,
    recorded_judge,
    scored,
    write_files,
)
from tests.support.judging import cli
from tests.support.processes import opened_store
from workbench.contamination.averimatec_task import parse_reply

TOLERANCE = 1e-12


def hand_computed(threshold: float = 0.4) -> dict:
    """The organisers' formula written out: each recall = covered reference items (facts for the
    justification) / reference items, capped at 1; verdict and justification count only when
    the evidence recall is above 0.4; an unreadable reply is a count of 0."""
    figures: dict[str, tuple[list, list]] = {key: ([], []) for key in ("q", "e", "v", "j")}
    for n in range(CLAIMS):
        recall = {}
        for part in ("questions", "evidence", "justification"):
            counts = recorded_counts(n, part)
            recall[part] = min(1.0, counts["reference_supported"] / counts["reference_facts"])
        evidence = 0.0 if n in (MALFORMED_CLAIM, NO_EVIDENCE_CLAIM) else recall["evidence"]
        gate = evidence > threshold
        values = {
            "q": recall["questions"],
            "e": evidence,
            "v": float(predicted_verdict(n) == gold_label(n) and gate),
            "j": recall["justification"] if gate else 0.0,
        }
        for key, value in values.items():
            official, readable = figures[key]
            official.append(value)
            if key == "q" or n != MALFORMED_CLAIM:
                readable.append(value)
    mean = lambda values: sum(values) / len(values)  # noqa: E731
    return {key: (mean(official), mean(readable)) for key, (official, readable) in figures.items()}


def test_each_figure_equals_the_published_formula_and_failures_are_apart(tmp_path, db_path):
    imported(tmp_path, db_path)
    seen: list[dict] = []
    with LoopbackServer("openai", answer=recorded_judge(seen)) as server:
        found = scored(db_path, server, "--vision", "yes")
        asked = len(seen)
        again = scored(db_path, server, "--vision", "yes")
        assert len(seen) == asked  # a second call reads the saved judgments and asks nothing
    assert again == found
    # 9 claims for questions and justification, 8 for evidence (one has none), and the
    # malformed evidence reply asked 3 times in all
    assert asked == 9 + 9 + 8 + 2
    expected = hand_computed()
    names = {"q": "question_recall", "e": "evidence_recall", "v": "score", "j": "justification_recall"}
    for key, name in names.items():
        official, readable = expected[key]
        assert abs(found[name]["official"] - official) < TOLERANCE, name
        assert abs(found[name]["failures_excluded"] - readable) < TOLERANCE, name
    assert found["verdict_accuracy"] == found["score"]
    for name in ("evidence_recall", "score", "justification_recall"):
        figure = found[name]
        assert figure["failures"] == 1 and abs(figure["failure_rate"] - 1 / CLAIMS) < TOLERANCE
        # the same sum over one claim fewer: the countings differ exactly by the failed claim
        assert abs(figure["official"] * CLAIMS - figure["failures_excluded"] * (CLAIMS - 1)) < TOLERANCE
    assert found["question_recall"]["failures"] == 0
    assert found["prompt"]["evidence"]["name"] == "averimatec" and found["prompt"]["evidence"]["source"] == "ours"
    assert found["images_shown"] == {"questions": False, "evidence": True, "justification": False}


def test_another_threshold_asks_the_judge_nothing_and_moves_the_gate(tmp_path, db_path):
    imported(tmp_path, db_path)
    seen: list[dict] = []
    with LoopbackServer("openai", answer=recorded_judge(seen)) as server:
        scored(db_path, server, "--vision", "yes")
        asked = len(seen)
        higher = scored(db_path, server, "--vision", "yes", "--threshold", "0.6")
    assert len(seen) == asked
    resumed = cli(db_path, "run", "--resume", "gemma-averimatec-evidence-sys")
    assert resumed.exit_code == 1 and "is an AVerImaTeC judge run" in resumed.output
    assert " averimatec RUN` again" in resumed.output
    scores = cli(db_path, "metrics", "gemma-averimatec-evidence-sys")
    assert scores.exit_code == 1 and "is a judge run (kind 'averimatec') of run 'sys'" in scores.output
    expected = hand_computed(0.6)
    assert abs(higher["score"]["official"] - expected["v"][0]) < TOLERANCE
    assert abs(higher["score"]["official"] - hand_computed()["v"][0]) > 0.1  # two claims at 0.5 drop out


def image_parts(body: dict) -> list[str]:
    content = body["messages"][-1]["content"]
    return (
        [part["image_url"]["url"] for part in content if part.get("type") == "image_url"]
        if isinstance(content, list)
        else []
    )


def test_the_judge_sees_evidence_images_as_images_or_is_told_of_them(tmp_path, db_path):
    imported(tmp_path, db_path)
    seen: list[dict] = []
    with LoopbackServer("openai", answer=recorded_judge(seen)) as server:
        scored(db_path, server, "--vision", "yes")
    evidence = [b for b in seen if "Reference evidence, gathered" in prompt_text(b) and "Photo 1 " in prompt_text(b)]
    urls = image_parts(evidence[0])
    # claim 1: the question's image and the image answer (reference), the predicted evidence's image
    assert len(urls) == 3 and all(url.startswith("data:image/png;base64,") for url in urls)
    sent = {base64.b64decode(url.split(",", 1)[1]) for url in urls}
    assert sent == {(tmp_path / name).read_bytes() for name in ("q1.png", "a1.png", "p1.png")}
    assert not any(image_parts(b) for b in seen if "Reference evidence, gathered" not in prompt_text(b))
    seen.clear()
    with LoopbackServer("openai", answer=recorded_judge(seen)) as server:
        text_only = scored(db_path, server, "--vision", "no")
    assert not any(image_parts(b) for b in seen)
    told = next(prompt_text(b) for b in seen if "Reference evidence, gathered" in prompt_text(b))
    assert "[IMG_1] of R1: an image not shown (q" in told
    assert text_only["images_shown"]["evidence"] is False


def test_auto_vision_asks_the_judge_once_whether_it_takes_images(tmp_path, db_path):
    imported(tmp_path, db_path)
    seen: list[dict] = []
    with LoopbackServer("openai", answer=recorded_judge(seen)) as server:
        found = scored(db_path, server)
    probes = [b for b in seen if "What colour is this image" in prompt_text(b)]
    assert len(probes) == 1 and found["images_shown"]["evidence"] is True


def test_users_prompts_named_or_in_the_organisers_positional_layout_are_used_and_recorded(tmp_path, db_path):
    imported(tmp_path, db_path)
    positional = tmp_path / "ques_eval.txt"  # the organisers' order: claim, reference, predicted
    positional.write_text("Claim: {}\n[REF]: {}\n[PRED]: {}\n", encoding="utf-8")
    named = tmp_path / "evid_eval.txt"
    named.write_text(
        "Claim: {claim}\nReference evidence, gathered:\n{reference_evidence}\nPredicted: {predicted_evidence}\n",
        encoding="utf-8",
    )
    seen: list[dict] = []

    def organisers_tags(body: dict) -> str:
        seen.append(body)
        return "[PRED in REF]: 1\n[REF in PRED]: 2\n"

    with LoopbackServer("openai", answer=organisers_tags) as server:
        found = scored(
            db_path, server, "--vision", "no", "--prompt-file", str(named), "--questions-prompt-file", str(positional)
        )
    assert found["prompt"]["evidence"]["source"] == "user's file"
    assert found["prompt"]["evidence"]["name"] == "user:evid_eval.txt"
    assert found["prompt"]["questions"]["name"] == "user:ques_eval.txt"
    assert found["prompt"]["justification"]["source"] == "ours"
    # two reference items of every judged claim covered: recall 2 / items; claim 5 has no evidence
    items = [2 + n % 2 for n in range(CLAIMS)]
    evidence = sum(2 / k for n, k in enumerate(items) if n != NO_EVIDENCE_CLAIM) / CLAIMS
    assert abs(found["evidence_recall"]["official"] - evidence) < TOLERANCE
    assert abs(found["question_recall"]["official"] - sum(2 / k for k in items) / CLAIMS) < TOLERANCE
    assert found["evidence_recall"]["failures"] == 0 and found["question_recall"]["failures"] == 0
    # the justification part (our prompt, their tags without listed facts): no denominator, a failure
    assert found["justification_recall"]["failures"] == CLAIMS
    sent = [prompt_text(b) for b in seen]
    assert any("Claim: Photo 0 shows" in t and "R1. Where was the photo" in t and "[PRED]: P1. When" in t for t in sent)
    assert any("R1. Q: Where was the photo" in t and "P1. The photo [IMG_1]" in t for t in sent)
    broken = tmp_path / "broken.txt"
    broken.write_text("{claim} {nonsense}", encoding="utf-8")
    refused = cli(
        db_path,
        "averimatec",
        "sys",
        "--judge",
        "openai-compatible:gemma",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--prompt-file",
        str(broken),
    )
    assert refused.exit_code == 1 and "unknown placeholder {nonsense}" in refused.output


@pytest.mark.parametrize(
    ("reply", "status", "counts"),
    [
        ('{"reference_facts": 3, "reference_supported": 2, "predicted_facts": 2, "predicted_supported": 1}', "ok", 2),
        ("[PRED in REF]: 1; (P_1,R_2)\n[REF in PRED]: 2; (R_1,P_1)", "ok", 2),
        (
            "[PRED in REF Exp]: 1. A. 2. B.\n[PRED in REF]: 1\n[REF in PRED Exp]: 1. A. 2. B. 3. C.\n[REF in PRED]: 3",
            "ok",
            3,
        ),
        ("They overlap quite a bit.", "parse_failure", None),
        ("[REF in PRED]: two", "parse_failure", None),
    ],
)
def test_judge_replies_are_read_or_refused_with_a_reason(reply, status, counts):
    found = parse_reply(reply)
    assert found.status == status
    if counts is not None:
        assert found.parsed["reference_supported"] == counts
    else:
        assert found.explanation


def test_organisers_listed_facts_give_the_justification_denominator():
    found = parse_reply(
        "[PRED in REF Exp]: 1. A. 2. B.\n[PRED in REF]: 1\n[REF in PRED Exp]: 1. A. 2. B. 3. C.\n[REF in PRED]: 2"
    )
    assert found.parsed == {
        "reference_supported": 2,
        "predicted_supported": 1,
        "reference_facts": 3,
        "predicted_facts": 2,
    }


def dataset_state(db_path) -> tuple:
    with opened_store(db_path) as store:
        return len(store.datasets.list()), len(store.runs.list(kind=None)), store.claims.have_images()


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        (lambda gold: gold[4].update(label="Mostly true"), "(record 4), field 'label': 'Mostly true' is not"),
        (lambda gold: gold[2].update(claim_images=["missing.png"]), "(record 2), field 'claim_images': image"),
        (
            lambda gold: gold[6]["questions"][1]["answers"][0].update(image_answers=["../../etc/x.png"]),
            "field 'questions[1]",
        ),
        (lambda gold: gold[1].update(questions={"q": 1}), "(record 1), field 'questions': expected a list"),
        (lambda gold: gold[3].update(claim_text=""), "(record 3), field 'claim_text': expected text"),
        (lambda gold: gold[5]["questions"][0].update(answers="On a forum"), "field 'questions[0].answers': expected"),
    ],
)
def test_a_faulty_gold_file_is_refused_naming_item_and_field_and_nothing_is_written(tmp_path, db_path, fault, said):
    gold_path, _ = write_files(tmp_path)
    gold = json.loads(gold_path.read_text())
    fault(gold)
    gold_path.write_text(json.dumps(gold))
    refused = cli(db_path, "import-averimatec", str(gold_path), "--dataset", "avm")
    assert refused.exit_code == 1 and str(gold_path) in refused.output, refused.output
    assert said in refused.output.replace("\n", " ")
    assert dataset_state(db_path) == (0, 0, False)


def test_faulty_predictions_are_refused_and_no_run_is_made(tmp_path, db_path):
    imported(tmp_path, db_path)
    _, predicted_path = write_files(tmp_path)
    before = dataset_state(db_path)
    predictions = json.loads(predicted_path.read_text())
    predictions[7]["evidence"][0]["images"] = ["gone.png"]
    predicted_path.write_text(json.dumps(predictions))
    refused = cli(db_path, "import-averimatec", str(predicted_path), "--dataset", "avm")
    assert refused.exit_code == 1 and "(record 7), field 'evidence[0].images'" in refused.output.replace("\n", " ")
    predictions = json.loads(predicted_path.read_text())[:2] + [{"id": 99, "verdict": "Refuted"}]
    predicted_path.write_text(json.dumps(predictions))
    refused = cli(db_path, "import-averimatec", str(predicted_path), "--dataset", "avm")
    assert refused.exit_code == 1 and "no claim '99' in dataset avm" in refused.output
    assert dataset_state(db_path) == before


def test_a_gold_file_without_labels_imports_as_the_test_split_does(tmp_path, db_path):
    gold_path, _ = write_files(tmp_path)
    gold = [
        {key: value for key, value in record.items() if key != "label"} for record in json.loads(gold_path.read_text())
    ]
    gold_path.write_text(json.dumps(gold))
    assert cli(db_path, "import-averimatec", str(gold_path), "--dataset", "test").exit_code == 0
    with opened_store(db_path) as store:
        assert [store.claims.get(i).label for i in store.claims.ids("dataset:test")] == [None] * CLAIMS


def test_gold_claims_keep_their_images_and_the_evidence_its_image_references(tmp_path, db_path):
    imported(tmp_path, db_path)
    with opened_store(db_path) as store:
        claim = store.claims.get(store.claims.ids("dataset:avm")[1])
        run = store.runs.get("sys")
        answer = store.runs.prediction(run.id, claim.id)
        stored = store.claims.image_data(answer.parsed["evidence"][0]["images"][0]["sha256"])
    assert claim.text == "Photo 1 shows the flood of last week [bold]" and claim.label == gold_label(1)
    assert [image.source for image in claim.images] == ["c1.png"] and claim.images[0].width == 9
    second = claim.evidence[1]
    assert second.question == "Does the earlier photo match claim 1?"
    assert second.text == "[IMG_1] No The skyline differs."
    assert [image["source"] for image in second.attributes["images"]] == ["a1.png"]
    assert stored == (tmp_path / "p1.png").read_bytes()
    assert answer.verdict == predicted_verdict(1) and answer.explanation.startswith("Found online in 2011")


def test_a_verdict_counts_as_the_organisers_compare_it_the_label_as_written(tmp_path, db_path):
    gold, predicted = write_files(tmp_path)
    predictions = json.loads(predicted.read_text())
    predictions[1]["verdict"] = "  REFUTED "  # the label, in other case and spaces: right
    predictions[2]["verdict"] = "NEI"  # a synonym our parser maps to Not Enough Evidence: not the label
    predicted.write_text(json.dumps(predictions))
    assert cli(db_path, "import-averimatec", str(gold), "--dataset", "avm").exit_code == 0
    assert cli(db_path, "import-averimatec", str(predicted), "--dataset", "avm", "--run", "sys").exit_code == 0
    with LoopbackServer("openai", answer=recorded_judge([])) as server:
        found = scored(db_path, server, "--vision", "no")
    assert abs(found["score"]["official"] - (hand_computed()["v"][0] - 1 / CLAIMS)) < TOLERANCE


def test_images_named_with_the_organisers_folders_are_found_by_file_name_in_the_images_folder(tmp_path, db_path):
    images = tmp_path / "images"
    images.mkdir()
    gold_path, _ = write_files(images)
    gold = json.loads(gold_path.read_text())
    gold[0]["claim_images"] = ["/mnt/data/averimatec/data_clean/images/c0.png"]
    split = tmp_path / "split_data"
    split.mkdir()
    (split / "val.json").write_text(json.dumps(gold))
    done = cli(db_path, "import-averimatec", str(split / "val.json"), "--dataset", "avm", "--images", str(images))
    assert done.exit_code == 0, done.output
    with opened_store(db_path) as store:
        claim = store.claims.get(store.claims.ids("dataset:avm")[0])
        data = store.claims.image_data(claim.images[0].sha256)
    assert data == (images / "c0.png").read_bytes()
    assert claim.images[0].source == "/mnt/data/averimatec/data_clean/images/c0.png"
    refused = cli(db_path, "import-averimatec", str(split / "val.json"), "--dataset", "again")
    assert refused.exit_code == 1 and "(record 0), field 'claim_images'" in refused.output.replace("\n", " ")


def test_an_anthropic_judge_gets_the_images_as_image_blocks(tmp_path, db_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    imported(tmp_path, db_path)
    seen: list[dict] = []
    with LoopbackServer("anthropic", answer=recorded_judge(seen)) as server:
        found = cli(
            db_path,
            "averimatec",
            "sys",
            "--judge",
            "anthropic:claude-test",
            "--base-url",
            server.url,
            "--vision",
            "yes",
            "--json",
        )
    assert found.exit_code == 0, found.output
    figures = json.loads(found.output[found.output.index("{\n") :])
    assert abs(figures["score"]["official"] - hand_computed()["v"][0]) < TOLERANCE
    body = next(b for b in seen if "Reference evidence, gathered" in prompt_text(b) and "Photo 1 " in prompt_text(b))
    blocks = [part for part in body["messages"][-1]["content"] if part["type"] == "image"]
    sent = {base64.b64decode(block["source"]["data"]) for block in blocks}
    assert sent == {(tmp_path / name).read_bytes() for name in ("q1.png", "a1.png", "p1.png")}
    assert "sk-ant-test-key" not in found.output
    files = [db_path, *db_path.parent.glob(db_path.name + "-*")]
    assert not any(b"sk-ant-test-key" in path.read_bytes() for path in files)  # the key never reaches the database
