"""Finding and reading a docs tree's MkDocs configuration as MkDocs itself would merge it.

Real sites split ``mkdocs.yml``: a leaf file ``INHERIT``s a common one (deep merge of
mappings, the child wins, lists and scalars replaced), the nav sits in a file of its own
(``nav: !include nav.yml``, or a sibling ``mkdocs*.yml`` that holds only ``nav``). The rule
that picks the configuration of DIR:

1. look in DIR, then each folder above it (at most ``MAX_UP``), stopping after the folder
   that holds ``.git`` (the repository's top);
2. in a folder, ``mkdocs.yml`` (or ``mkdocs.yaml``) wins; else the ``mkdocs*.yml`` files
   there that are configurations (anything but a lone ``nav``) and that no other one
   ``INHERIT``s: when exactly one such leaf is left it is the configuration (several
   leaves, e.g. an online and an offline build, are ambiguous and none is chosen);
3. the merged configuration has no ``nav``: a single nav-only ``mkdocs*.yml`` beside it
   is the nav.

``repository_root`` is ``--repo``'s default: the configuration's folder, else the nearest
folder above DIR holding ``.git``, else DIR.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import yaml

from shared.dialects import bounded_yaml

MAX_UP = 6  # folders above DIR looked in
MAX_CHAIN = 10  # INHERIT links followed (a cycle stops there)
MAX_CONFIG_BYTES = 1024 * 1024
CONFIG_NAMES = ("mkdocs.yml", "mkdocs.yaml")


@dataclass(frozen=True, slots=True)
class _IncludeTag:
    """A ``!include path`` value, resolved against the file it was written in."""

    path: str


class _Loader(bounded_yaml.BoundedLoader):
    """Safe YAML that reads MkDocs' ``!!python/name:`` and ``!ENV`` tags as nothing and
    keeps ``!include`` (mkdocs-include-yaml, mkdocs-monorepo style) for the reader."""


def _ignore(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> None:
    return None


def _include(loader: yaml.SafeLoader, node: yaml.Node) -> _IncludeTag | None:
    value = loader.construct_scalar(node) if isinstance(node, yaml.ScalarNode) else None
    return _IncludeTag(str(value)) if value else None


_Loader.add_constructor("!include", _include)
_Loader.add_multi_constructor("!", _ignore)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", _ignore)


@dataclass
class Config:
    """The merged configuration, the file it was found as, and what could not be read."""

    path: Path | None = None  # the leaf file (None: no configuration found)
    data: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def folder(self) -> Path | None:
        return self.path.parent if self.path is not None else None

    @property
    def name(self) -> str:
        return self.path.name if self.path is not None else "mkdocs.yml"


def load_yaml(path: Path) -> Any:
    """One YAML file read safely (MkDocs' tags tolerated); raises OSError/YAMLError."""
    if path.stat().st_size > MAX_CONFIG_BYTES:
        raise OSError(f"{path.name} is larger than {MAX_CONFIG_BYTES // 1024} KiB")
    return bounded_yaml.load(path.read_text(encoding="utf-8"), _Loader)


def deep_merge(parent: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    """MkDocs' ``INHERIT`` merge: mappings merged key by key, anything else the child's."""
    out = dict(parent)
    for key, value in child.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def find_config(directory: Path) -> Config:
    """The configuration that governs ``directory`` (the rule in the module docstring)."""
    folder = directory.resolve()
    for _ in range(MAX_UP + 1):
        chosen = _config_in(folder)
        if chosen is not None:
            return read_config(chosen)
        if (folder / ".git").exists() or folder.parent == folder:
            break
        folder = folder.parent
    return Config()


def _config_in(folder: Path) -> Path | None:
    for name in CONFIG_NAMES:
        if (folder / name).is_file():
            return folder / name
    try:
        candidates = sorted(p for p in folder.glob("mkdocs*.y*ml") if p.is_file())
    except OSError:
        return None
    configs: dict[Path, dict[str, Any]] = {}
    for path in candidates:
        try:
            data = load_yaml(path)
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        if isinstance(data, dict) and set(data) - {"nav"}:
            configs[path] = data
    inherited = {
        (path.parent / str(data["INHERIT"])).resolve()
        for path, data in configs.items()
        if isinstance(data.get("INHERIT"), str)
    }
    leaves = [path for path in configs if path.resolve() not in inherited]
    return leaves[0] if len(leaves) == 1 else None


def read_config(path: Path) -> Config:
    """``path`` merged over the chain it ``INHERIT``s, ``!include`` values read in."""
    config = Config(path=path)
    chain: list[tuple[Path, dict[str, Any]]] = []
    current: Path | None = path
    seen: set[Path] = set()
    while current is not None and len(chain) < MAX_CHAIN:
        resolved = current.resolve()
        if resolved in seen:
            config.warnings.append(f"{current.name}: INHERIT cycle stopped")
            break
        seen.add(resolved)
        try:
            data = load_yaml(current)
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            config.warnings.append(f"{current.name} could not be read: {text}")
            break
        if not isinstance(data, dict):
            break
        data = _resolved_includes(data, current.parent, config.warnings, depth=0)
        chain.append((current, data))
        parent = data.pop("INHERIT", None)
        current = current.parent / str(parent) if isinstance(parent, str) else None
    merged: dict[str, Any] = {}
    for _, data in reversed(chain):
        merged = deep_merge(merged, data)
    if "nav" not in merged:
        nav = _nav_file_beside(path)
        if nav is not None:
            merged["nav"] = nav
    config.data = merged
    return config


def _resolved_includes(value: Any, base: Path, warnings: list[str], depth: int) -> Any:
    if isinstance(value, _IncludeTag):
        target = base / value.path
        if depth > 3:
            return None
        try:
            loaded = load_yaml(target)
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            warnings.append(f"!include {value.path} could not be read")
            return None
        # A file included for a key may hold the key itself (``nav:`` at its top).
        if isinstance(loaded, dict) and len(loaded) == 1:
            loaded = next(iter(loaded.values()))
        return _resolved_includes(loaded, target.parent, warnings, depth + 1)
    if isinstance(value, dict):
        return {k: _resolved_includes(v, base, warnings, depth) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolved_includes(v, base, warnings, depth) for v in value]
    return value


def _nav_file_beside(path: Path) -> list[Any] | None:
    """The ``nav`` of the one ``mkdocs*.yml`` beside ``path`` that holds nothing else."""
    found: list[list[Any]] = []
    for other in sorted(path.parent.glob("mkdocs*.y*ml")):
        if other == path:
            continue
        try:
            data = load_yaml(other)
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        if isinstance(data, dict) and set(data) == {"nav"} and isinstance(data["nav"], list):
            found.append(data["nav"])
    return found[0] if len(found) == 1 else None


def excluded(config: Config, relative_paths: list[str]) -> set[str]:
    """The docs files the config keeps out of the site: MkDocs' ``exclude_docs``
    (gitignore-style lines: ``/a.md`` from the docs folder, ``a.md`` at any depth,
    ``dir/`` a folder, ``!`` brings one back) and the mkdocs-exclude plugin's ``glob``
    list. Paths are relative to the docs folder, posix."""
    rules: list[tuple[bool, str]] = []
    native = config.data.get("exclude_docs")
    if isinstance(native, str):
        for line in native.splitlines():
            text = line.strip()
            if text and not text.startswith("#"):
                rules.append((text.startswith("!"), text.removeprefix("!")))
    plugins = config.data.get("plugins")
    entry = None
    if isinstance(plugins, dict):
        entry = plugins.get("exclude")
    elif isinstance(plugins, list):
        entry = next(
            (p["exclude"] for p in plugins if isinstance(p, dict) and "exclude" in p), None
        )
    globs = entry.get("glob") if isinstance(entry, dict) else None
    if isinstance(globs, list):
        rules += [(False, "/" + str(g).lstrip("/")) for g in globs if isinstance(g, str)]
    if not rules:
        return set()
    out: set[str] = set()
    for path in relative_paths:
        keep = True
        for negated, pattern in rules:
            if _ignored(path, pattern):
                keep = negated
        if not keep:
            out.add(path)
    return out


def _ignored(path: str, pattern: str) -> bool:
    """Whether a gitignore-style ``pattern`` matches ``path`` (posix, relative)."""
    folder = pattern.endswith("/")
    pattern = pattern.rstrip("/")
    anchored = pattern.startswith("/") or "/" in pattern
    pattern = pattern.lstrip("/")
    parts = path.split("/")
    # A folder pattern matches any file below a matching folder; ``**`` crosses folders.
    candidates = ["/".join(parts[:n]) for n in range(1, len(parts) + (0 if folder else 1))]
    if not anchored:
        candidates = [c.rsplit("/", 1)[-1] for c in candidates]
    return any(
        fnmatchcase(c, pattern) or fnmatchcase(c, pattern.replace("**/", "")) for c in candidates
    )


def repository_root(directory: Path, config: Config) -> Path:
    """``--repo``'s default: the config's folder, else the nearest ``.git`` above, else DIR."""
    if config.folder is not None:
        return config.folder
    folder = directory.resolve()
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return directory
