"""Claims with images (issue 13, items 5-8): read at import with their facts, refused with
located warnings when they cannot be used, sent to vision models in each provider's wire
format (checked on loopback servers), and scored apart with --by modality."""

from __future__ import annotations

import base64
import hashlib
import io
import json

import pytest
from click.testing import CliRunner
from PIL import Image

from store import Store
from tests.loopback_servers import Fault, LoopbackServer
from tests.support.images import picture
from workbench.backends.images import ImageData, fitted
from workbench.cli import main
from workbench.importers import ImportRequest, dry_run, run_import
from workbench.importers.reading import BadInput
from workbench.scoring.runs import score_run


def rfb_file(folder, records) -> object:
    path = folder / "data" / "rfb.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def record(n: int, image=None, label="FALSE") -> dict:
    found = {"id": f"r{n}", "claim": f"Claim {n} about a photo.", "label": label, "task": "RD", "domain": "x"}
    if image is not None:
        found["image"] = image
    return found


@pytest.fixture
def with_images(store, tmp_path):
    png = picture(tmp_path / "data" / "images" / "a.png")
    jpeg = picture(tmp_path / "data" / "b.jpg", (8, 5), kind="JPEG")
    path = rfb_file(
        tmp_path,
        [record(1, "images/a.png"), record(2, "b.jpg", "TRUE"), record(3, "https://example.org/c.png"), record(4)],
    )
    report = run_import(store, ImportRequest(path))
    return store, report, png, jpeg


def test_images_are_stored_with_their_facts_and_found_by_the_filter(with_images):
    store, report, png, jpeg = with_images
    assert not report.warnings.items
    first = store.claims.get(store.claims.resolve("rfb:r1")).images
    assert [(i.source, i.mime, i.width, i.height, i.bytes) for i in first] == [
        ("images/a.png", "image/png", 6, 4, len(png))
    ]
    assert first[0].sha256 == hashlib.sha256(png).hexdigest()
    assert store.claims.image_data(first[0].sha256) == png
    second = store.claims.get(store.claims.resolve("rfb:r2")).images[0]
    assert (second.mime, second.width, second.height) == ("image/jpeg", 8, 5)
    url_only = store.claims.get(store.claims.resolve("rfb:r3")).images[0]
    assert (url_only.url, url_only.sha256) == ("https://example.org/c.png", None)
    assert [r.external_id for r in store.claims.page(_page("has:image"))] == ["r1", "r2", "r3"]
    assert [r.external_id for r in store.claims.page(_page("-has:image"))] == ["r4"]


def _page(text):
    from store import PageRequest

    return PageRequest(filter=text)


@pytest.mark.parametrize(
    "image, message",
    [
        ("missing.png", "image 'missing.png': No such file or directory"),
        ("empty.png", "image 'empty.png' is an empty file"),
        ("notes.png", "image 'notes.png' is not an image"),
        ("../outside.png", "image path '../outside.png' leads outside the data folder (not read)"),
        ("/etc/passwd", "image path '/etc/passwd' leads outside the data folder (not read)"),
    ],
)
def test_an_image_that_cannot_be_used_is_a_located_warning(store, tmp_path, image, message):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "empty.png").write_bytes(b"")
    (tmp_path / "data" / "notes.png").write_text("not a picture at all")
    picture(tmp_path / "outside.png")
    path = rfb_file(tmp_path, [record(1, image)])
    report = run_import(store, ImportRequest(path))
    (warning,) = report.warnings.items
    assert (warning.path, warning.line, warning.field) == (str(path), 1, "image")
    assert message in warning.message
    assert store.claims.get(store.claims.resolve("rfb:r1")).images == []
    with pytest.raises(BadInput, match=r"rfb.jsonl:1"):
        run_import(store, ImportRequest(path, dataset="strict", strict=True))
    assert store.datasets.get("strict") is None


def test_an_oversized_image_file_is_not_stored(store, tmp_path, monkeypatch):
    import workbench.importers.images as images

    picture(tmp_path / "data" / "big.png", (400, 400))
    monkeypatch.setattr(images, "MAX_IMAGE_BYTES", 100)
    report = run_import(store, ImportRequest(rfb_file(tmp_path, [record(1, "big.png")])))
    assert "is over 0 MB (not stored)" in report.warnings.items[0].message


