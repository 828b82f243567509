"""At the door: an agent's new page that restates a published page is told which page
to update instead."""

from __future__ import annotations

import json
from typing import Any

from shared.bootstrap import wiring
from shared.config import get_settings
from shared.mcp.protocol import handle
from shared.mcp.tools import Caller
from tests.service.conftest import Call

TEXT = (
    "Para rotar el certificado ejecuta el script de despliegue con la ruta del nuevo "
    "certificado, espera a que el balanceador lo cargue y comprueba con curl que la "
    "fecha de caducidad mostrada es la nueva antes de borrar el certificado anterior. "
    "Si el balanceador sigue sirviendo el certificado viejo, vacía su caché de "
    "configuración y vuelve a cargarlo; si la fecha no cambia tras unos minutos, revisa "
    "los registros del script, que dicen qué paso falló y con qué error, y repite la "
    "rotación desde ese paso sin borrar todavía nada del almacén de secretos."
)


OTHER = (
    "El balanceador de carga reparte las peticiones entre las instancias sanas y retira "
    "de la rotación a las que no responden a su comprobación de salud periódica."
)


def _create(call: Call, title: str, content: str) -> str:
    status, reply = call(
        "wiki_create", {"content": content, "front_matter": {"title": title, "type": "runbook"}}
    )
    assert status == 201, reply
    return str(reply["slug"])


def _published(call: Call) -> str:
    """The certificate page (returned) and a second page answers may cite too."""
    _create(call, "Balanceador", OTHER)
    return _create(call, "Rotar el certificado", TEXT)


def test_an_agents_page_that_duplicates_one_is_told_which_page_to_update(
    call: Call, store: Any
) -> None:
    """propose_page with the page's text: an error naming the page and propose_update."""
    slug = _published(call)
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "propose_page",
            "arguments": {
                "content": TEXT,
                "front_matter": {"title": "Certificados", "type": "runbook"},
            },
        },
    }
    response = handle(message, wiring(get_settings()), Caller(may_write=True))
    assert response is not None
    result = response["result"]
    said = json.loads(result["content"][0]["text"])
    assert result["isError"]
    assert said["code"] == "conflict"
    assert f"propose_update with slug '{slug}'" in said["error"]
    assert store.pages.list(status="draft") == []
