"""Finding the user's own GGUF models: tiny real GGUF files (written with the gguf
package) in the folder layouts of the Hugging Face hub cache, LM Studio and Ollama, and
`--model gguf:NAME` resolving their names."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from tests.support.local_models import hf_model, ollama_model, tiny_gguf
from workbench.backends.local_models import find_local_models
from workbench.backends.model_catalog import LocalModelError, catalog, describe, resolve
from workbench.backends.specs import local_model_path, parse_model_spec
from workbench.cli import main


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """A home folder, an HF cache and an Ollama store that hold nothing yet."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("OLLAMA_MODELS", str(tmp_path / "ollama"))
    return {
        "home": home,
        "hf": tmp_path / "hf" / "hub",
        "ollama": tmp_path / "ollama",
        "lmstudio": home / ".lmstudio" / "models",
    }


def models_cli(*args):
    return CliRunner().invoke(main, ["models", *args], terminal_width=160)


def test_models_lists_every_source_with_its_header_facts(machine, tmp_path):
    hf_model(machine["hf"], "acme/Tiny-GGUF", "tiny-q4_k_m.gguf", context=4096)
    studio = machine["lmstudio"] / "studio-pub" / "Vision-GGUF"
    tiny_gguf(studio / "vision-Q8_0.gguf", file_type=7, context=8192, chat_template=None)
    tiny_gguf(studio / "mmproj-vision-f16.gguf", projector=True)
    ollama_model(machine["ollama"], "tinyllm", "latest")
    mine = tiny_gguf(tmp_path / "mine" / "sub" / "local.gguf", file_type=None)
    (tmp_path / "no-config.toml").write_text(f'models_dirs = ["{tmp_path / "mine"}"]\n')

    result = models_cli("--json")
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.output)["models"]}
    assert {"acme/Tiny-GGUF/tiny-q4_k_m", "studio-pub/Vision-GGUF/vision-Q8_0", "tinyllm:latest", "sub/local"} <= set(
        rows
    )
    hf = rows["acme/Tiny-GGUF/tiny-q4_k_m"]
    assert (hf["source"], hf["quantisation"], hf["parameters"], hf["context_length"], hf["chat_template"]) == (
        "hf",
        "Q4_K_M",
        96,
        4096,
        True,
    )
    vision = rows["studio-pub/Vision-GGUF/vision-Q8_0"]
    assert (vision["quantisation"], vision["context_length"], vision["chat_template"]) == ("Q8_0", 8192, False)
    assert vision["projector"].endswith("mmproj-vision-f16.gguf")  # beside it, not listed as a model
    assert not any("mmproj" in name for name in rows)
    assert rows["tinyllm:latest"]["path"].startswith(str(machine["ollama"] / "blobs" / "sha256-"))
    assert rows["sub/local"]["quantisation"] == "F32"  # no general.file_type: the weights' own type
    assert rows["sub/local"]["size"] == mine.stat().st_size

    table = models_cli()
    assert table.exit_code == 0
    assert "tinyllm:latest" in table.output and "Q4_K_M" in table.output and "4,096" in table.output


def test_a_truncated_download_is_named_with_its_file_not_hidden(machine):
    link = hf_model(machine["hf"], "acme/Cut-GGUF", "cut.gguf")
    blob = link.resolve()
    os.truncate(blob, blob.stat().st_size - 20)

    result = models_cli("--json")
    assert result.exit_code == 0
    row = next(r for r in json.loads(result.output)["models"] if r["name"] == "acme/Cut-GGUF/cut")
    assert "is cut short" in row["problem"] and str(link) in row["problem"] and row["quantisation"] is None
    shown = models_cli()
    assert "cut short" in shown.output  # the table says so beside the model


def test_an_ollama_manifest_naming_a_missing_blob_is_a_located_problem(machine):
    manifest = ollama_model(machine["ollama"], "gone", "7b")
    blob = next((machine["ollama"] / "blobs").iterdir())
    blob.unlink()

    found = find_local_models()
    assert not found.models
    (problem,) = found.problems
    assert problem.path == manifest
    assert "ollama model gone:7b" in problem.message and blob.name in problem.message
    assert "ollama pull gone:7b" in problem.message
    result = models_cli()
    assert result.exit_code == 0 and "not usable: ollama model gone:7b" in result.stderr