def test_a_dry_run_reads_images_and_writes_nothing(store, tmp_path):
    picture(tmp_path / "data" / "a.png")
    result = dry_run(ImportRequest(rfb_file(tmp_path, [record(1, "a.png"), record(2, "gone.png")])))
    assert any("gone.png" in w.message for w in result.warnings.items)
    assert (result.first[0].images[0].width, result.first[1].images) == (6, [])
    assert store.datasets.list() == []


def verdict_answer(body: dict) -> str:
    return '{"verdict": "false", "reason": "The picture is from another event."}'


def run_cli(db, *args):
    return CliRunner().invoke(main, ["--db", str(db), *map(str, args)], terminal_width=120)


def test_openai_compatible_image_parts_carry_the_bytes(with_images, db_path):
    store, _, png, jpeg = with_images
    with LoopbackServer("openai", answer=verdict_answer) as server:
        result = run_cli(
            db_path,
            "run",
            "--dataset",
            "rfb",
            "--model",
            "openai-compatible:vision",
            "--base-url",
            server.url,
            "--setting",
            "claim+image",
            "--concurrency",
            "1",
        )
        assert result.exit_code == 0, result.output
        bodies = [a.body for a in server.answer_arrivals()]
    probe, *answers = bodies
    assert probe["messages"][0]["content"][1]["type"] == "image_url"  # the one question before the run

    def about(n: int) -> list:
        return next(b["messages"][-1]["content"] for b in answers if f"Claim {n} about" in json.dumps(b))

    parts = about(1)
    image = next(p for p in parts if p["type"] == "image_url")["image_url"]["url"]
    assert image == "data:image/png;base64," + base64.b64encode(png).decode()
    url_part = next(p for p in about(3) if p["type"] == "image_url")
    assert url_part["image_url"]["url"] == "https://example.org/c.png"
    text_only = [b for b in answers if isinstance(b["messages"][-1]["content"], str)]
    assert len(text_only) == 1 and "Claim 4" in text_only[0]["messages"][-1]["content"]
    run = store.runs.get(store.runs.list()[0].id)
    assert run.setting == "claim+image"


def test_anthropic_image_blocks_carry_the_bytes(with_images, db_path, monkeypatch):
    store, _, png, _ = with_images
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-img")
    with LoopbackServer("anthropic", answer=verdict_answer) as server:
        result = run_cli(
            db_path,
            "run",
            "--where",
            "has:image",
            "--model",
            "anthropic:claude-vision",
            "--base-url",
            server.url,
            "--setting",
            "claim+image",
            "--concurrency",
            "1",
        )
        assert result.exit_code == 0, result.output
        bodies = [a.body for a in server.answer_arrivals()][1:]
    blocks = [part for body in bodies for part in body["messages"][-1]["content"] if part["type"] == "image"]
    sources = {b["source"]["type"]: b["source"] for b in blocks}
    assert sources["base64"]["media_type"] in ("image/png", "image/jpeg")
    assert base64.b64encode(png).decode() in [b["source"].get("data") for b in blocks]
    assert sources["url"]["url"] == "https://example.org/c.png"


def test_a_model_that_refuses_images_is_refused_before_the_run(with_images, db_path):
    with LoopbackServer("openai", answer=verdict_answer) as server:
        server.faults.append(Fault.status_code(400))
        result = run_cli(
            db_path,
            "run",
            "--dataset",
            "rfb",
            "--model",
            "openai-compatible:text-only",
            "--base-url",
            server.url,
            "--setting",
            "claim+image",
        )
        assert len(server.requests) == 1  # the one question, nothing else
    assert result.exit_code == 1 and "does not take images (asked once with a 2x2 picture" in result.output
    store = Store.open(db_path)
    assert store.runs.list() == []
    store.close()


def test_a_text_only_gguf_is_refused_with_what_to_do(with_images, db_path):
    pytest.importorskip("llama_cpp")
    result = run_cli(db_path, "run", "--dataset", "rfb", "--model", "gguf:default", "--setting", "claim+image")
    assert result.exit_code == 1 and "is a text-only GGUF model" in result.output and "mmproj=PATH" in result.output


