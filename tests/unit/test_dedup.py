"""The pure core of duplicate finding: signatures, claims and the kind of a pair."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import numpy as np

from shared.dedup import codec
from shared.dedup.claims import claims_of
from shared.dedup.compare import Thresholds, compare
from shared.dedup.signature import MIN_SECTION_WORDS, Signature, signature_of, similarity

INSTALL = """# Instalación

Para instalar la aplicación crea primero un entorno virtual con Python y actívalo en tu
terminal. Después instala el paquete con pip y comprueba que el comando responde con su
versión antes de seguir con el tutorial, porque cada paso siguiente lo da por hecho.

## Arrancar el servidor

Arranca el servidor de desarrollo con uvicorn desde la carpeta del proyecto. El servidor
recarga el código cada vez que guardas un archivo y muestra en la terminal la dirección
local donde responde, que puedes abrir en el navegador para ver la documentación.
"""

ROUTES = """# Rutas

Una ruta asocia un camino de la URL con una función de Python que devuelve la respuesta.
Declara la función con el decorador del método HTTP que atiende y el camino entre
comillas; los parámetros del camino se escriben entre llaves y llegan como argumentos.

## Parámetros de consulta

Los argumentos de la función que no están en el camino se leen de la consulta de la URL.
Un valor por defecto los hace opcionales, y su tipo decide cómo se convierte el texto
que llega antes de que la función lo reciba, con un error claro si no encaja.
"""


def _sig(slug: str, content: str, vector: list[float] | None = None) -> Signature:
    v = None if vector is None else np.asarray(vector, dtype=np.float32)
    return signature_of(slug, version=1, title=slug, status="active", content=content, vector=v)


def test_a_copy_with_a_few_words_changed_is_a_copy() -> None:
    """Two words changed in a page of ~90 words: most shingles agree, the pair is a copy."""
    edited = INSTALL.replace("primero", "antes").replace("dirección", "URL")
    found = compare(_sig("a", INSTALL), _sig("b", edited))
    assert [f.kind for f in found] == ["copy"]
    assert found[0].score >= 0.5


def test_two_pages_of_one_topic_with_different_text_are_not_duplicates() -> None:
    """Neighbouring pages (same section, shared vocabulary) are the hard negative."""
    assert compare(_sig("a", INSTALL), _sig("b", ROUTES)) == []


def test_a_section_pasted_into_another_page_is_an_overlap_naming_both_sections() -> None:
    """ROUTES with INSTALL's second section pasted in: an overlap, its passages the two
    sections that agree."""
    pasted = ROUTES + "\n## Servidor\n\n" + INSTALL.split("## Arrancar el servidor\n")[1]
    found = compare(_sig("a", INSTALL), _sig("b", pasted))
    assert [f.kind for f in found] == ["overlap"]
    headings = {p.heading for p in found[0].passages}
    assert headings == {"Instalación › Arrancar el servidor", "Rutas › Servidor"}


def test_pages_in_two_languages_with_near_vectors_are_a_translation_never_a_copy() -> None:
    """Spanish and English text whose meaning vectors agree: translation; the same
    vectors between two Spanish pages of different text are not."""
    english = (
        "# Install\n\nCreate a virtual environment with Python, then install the package"
        " with pip and check the command answers with its version."
    )
    found = compare(_sig("es", INSTALL, [1, 0, 0]), _sig("en", english, [0.99, 0.1, 0]))
    assert [f.kind for f in found] == ["translation"]
    assert compare(_sig("a", INSTALL, [1, 0, 0]), _sig("b", ROUTES, [0.6, 0.8, 0])) == []


def test_a_different_default_for_one_flag_is_a_conflict_with_both_values() -> None:
    """Two related pages, one says `--port` defaults to 8000, the other 8080."""
    a = INSTALL + "\nEl valor por defecto de `--port` es `8000`.\n"
    b = INSTALL.replace("primero", "antes") + "\nThe `--port` option defaults to `8080`.\n"
    found = {f.kind: f for f in compare(_sig("a", a), _sig("b", b))}
    assert set(found) == {"copy", "conflict"}
    assert [p.text for p in found["conflict"].passages] == ["--port = 8000", "--port = 8080"]


def test_claims_are_read_from_assignments_in_code_and_from_default_sentences() -> None:
    """`--workers=4` in a fence, `PORT=80` in a span, a YAML key, a default sentence."""
    text = (
        "```bash\nserve --workers=4\n```\n\nSet `PORT=80`.\n\n"
        "```yaml\nlog_level: info\n```\n\n`timeout` defaults to 30 seconds.\n"
    )
    assert claims_of(text) == {
        "--workers": ("4",),
        "port": ("80",),
        "log_level": ("info",),
        "timeout": ("30",),
    }


def test_a_signature_survives_the_store_codec() -> None:
    """Encoded and decoded, a signature compares as before (vector kept to float16)."""
    sig = _sig("a", INSTALL + "\n`--port` defaults to `8000`.", [0.6, 0.8, 0.0])
    back = codec.signature_from(codec.stored_signature(sig))
    assert back is not None
    assert np.array_equal(back.minhash, sig.minhash)
    assert back.claims == sig.claims
    assert len(back.sections) == len(sig.sections)
    assert back.vector is not None
    assert np.allclose(back.vector, [0.6, 0.8, 0.0], atol=1e-3)
    assert codec.stored_signature(sig).bands == tuple(sig.bands())


def test_a_signature_an_older_rule_signed_reads_as_absent() -> None:
    """A stored signature without this rule's ``FORMAT`` decodes to None (signed again),
    so signatures of two rules are never compared with each other."""
    stored = codec.stored_signature(_sig("a", INSTALL, [0.6, 0.8, 0.0]))
    data = json.loads(stored.data)
    for older in ({k: v for k, v in data.items() if k != "format"}, {**data, "format": 1}):
        raw = json.dumps(older).encode()
        assert codec.signature_from(replace(stored, data=raw)) is None


def test_a_page_reworded_around_a_section_it_kept_is_a_copy_not_an_overlap() -> None:
    """Same meaning (cosine 0.99), the prose reworded (few shared phrases) but one
    section kept whole: a reworded copy of the page, not a section restated elsewhere."""
    rng = random.Random(3)
    vocabulary = [f"palabra{i}" for i in range(2000)]

    def prose(n: int) -> str:
        return " ".join(rng.choice(vocabulary) for _ in range(n)) + "."

    kept = "## Arrancar el servidor\n\n" + INSTALL.split("## Arrancar el servidor\n")[1]
    x = _sig("a", f"# Guía\n\n{prose(1000)}\n\n{kept}", [1, 0, 0])
    y = _sig("b", f"# Guía\n\n{prose(1000)}\n\n{kept}", [0.99, 0.1, 0])
    assert similarity(x.minhash, y.minhash) < Thresholds().copy_meaning_text  # few phrases
    assert [f.kind for f in compare(x, y)] == ["copy"]


def _prose(rng: random.Random, n: int) -> str:
    vocabulary = [f"palabra{i}" for i in range(2000)]
    return " ".join(rng.choice(vocabulary) for _ in range(n)) + "."


def test_a_short_page_pasted_whole_into_a_long_one_is_an_overlap_not_a_copy() -> None:
    """Most of their shingles agree (the short page is all of the shared text), but the
    long page is twice as long: not the same page, a passage of it restated."""
    rng = random.Random(5)
    host = f"# Despliegue\n\n{_prose(rng, 40)}\n\n## Instalación\n\n{INSTALL.split(chr(10), 2)[2]}"
    x, y = _sig("a", INSTALL), _sig("b", host + f"\n## Notas\n\n{_prose(rng, 60)}\n")
    assert y.words >= 2 * x.words * Thresholds().copy_length
    assert [f.kind for f in compare(x, y)] == ["overlap"]


def test_a_shared_boilerplate_sentence_is_no_overlap() -> None:
    """Two pages of one template share a section of 35 words word for word: long enough
    to be compared (``MIN_SECTION_WORDS``), but under ``overlap_words`` a shared passage
    is boilerplate, not a section restated."""
    rng = random.Random(6)
    boiler = (
        "## Configuración\n\nPuedes configurar este complemento con las opciones del preset"
        " o con las del propio complemento; la mayoría de los usuarios lo configura desde"
        " las opciones del preset, que cubren también los temas.\n"
    )
    x = _sig("a", f"# Uno\n\n{_prose(rng, 120)}\n\n{boiler}")
    y = _sig("b", f"# Dos\n\n{_prose(rng, 120)}\n\n{boiler}")
    shared = x.sections[-1]
    assert MIN_SECTION_WORDS <= shared.words < Thresholds().overlap_words
    assert compare(x, y) == []


def test_one_meaning_reworded_so_no_phrase_is_left_is_a_copy() -> None:
    """No phrase and no section in common: a copy only when the meanings are one
    (``copy_meaning_alone``), not merely near (same-section neighbours sit there)."""
    rng = random.Random(7)
    x = _sig("a", f"# Guía\n\n{_prose(rng, 300)}", [1, 0, 0])
    one = _sig("b", f"# Guía\n\n{_prose(rng, 300)}", [0.995, 0.0999, 0])
    near = _sig("c", f"# Guía\n\n{_prose(rng, 300)}", [0.96, 0.28, 0])
    assert similarity(x.minhash, one.minhash) < Thresholds().copy_meaning_text
    assert [f.kind for f in compare(x, one)] == ["copy"]
    assert compare(x, near) == []


def test_an_object_literal_in_example_code_is_no_claim() -> None:
    """``key: value`` states a setting in a configuration file's fence, not in a
    JavaScript example's object literal; a value's trailing comma is not the value's."""
    text = (
        "```js\nexport default {\n  lang: 'en-US',\n  base: '/docs/',\n}\n```\n\n"
        "```toml\nbase = 1\n```\n\n```yaml\nbase: '/site/',\n```\n"
    )
    assert claims_of(text) == {"base": ("/site/",)}