def test_two_models_of_one_name_get_names_of_their_own_and_the_bare_name_lists_both(machine):
    hf_model(machine["hf"], "acme/Twin-GGUF", "twin.gguf")
    tiny_gguf(machine["lmstudio"] / "acme" / "Twin-GGUF" / "twin.gguf", context=1024)
    found = catalog(with_bundled=False)
    names = sorted(m.name for m in found.models)
    assert names == ["acme/Twin-GGUF/twin@hf", "acme/Twin-GGUF/twin@lmstudio"]

    with pytest.raises(LocalModelError) as error:
        resolve("acme/Twin-GGUF/twin", found)
    assert "fits 2 local models" in str(error.value)
    assert "gguf:acme/Twin-GGUF/twin@hf" in str(error.value) and "gguf:acme/Twin-GGUF/twin@lmstudio" in str(error.value)
    chosen = resolve("acme/Twin-GGUF/twin@lmstudio", found)
    assert describe(chosen).context_length == 1024


def test_names_resolve_by_whole_name_stem_or_a_unique_part(machine):
    hf_model(machine["hf"], "acme/Qwen-Tiny-GGUF", "qwen-tiny-Q4_K_M.gguf")
    ollama_model(machine["ollama"], "llama-mini", "latest")
    ollama_model(machine["ollama"], "llama-mini", "q8", blob_file=tiny_gguf(machine["home"] / "q8.gguf", file_type=7))
    found = catalog(with_bundled=False)
    assert resolve("qwen-tiny-q4_k_m", found).source == "hf"  # the file's stem, any case
    assert resolve("qwen-tiny-Q4_K_M.gguf", found).source == "hf"  # the file's name
    assert resolve("llama-mini", found).name == "llama-mini:latest"  # Ollama: no tag means latest
    assert resolve("mini:q8", found).name == "llama-mini:q8"  # a part of just one name
    with pytest.raises(LocalModelError, match="fits 3 local models"):
        resolve("i", found)
    with pytest.raises(LocalModelError, match="no local model named 'mistral'.*workbench models"):
        resolve("mistral", found)


def test_two_ollama_tags_of_one_blob_are_one_model_under_both_names(machine):
    ollama_model(machine["ollama"], "llama-mini", "latest")
    ollama_model(machine["ollama"], "llama-mini", "1b")  # the same blob, as Ollama tags often are
    found = catalog(with_bundled=False)
    assert len(found.models) == 1
    assert resolve("llama-mini:1b", found) == resolve("llama-mini:latest", found)


def test_gguf_name_specs_become_files_and_keep_their_name(machine):
    ollama_model(machine["ollama"], "llama-mini", "latest")
    path = local_model_path("llama-mini:latest")
    assert path.parent == machine["ollama"] / "blobs"
    spec = parse_model_spec("gguf:llama-mini:latest")
    assert spec.name == "llama-mini:latest" and spec.short_name == "llama-mini-latest"
    from workbench.backends.specs import ModelSpecError

    with pytest.raises(ModelSpecError, match="no local model named"):
        local_model_path("nothing-like-it")
    assert local_model_path("./missing.gguf").name == "missing.gguf"  # a path: the backend says it is missing


def test_untrusted_names_are_shown_literally(machine):
    hf_model(machine["hf"], "evil/[bold]x", "\x1b[31mred.gguf")
    result = models_cli()
    assert result.exit_code == 0
    assert "[bold]x" in result.output and "\\x1b[31mred" in result.output and "\x1b[31m" not in result.output


@pytest.mark.slow
def test_a_run_finds_a_model_by_its_ollama_name(machine, store, db_path, tmp_path):
    from tests.run_fixtures import load_mini
    from workbench.backends.llama import default_gguf_path

    load_mini(store, tmp_path)
    ollama_model(machine["ollama"], "smol", "135m", blob_file=default_gguf_path())
    result = CliRunner().invoke(
        main,
        ["--db", str(db_path), "run", "--model", "gguf:smol", "--limit", "1", "--param", "max_tokens=8"],
        terminal_width=120,
    )
    assert result.exit_code in (0, 1), result.output  # 8 tokens may cut the JSON: answered all the same
    run = store.runs.list()[0]
    assert run.model == "gguf:smol" and run.name.startswith("smol-")
    assert run.model_identity["file"].startswith("sha256-")  # the blob's own name
    assert store.runs.progress(run.id).done == 1