def test_the_cache_key_holds_the_image_hashes(store, tmp_path, db_path):
    picture(tmp_path / "data" / "red.png", colour=(200, 0, 0))
    picture(tmp_path / "data" / "blue.png", colour=(0, 0, 200))
    run_import(store, ImportRequest(rfb_file(tmp_path, [record(1, "red.png"), record(2, "blue.png")])))
    with LoopbackServer("openai", answer=verdict_answer) as server:
        args = [
            "run",
            "--dataset",
            "rfb",
            "--model",
            "openai-compatible:v",
            "--base-url",
            server.url,
            "--setting",
            "claim+image",
        ]
        assert run_cli(db_path, *args).exit_code == 0
        asked = len(server.answer_arrivals())
        again = run_cli(db_path, *args, "--name", "again")
        assert again.exit_code == 0 and "2 from cache" in again.output
        # The same claim text with another picture is another question.
        run_import(store, ImportRequest(rfb_file(tmp_path, [record(1, "blue.png"), record(2, "blue.png")])))
        third = run_cli(db_path, *args, "--name", "third")
        assert third.exit_code == 0 and "1 from cache" in third.output
    assert asked == 3  # the probe and two claims


def test_images_over_a_providers_limit_are_scaled_down():
    out = io.BytesIO()
    Image.new("RGB", (9000, 20), (1, 2, 3)).save(out, "PNG")
    mime, data = fitted(ImageData("image/png", out.getvalue()), "anthropic")
    assert mime == "image/png" and max(Image.open(io.BytesIO(data)).size) == 8000
    small = ImageData("image/png", out.getvalue()[:])
    assert fitted(small, "openai") == ("image/png", small.data)  # within OpenAI's limits: as stored
    tiff = io.BytesIO()
    Image.new("RGB", (10, 10)).save(tiff, "TIFF")
    assert fitted(ImageData("image/tiff", tiff.getvalue()), "openai")[0] == "image/jpeg"


def test_scores_by_modality(with_images):
    from tests.support.tui import add_run

    store, *_ = with_images
    ids = store.claims.ids("dataset:rfb")
    add_run(store, "mm", {i: ("ok", "false") for i in ids})
    report = score_run(store, "mm", by=["modality"], resamples=0)
    slices = report.full.breakdowns["modality"]
    assert slices["with image"].summary.scored == 3 and slices["text only"].summary.scored == 1


def test_an_export_writes_its_images_beside_it_and_imports_again(with_images, db_path, tmp_path):
    store, _, png, _ = with_images
    out = tmp_path / "out" / "rfb-export.jsonl"
    out.parent.mkdir()
    assert run_cli(db_path, "export", "--what", "claims", "--where", "dataset:rfb", "-o", out).exit_code == 0
    first = json.loads(out.read_text().splitlines()[1])
    path = out.parent / first["images"][0]
    assert path.parent.name == "rfb-export.images" and path.read_bytes() == png
    copy = tmp_path / "copy.db"
    assert run_cli(copy, "import", out).exit_code == 0
    again = Store.open(copy)
    images = again.claims.get(again.claims.resolve("rfb:r1")).images
    assert images[0].sha256 == hashlib.sha256(png).hexdigest() and again.claims.image_data(images[0].sha256) == png
    again.close()
    # Read back into the first database, the same pictures under other paths change nothing.
    assert "0 added, 0 updated, 4 unchanged" in run_cli(db_path, "import", out).output


def test_a_gguf_projector_that_is_not_one_stops_the_run_with_the_reason(with_images, db_path):
    pytest.importorskip("llama_cpp")
    from workbench.backends.llama import default_gguf_path

    not_a_projector = default_gguf_path()  # a text model's file: llama.cpp cannot read it as a projector
    result = run_cli(
        db_path,
        "run",
        "--where",
        "has:image ext:r1",
        "--model",
        "gguf:default",
        "--setting",
        "claim+image",
        "--param",
        f"mmproj={not_a_projector}",
    )
    assert result.exit_code == 1 and "could not load the vision projector" in result.output
