"""index_code's per-field checks: a bad path or repo is a 400 at its path in the body."""

from __future__ import annotations

import pytest

from tests.service.conftest import Call


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"repo": "r", "paths": ["a/b.py", "c.py", "d/e.go", 7]}, "paths[3]"),
        ({"repo": "r", "paths": ["a/b.py", None]}, "paths[1]"),
        ({"repo": "r", "paths": ["a/b.py", "  "]}, "paths[1]"),
        ({"repo": "r", "paths": ["a/../../etc/passwd"]}, "paths[0]"),
        ({"repo": "r", "paths": ["a/\x00b.py"]}, "paths[0]"),
        ({"repo": "r", "paths": ["/".join(["d"] * 65) + ".py"]}, "paths[0]"),
        ({"repo": "", "paths": []}, "repo"),
        ({"repo": "   ", "paths": []}, "repo"),
        ({"repo": 5, "paths": []}, "repo"),
        ({"paths": ["a/b.py"]}, "repo"),
        ({"repo": "r"}, "paths"),
        ({"repo": "r", "paths": "a/b.py"}, "paths"),
        ({"repo": "r", "paths": [], "replace": "yes"}, "replace"),
        ({"repo": "r", "paths": [], "branch": "main"}, "branch"),
    ],
    ids=repr,
)
def test_invalid_input_is_a_400_naming_the_field(
    call: Call, body: dict[str, object], field: str
) -> None:
    """A caller's mistake is a 400 validation_error whose field is the path in the body."""
    status, reply = call("index_code", body)
    assert (status, reply["code"], reply["field"]) == (400, "validation_error", field)


@pytest.mark.parametrize(("full", "status"), [(None, 200), (False, 200), ("yes", 400), (1, 400)])
def test_rebuild_takes_full_as_a_boolean_or_null(call: Call, full: object, status: int) -> None:
    """rebuild's only field: true, false or null (false); anything else is a 400 at full."""
    got, reply = call("rebuild", {"full": full})
    assert got == status, reply
    if status == 400:
        assert reply["field"] == "full"
