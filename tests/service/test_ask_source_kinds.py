"""Which kind of page answers which kind of question (issue 31): a how-to is led by the
guide, a question on a parameter by the reference, and each source says its kind."""

from __future__ import annotations

from tests.service.conftest import Call

BODY = """# Reintentos

El parámetro `retries` del cliente fija cuántas veces se reintenta una petición
fallida: `Client(retries=3)` reintenta tres veces cada petición fallida.

{}
"""


def test_each_source_says_its_kind_and_the_intent_picks_which_leads(call: Call) -> None:
    """Two pages say the same: the reference (whose slug sorts first, so it leads a tie)
    leads a question on the parameter and the guide a how-to, and every source carries
    its page's kind."""
    for slug, tail, page_type in (
        ("api—client", "Revisado en marzo.", "reference"),
        ("guides—retries", "Revisado en marzo.", "guide"),
    ):
        status, created = call(
            "wiki_create",
            {
                "slug": slug,
                "content": BODY.format(tail),
                "front_matter": {"title": "Reintentos", "type": page_type},
            },
        )
        assert status == 201, created
    status, how = call("ask", {"question": "¿Cómo hago que el cliente reintente una petición?"})
    assert status == 200, how
    assert [s["kind"] for s in how["sources"]][:2] == ["guide", "reference"]
    status, what = call("ask", {"question": "¿Qué hace el parámetro `retries` del cliente?"})
    assert status == 200, what
    assert [s["kind"] for s in what["sources"]][:2] == ["reference", "guide"]
