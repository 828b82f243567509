"""Code paths in prose: extracting the ones an answer cites, and the code index's keys.

Pure functions shared by gate 1 (what an answer cites) and the code-index adapters
(which keys an indexed path answers to): a cited path resolves when its key is one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import quote, unquote, urlsplit

# The contract's list: what makes a multi-segment token a cited code path.
CODE_EXTENSIONS = frozenset(
    {"py", "ts", "tsx", "js", "jsx", "mjs", "cjs", "go", "rs", "java", "kt", "rb"}
    | {"php", "cs", "c", "h", "cc", "cpp", "hpp", "swift", "scala", "sql", "sh"}
)
_EXT = "|".join(sorted(CODE_EXTENSIONS, key=len, reverse=True))
# A candidate is a run of characters between whitespace, quotes, brackets and the other
# delimiters prose and Markdown put around a path; "*" too, so globs never count.
_SPLIT = re.compile(r"[\s`'\"()<>\[\]{}|,;*“”‘’«»]+")
# The path ends at its code extension; a ":line[:col]", ":attr", "#L40" or "?query" after
# it is dropped (the fragment and query of URLs are handled before).
_PATH_END = re.compile(rf"^(?P<path>[^:#?]*?\.(?:{_EXT}))(?:[:#?].*)?$", re.IGNORECASE)
_SEGMENT = re.compile(r"^[\w.@+~$-]+$")
_CODE_SEGMENT = re.compile(rf"\.(?:{_EXT})$", re.IGNORECASE)
_DRIVE = re.compile(r"^[A-Za-z]:/")
# A first segment that is a host name ("example.com/a.py") makes the token a web
# address without a scheme, not a path in a repository.
_DOMAIN = re.compile(
    r"^(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|app|ai|co|edu|gov|info|biz|me|es|de|uk|fr|us"
    r"|ca|au|tv|cloud|site|xyz|tech|ly|gg)$",
    re.IGNORECASE,
)
_LEADING = ("./", "../", "~/", "/")
MAX_PATH = 1024
MAX_SEGMENTS = 64  # deeper is a mistake, and a path's keys must fit one store batch
_BLOB_MARKERS = ("blob", "tree", "raw", "edit", "blame")


def path_problem(path: str) -> str | None:
    """Why ``path`` (normalized) cannot be indexed, or None."""
    if not path:
        return "a path must not be blank"
    if len(path) > MAX_PATH:
        return f"a path has at most {MAX_PATH} characters"
    segments = path.split("/")
    if len(segments) > MAX_SEGMENTS:
        return f"a path has at most {MAX_SEGMENTS} segments"
    if any(s in (".", "..") for s in segments):
        return "a path inside a repository has no '.' or '..' segments"
    if any(ord(c) < 32 or c == "\x7f" for c in path):
        return "a path has no control characters"
    return None


def clean_path(raw: str) -> tuple[str, str | None]:
    """(the normalized path, why it cannot be indexed or None); '../x' leaves the repository."""
    if ".." in raw.replace("\\", "/").split("/"):
        return raw, "a path inside a repository has no '..' segments"
    path = normalize_path(raw)
    return path, path_problem(path)


def normalize_path(path: str) -> str:
    """A repository path as the index stores it: '/' separators, no './' or leading '/'."""
    text = path.strip().replace("\\", "/")
    text = _DRIVE.sub("", text)
    changed = True
    while changed:
        changed = False
        for prefix in _LEADING:
            if text.startswith(prefix):
                text = text[len(prefix) :]
                changed = True
    return re.sub(r"/{2,}", "/", text).rstrip("/")


def path_key(path: str) -> str:
    """The case-insensitive form paths are compared in."""
    return normalize_path(path).casefold()


def suffix_keys(path: str) -> list[str]:
    """Every suffix of ``path`` on a '/' boundary with at least two segments, case-folded.

    ``functions/api/handlers/wiki.py`` -> ``functions/api/handlers/wiki.py``,
    ``api/handlers/wiki.py``, ``handlers/wiki.py``: a cited path resolves exactly when its
    key is among the suffix keys of some indexed path (single segments are never cited).
    """
    segments = path_key(path).split("/")
    return ["/".join(segments[i:]) for i in range(len(segments) - 1)]


def root_name(path: str) -> str | None:
    """The top-level folder of an indexed path, case-folded like ``path_key``; None for a
    file at the repository's root (no cited path starts with one: it has two segments)."""
    segments = path_key(path).split("/")
    return segments[0] if len(segments) > 1 else None


