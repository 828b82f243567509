"""What a token's role may write (API.md "Token roles"): the rule, in one place.

An ``agent`` token proposes: it may create a draft and edit one, never publish. A
direct create of an active page, an update of a page that is not a draft, or any status
change is a 403 ``forbidden`` naming the role, so a planted instruction in a page an
agent reads cannot make that agent publish or archive.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shared.config import Role
from shared.errors import RoleForbidden

_PROPOSE = "propose it with MCP propose_page / propose_update for a curator to accept"


def check_create(role: Role, status: str) -> None:
    """A ``wiki_create`` of a page with ``status`` by a token of ``role``."""
    if role == "agent" and status != "draft":
        raise RoleForbidden(
            f"an agent token may not create a {status} page: create it with status draft, "
            f"or {_PROPOSE}",
            field="front_matter.status",
        )


def check_update(role: Role, metadata: Mapping[str, Any], current_status: str | None) -> None:
    """A ``wiki_update`` with ``metadata`` of a page now ``current_status`` (None: no such
    page, which the update itself reports) by a token of ``role``."""
    if role != "agent":
        return
    if "status" in metadata:
        raise RoleForbidden(
            f"an agent token may not change a page's status: {_PROPOSE}",
            field="update_metadata.status",
        )
    if current_status is not None and current_status != "draft":
        raise RoleForbidden(f"an agent token may not edit a {current_status} page: {_PROPOSE}")


# The functions an agent token may call at all; wiki_create and wiki_update then check
# what it writes (above). Building the site and indexing code are not proposals.
_AGENT_FUNCTIONS = frozenset(
    {"ask", "archive", "feedback", "mcp", "wiki_create", "wiki_update", "wiki_history"}
)


def check_function(role: Role, name: str) -> None:
    """A call of the function ``name`` by a token of ``role``."""
    if role == "agent" and name not in _AGENT_FUNCTIONS:
        raise RoleForbidden(f"an agent token may not call {name}: it may read and propose")
