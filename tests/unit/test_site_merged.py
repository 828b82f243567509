"""The redirects of merged pages (shared.services.site_build.merged): chains followed,
cycles and unpublished targets dropped."""

from shared.services.site_build.merged import merged_redirects, merged_targets
from shared.site.manifest import ARCHIVED, DRAFT, Held
from shared.site.redirects import Redirect


def _merged(target: str) -> Held:
    return Held(ARCHIVED, {"redirect_to": target})


def test_a_chain_of_merges_leads_to_the_page_readers_see() -> None:
    """a → b → c with c published: both a and b lead to c; plain archived pages do not."""
    held = {"a": _merged("b"), "b": _merged("c"), "old": Held(ARCHIVED), "d": Held(DRAFT, {})}
    assert merged_targets(held, {"c"}) == {"a": "c", "b": "c"}
    targets = merged_targets(held, {"c"})
    assert merged_redirects(targets) == [Redirect("a", "c/"), Redirect("b", "c/")]


def test_a_cycle_or_an_unpublished_target_writes_no_redirect() -> None:
    """a ↔ b, and e → a target that is not published: nothing."""
    held = {"a": _merged("b"), "b": _merged("a"), "e": _merged("gone")}
    assert merged_targets(held, {"x"}) == {}
