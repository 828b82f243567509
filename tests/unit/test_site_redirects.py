"""Redirect pages of addresses that moved (shared.site.redirects)."""

from shared.site.redirects import Redirect, redirect_html, redirect_outputs


def test_a_redirect_page_leads_to_its_target_from_its_own_depth_keeping_the_hash() -> None:
    html = redirect_html(Redirect("reference/react/useState", "reference%E2%80%94react/"))
    assert 'href="../../../reference%E2%80%94react/"' in html
    assert "location.replace('../../../reference%E2%80%94react/' + location.hash)" in html
    assert 'content="0; url=../../../reference%E2%80%94react/"' in html


def test_a_target_cannot_break_out_of_the_script_or_the_attribute() -> None:
    html = redirect_html(Redirect("a", "x'</script><b \"y"))
    assert "</script><b" not in html.split("<script>", 1)[1].split("</script>", 1)[0]
    assert '"y' not in html.split('href="', 1)[1].split('"', 1)[0]


def test_unsafe_addresses_and_addresses_a_page_already_has_are_not_written() -> None:
    written = list(
        redirect_outputs(
            [
                Redirect("../etc", "a/"),
                Redirect("guide", "a/"),
                Redirect("old/page", "a/"),
                Redirect("old/page/", "b/"),
            ],
            taken={"guide/index.html"},
        )
    )
    assert [o.path for o in written] == ["old/page/index.html"]
    assert b"../../a/" in written[0].data