def root_names(paths: Iterable[str]) -> frozenset[str]:
    """The top-level folders of ``paths`` (a repository's roots in the code index)."""
    return frozenset(name for path in paths if (name := root_name(path)) is not None)


def _from_url(token: str) -> str | None:
    """The repository path of a GitHub/GitLab/Bitbucket file URL; None for other URLs."""
    try:
        parts = urlsplit(token if "://" in token else f"https://{token}")
    except ValueError:
        return None
    host = parts.netloc.lower().removeprefix("www.")
    segments = [unquote(s) for s in parts.path.split("/") if s]
    if host == "raw.githubusercontent.com" and len(segments) > 3:
        return "/".join(segments[3:])  # owner/repo/ref/path
    if "-" in segments:  # GitLab: group/…/project/-/blob/ref/path
        at = segments.index("-")
        rest = segments[at + 1 :]
        if len(rest) > 2 and rest[0] in _BLOB_MARKERS:
            return "/".join(rest[2:])
        return None
    if host == "bitbucket.org" and len(segments) > 4 and segments[2] == "src":
        return "/".join(segments[4:])
    if len(segments) > 4 and segments[2] in _BLOB_MARKERS:  # GitHub and look-alikes
        return "/".join(segments[4:])
    return None


def _clean(token: str) -> str | None:
    """The cited path in one candidate token, normalized; None when it cites none."""
    text = token.lstrip("¿¡:!?").rstrip(".,;:!?")
    if not text:
        return None
    lowered = text.lower()
    if "://" in text or lowered.startswith(("github.com/", "gitlab.com/", "bitbucket.org/")):
        url_path = _from_url(text)
        if url_path is None:
            return None
        text = url_path
    text = _DRIVE.sub("", text.replace("\\", "/"))
    match = _PATH_END.match(text)
    if match is None:
        return None
    path = normalize_path(match.group("path"))
    segments = path.split("/")
    if len(segments) < 2 or _DOMAIN.match(segments[0]):
        return None
    for i, segment in enumerate(segments):
        if segment in ("", ".", "..") or not _SEGMENT.match(segment):
            return None
        # "Node.js/Express.js" is prose: a folder named like a code file is not a path.
        if i < len(segments) - 1 and _CODE_SEGMENT.search(segment):
            return None
    stem = segments[-1].rsplit(".", 1)[0]
    return path if stem else None


def cited_paths(text: str) -> list[str]:
    """The distinct code paths ``text`` cites (case-insensitively), first spelling kept."""
    seen: dict[str, str] = {}
    for token in _SPLIT.split(text):
        if "/" not in token and "\\" not in token:
            continue
        path = _clean(token)
        if path is not None:
            seen.setdefault(path.casefold(), path)
    return list(seen.values())


# A code ref naming its repository: ``repo:path`` (not a URL scheme).
_REPO = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.-]{0,99}):(?!//)(.+)$")


def code_href(ref: str, template: str | None) -> str | None:
    """Link of a code ref (``path`` or ``repo:path``, ``#L12`` kept) via the URL template.

    None when no template is set, when the template needs a repository the ref does not
    name, or when the result would not be an http(s) URL.
    """
    if not template or "://" in ref:
        return None
    match = _REPO.match(ref)
    repo, path = (match.group(1), match.group(2)) if match else (None, ref)
    if repo is None and "{repo}" in template:
        return None
    path, _, fragment = path.strip().lstrip("/").partition("#")
    while path.startswith("./"):
        path = path[2:]
    if not path or ".." in path.split("/"):
        return None
    url = template.replace("{repo}", quote(repo or "", safe="")).replace(
        "{path}", quote(path, safe="/")
    )
    if fragment:
        url += "#" + quote(fragment, safe="")
    return url if url.lower().startswith(("https://", "http://")) else None
