"""``biblioteca import --shard I/N`` as the command line reads it: a Cloud Run task's
variables choose the shard (said on stderr), the flag wins over them, and a malformed
value is a usage error (exit 2) naming the flag or the variables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared.bootstrap import reset, wiring
from shared.cli import main
from shared.config import get_settings
from shared.importing.shards import shard_of
from tests.fixtures.files import write
from tests.fixtures.gemini import FakeGemini

KEY = "AIzaFAKE-shard-key-0123456789"
FILES = [f"guias/p{i}.md" for i in range(12)]


@pytest.fixture
def docs(
    env: dict[str, str], gemini: FakeGemini, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A dozen pages, embedded through the fake Gemini API (no model to load)."""
    del env
    for variable, value in {
        "BIBLIOTECA_EMBEDDER": "gemini",
        "GOOGLE_AI_API_KEY": KEY,
        "GEMINI_BASE_URL": gemini.url,
    }.items():
        monkeypatch.setenv(variable, value)
    monkeypatch.delenv("CLOUD_RUN_TASK_INDEX", raising=False)
    monkeypatch.delenv("CLOUD_RUN_TASK_COUNT", raising=False)
    get_settings.cache_clear()
    reset()
    root = tmp_path / "docs"
    for path in FILES:
        write(root, path, f"# {Path(path).stem}\n\nTexto de {path}.\n")
    return root


def _report(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[dict[str, object], str]:
    assert main(["import", *args, "--type", "guide", "--json"]) == 0
    out, err = capsys.readouterr()
    return json.loads(out), err


def test_cloud_run_task_variables_choose_the_shard_and_say_so(
    docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Task 1 of 4: only the files hashing to shard 1 are written, stderr says which
    shard and why, and ``biblioteca status`` names the shard of the last sync."""
    monkeypatch.setenv("CLOUD_RUN_TASK_INDEX", "1")
    monkeypatch.setenv("CLOUD_RUN_TASK_COUNT", "4")
    report, err = _report(capsys, str(docs))
    assert report["shard"] == {"index": 1, "count": 4}
    assert report["created"] == sum(shard_of(p, 4) == 1 for p in FILES)
    assert "shard 1/4 (from CLOUD_RUN_TASK_INDEX and CLOUD_RUN_TASK_COUNT)" in err
    main(["status"])
    assert "(shard 1/4) at" in capsys.readouterr().out  # the last sync is one shard's


def test_the_flag_wins_over_the_task_variables_and_one_task_is_the_whole_tree(
    docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--shard 4/4`` is shard 0, whatever the task says; a job of one task imports all."""
    monkeypatch.setenv("CLOUD_RUN_TASK_INDEX", "1")
    monkeypatch.setenv("CLOUD_RUN_TASK_COUNT", "4")
    flagged, err = _report(capsys, str(docs), "--shard", "4/4")
    assert flagged["shard"] == {"index": 0, "count": 4}
    assert flagged["created"] == sum(shard_of(p, 4) == 0 for p in FILES)
    assert "CLOUD_RUN_TASK_INDEX" not in err
    monkeypatch.setenv("CLOUD_RUN_TASK_INDEX", "0")
    monkeypatch.setenv("CLOUD_RUN_TASK_COUNT", "1")
    whole, _ = _report(capsys, str(docs))
    assert "shard" not in whole
    assert whole["created"] == len(FILES) - flagged["created"]


@pytest.mark.parametrize("value", ["3", "0/0", "5/4", "-1/4", "a/b", "1/4/2", ""])
def test_a_malformed_shard_is_a_usage_error_naming_the_flag(
    docs: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    """Exit status 2, ``--shard`` named on stderr, nothing imported."""
    with pytest.raises(SystemExit) as exited:
        main(["import", str(docs), "--shard", value])
    assert exited.value.code == 2
    assert "--shard" in capsys.readouterr().err
    assert not Path(get_settings().data_dir).exists()  # no store opened


def test_malformed_task_variables_are_a_usage_error_naming_them(
    docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``CLOUD_RUN_TASK_INDEX=4`` of ``CLOUD_RUN_TASK_COUNT=x``: exit 2, both named."""
    monkeypatch.setenv("CLOUD_RUN_TASK_INDEX", "4")
    monkeypatch.setenv("CLOUD_RUN_TASK_COUNT", "x")
    assert main(["import", str(docs)]) == 2
    err = capsys.readouterr().err
    assert "CLOUD_RUN_TASK_INDEX=4" in err
    assert "CLOUD_RUN_TASK_COUNT=x" in err


def test_a_slug_shared_across_shards_fails_in_each_shard_naming_the_other(
    docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``Guia.md`` (shard 2 of 4) and ``guia.md`` (shard 0) share a slug: each shard
    knows from the whole tree's listing, refuses its own file and names the other."""
    assert (shard_of("Guia.md", 4), shard_of("guia.md", 4)) == (2, 0)
    write(docs, "Guia.md", "# Guía\n\nUna.\n")
    write(docs, "guia.md", "# guía\n\nOtra.\n")
    failed = {}
    for index in (2, 0):
        assert (
            main(["import", str(docs), "--type", "guide", "--json", "--shard", f"{index}/4"]) == 1
        )
        report = json.loads(capsys.readouterr().out)
        failed[index] = [(f["file"], f["error"]) for f in report["failed"]]
    assert [file for file, _ in failed[2]] == ["Guia.md"]
    assert "guia.md" in failed[2][0][1]
    assert [file for file, _ in failed[0]] == ["guia.md"]
    assert "Guia.md" in failed[0][0][1]


def test_a_link_to_a_page_of_another_shard_resolves_to_its_slug(
    docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``origen.md`` (shard 1) links ``destino.md`` (shard 3), not yet imported: the link
    is stored as the page's wikilink, judged against the whole tree's slugs."""
    write(docs, "origen.md", "# Origen\n\nVer [el destino](destino.md).\n")
    write(docs, "destino.md", "# Destino\n\nTexto.\n")
    _report(capsys, str(docs), "--shard", "1/4")
    w = wiring()
    assert w.store.pages.get("destino") is None
    assert "[[destino|el destino]]" in w.store.pages.get("origen").content


def test_a_page_moved_into_another_shard_is_not_retired_by_its_old_shard(
    docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``viejo.md`` (shard 2) with ``slug: mudanza`` renamed ``nuevo.md`` (shard 3): the
    old file's shard, with ``--sync``, sees its file gone but the slug still in the tree,
    and retires nothing; the new file's shard updates the page's origin."""
    write(docs, "viejo.md", "---\nslug: mudanza\n---\n# Mudanza\n\nTexto.\n")
    _report(capsys, str(docs))
    (docs / "viejo.md").rename(docs / "nuevo.md")
    old, _ = _report(capsys, str(docs), "--sync", "--shard", "2/4")
    assert old["retired"] == 0
    new, _ = _report(capsys, str(docs), "--sync", "--shard", "3/4")
    assert new["retired"] == 0
    store = wiring().store
    assert store.pages.get("mudanza").front_matter.get("status", "active") == "active"
    assert store.pages.origins(str(docs))["mudanza"] == "nuevo.md"
