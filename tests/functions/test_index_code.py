"""POST /index_code per the contract, through the test client and a real server, on both stores."""

from __future__ import annotations

import uuid
from pathlib import Path

from tests.fixtures.contract import assert_error
from tests.fixtures.server import Api


def repo_name() -> str:
    return f"repo-{uuid.uuid4().hex[:10]}"


def test_index_answers_the_repos_distinct_path_count(api: Api) -> None:
    """200 {repo, indexed}: distinct paths after normalization ('./a' is 'a')."""
    repo = repo_name()
    reply = api.post(
        "index_code",
        {"repo": repo, "paths": ["src/app/main.py", "./src/app/main.py", "src\\app\\db.py"]},
    )
    assert reply.status == 200, reply.text
    assert reply.json == {"repo": repo, "indexed": 2}


def test_replace_removes_paths_that_left(api: Api) -> None:
    """Without replace paths accumulate; with replace the list is the repository."""
    repo = repo_name()
    api.post("index_code", {"repo": repo, "paths": ["a/x.py", "a/y.py"], "replace": True})
    added = api.post("index_code", {"repo": repo, "paths": ["a/z.py"]})
    assert added.json["indexed"] == 3
    replaced = api.post("index_code", {"repo": repo, "paths": ["a/z.py"], "replace": True})
    assert replaced.json == {"repo": repo, "indexed": 1}
    emptied = api.post("index_code", {"repo": repo, "paths": [], "replace": True})
    assert emptied.json == {"repo": repo, "indexed": 0}


def test_the_real_corpus_paths(api: Api, corpus: Path) -> None:
    """The corpus's 1,220 real paths go through HTTP in one request."""
    paths = (corpus / "code-paths.txt").read_text(encoding="utf-8").split()
    reply = api.post("index_code", {"repo": repo_name(), "paths": paths, "replace": True})
    assert reply.status == 200, reply.text
    assert reply.json["indexed"] == 1220


def test_invalid_input_is_a_400_naming_the_field(api: Api) -> None:
    """A caller's mistake is a 400 validation_error whose field is the path in the body
    (every other field: tests/service)."""
    reply = api.post("index_code", {"repo": "r", "paths": ["a/b.py", "c.py", "d/e.go", 7]})
    assert_error(reply, 400, "validation_error", "paths[3]")


def test_index_code_needs_credentials(api: Api) -> None:
    """A write endpoint: no or wrong token is a 401, before the body is read."""
    assert api.post("index_code", {"repo": "r", "paths": []}, token=None).status == 401
    assert api.post("index_code", data="not json", token="wrong").status == 401


def test_method_and_media_type(api: Api) -> None:
    """GET is a 405; a body that is not JSON is a 415, malformed JSON a 400."""
    assert api.post("index_code", method="GET").status == 405
    assert api.post("index_code", data="{}", content_type="text/plain").status == 415
    reply = api.post("index_code", data="{nope")
    assert (reply.status, reply.json["code"]) == (400, "invalid_json")
