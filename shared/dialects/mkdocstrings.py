"""mkdocstrings' ``::: package.module.Object`` rendered at import as an API reference.

The repository's Python source is read with griffe (the library mkdocstrings uses), by
static analysis: the documented code is never imported or run. An object becomes Markdown
in the stored form: a heading ``` `name` { #package.module.Object }``` (the dotted path is
the anchor autorefs link to), its signature as a fenced ``python`` block, its docstring
(Google, NumPy or Sphinx style) as text with parameters, returns and raises as tables,
then its members (attributes, classes, functions, each group in the configured order) the
same way one heading level down. Where the source is absent or griffe cannot load it, a
visible one-line stand-in names the object; a module griffe cannot parse (a
``RecursionError`` on an expression too deep for Python's parser) is left out of its
package alone, its objects get the stand-in and ``Library.unparsed`` names its file.

The directive's options (YAML indented under it), over the configuration's
``plugins.mkdocstrings.handlers.python.options``, over mkdocstrings' defaults:
``members``, ``filters``, ``show_root_heading``, ``heading_level``,
``inherited_members``, ``members_order``, ``docstring_style``, ``show_if_no_docstring``,
``merge_init_into_class``, ``show_submodules``.

Bounds: one directive renders at most ``MAX_OBJECTS`` objects and ``MAX_BYTES`` of
Markdown (the rest is named in a closing line); a package is loaded once per import; once
an import has spent ``TIME_BUDGET`` seconds in griffe, further directives get stand-ins.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import griffe
import yaml

from shared import mkdocs
from shared.dialects import bounded_yaml
from shared.json_value import JsonObject, JsonValue, as_array
from shared.text.slugs import slugify

MAX_OBJECTS = 300  # objects one directive renders
MAX_BYTES = 96 * 1024  # Markdown one directive renders
TIME_BUDGET = 30.0  # seconds one import may spend loading and rendering API references
MAX_VALUE = 120  # characters of an attribute's value shown in its signature

DIRECTIVE = re.compile(r"^(?P<indent>[ \t]{0,3}):::[ \t]+(?P<id>[A-Za-z_][\w.]*)[ \t]*$")
_OPTION_LINE = re.compile(r"^(?:[ \t]{4,}\S|[ \t]*$)")

_DEFAULT_FILTERS = ("!^_[^_]",)


@dataclass(frozen=True, slots=True)
class Options:
    """mkdocstrings-python's options this renderer honours, typed, with mkdocstrings'
    defaults. ``of`` reads them from YAML layers (later ones win) as leniently as
    mkdocstrings: a value of the wrong type is the default or falsy, never an error."""

    show_root_heading: bool = False
    heading_level: int = 2  # 1..6
    members: list[str] | bool | None = None  # a list: those names at the root; False: none
    filters: tuple[str, ...] = _DEFAULT_FILTERS  # regexes, ``!`` negates
    inherited_members: bool | list[str] = False  # True: all; a list: those names
    members_order: str = "alphabetical"  # or "source"
    docstring_style: str = "google"
    show_if_no_docstring: bool = False
    merge_init_into_class: bool = False
    show_submodules: bool = False
    group_by_category: bool = True

    @classmethod
    def of(cls, *layers: Mapping[str, JsonValue]) -> Options:
        raw: dict[str, JsonValue] = {}
        for layer in layers:
            raw.update(layer)
        members = raw.get("members")
        filters = raw.get("filters")
        inherited = raw.get("inherited_members")
        return cls(
            show_root_heading=bool(raw.get("show_root_heading")),
            heading_level=_level(raw.get("heading_level", 2)),
            members=[str(n) for n in members]
            if isinstance(members, list)
            else (False if members is False else None),
            filters=tuple(str(f) for f in filters)
            if isinstance(filters, list)
            else _DEFAULT_FILTERS,
            inherited_members=[str(n) for n in inherited]
            if isinstance(inherited, list)
            else inherited is True,
            members_order=str(raw.get("members_order", "alphabetical")),
            docstring_style=str(raw.get("docstring_style") or "google"),
            show_if_no_docstring=bool(raw.get("show_if_no_docstring")),
            merge_init_into_class=bool(raw.get("merge_init_into_class")),
            show_submodules=bool(raw.get("show_submodules")),
            group_by_category=bool(raw.get("group_by_category", True)),
        )


_STYLES = {"google": griffe.Parser.google, "numpy": griffe.Parser.numpy}
_STYLES["sphinx"] = griffe.Parser.sphinx


@dataclass(frozen=True, slots=True)
class Directive:
    """One ``:::`` line, its options, and the lines of the body it spans."""

    identifier: str
    options: JsonObject  # as the YAML under it says (``Options.of`` reads it)
    start: int
    end: int  # exclusive
    indent: str = ""


def directives(lines: list[str]) -> Iterator[Directive]:
    """The ``:::`` directives of a body's lines (outside code: the caller skips fences),
    each with its indented YAML options block (``options:`` and its mapping)."""
    i = 0
    while i < len(lines):
        match = DIRECTIVE.match(lines[i])
        if match is None:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and _OPTION_LINE.match(lines[end]):
            end += 1
        while end > i + 1 and not lines[end - 1].strip():
            end -= 1
        options = _options("\n".join(lines[i + 1 : end]))
        yield Directive(match.group("id"), options, i, end, match.group("indent"))
        i = end


def _options(text: str) -> JsonObject:
    if not text.strip():
        return {}
    try:
        data = bounded_yaml.load(_dedent(text))
    except yaml.YAMLError:
        return {}
    if not isinstance(data, dict):
        return {}
    options = data.get("options", data)
    return dict(options) if isinstance(options, dict) else {}


def _dedent(text: str) -> str:
    lines = text.split("\n")
    width = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return "\n".join(x[width:] for x in lines)


def handler_options(config: Mapping[str, Any]) -> tuple[JsonObject, list[str]]:
    """The python handler's global options and search paths from a MkDocs configuration."""
    plugins = config.get("plugins")
    entry: Any = None
    if isinstance(plugins, dict):
        entry = plugins.get("mkdocstrings")
    elif isinstance(plugins, list):
        for item in plugins:
            if isinstance(item, dict) and "mkdocstrings" in item:
                entry = item["mkdocstrings"]
    handlers = entry.get("handlers") if isinstance(entry, dict) else None
    handler = handlers.get("python") if isinstance(handlers, dict) else None
    if not isinstance(handler, dict):
        return {}, []
    found = handler.get("options")
    options: JsonObject = dict(found) if isinstance(found, dict) else {}
    paths = handler.get("paths") or as_array(options.get("paths"))
    return options, [str(p) for p in paths if isinstance(p, str)]


# -- loading --------------------------------------------------------------------------------


@dataclass
class Library:
    """The repository's packages as griffe sees them, loaded once per import, on demand."""

    repo: Path
    search_paths: list[Path]
    global_options: JsonObject = field(default_factory=dict)
    spent: float = 0.0
    _packages: dict[str, griffe.Object | None] = field(default_factory=dict)
    _loader: _Loader | None = None
    _rendered: dict[tuple[str, str, str | None], Rendered] = field(default_factory=dict)

    @classmethod
    def of(cls, repo: Path, config: Mapping[str, Any], config_folder: Path | None) -> Library:
        options, paths = handler_options(config)
        base = config_folder or repo
        search = [base / p for p in paths] if paths else [repo / "src", repo]
        return cls(repo, [p for p in search if p.is_dir()], options)

    def rendered(self, directive: Directive, code_link: str | None) -> Rendered:
        """``render`` once per directive and options (the id map and the page share it)."""
        key = (directive.identifier, repr(sorted(directive.options.items())), code_link)
        cached = self._rendered.get(key)
        if cached is None:
            cached = self._rendered[key] = render(directive, self, code_link)
        return cached

    def canonical(self, identifier: str) -> str | None:
        """The path of the object ``identifier`` names once re-exports are followed (a
        member reached through a class re-exported elsewhere too), or None."""
        obj = self.find(identifier)
        target = _target(obj) if obj is not None else None
        return target.path if target is not None and target.path != identifier else None

    def source_path(self, identifier: str) -> str | None:
        """The repository path of the module that holds ``identifier`` (found or guessed
        from the dotted path under the first search path), for a code link."""
        obj = self.find(identifier)
        target = _target(obj) if obj is not None else None
        if target is not None and isinstance(target.filepath, Path):
            try:
                return target.filepath.resolve().relative_to(self.repo.resolve()).as_posix()
            except ValueError:
                return None
        parts = identifier.split(".")
        for cut in range(len(parts) - 1, 0, -1):  # the nearest enclosing object found
            enclosing = self.find(".".join(parts[:cut]))
            if enclosing is not None:
                return self.source_path(enclosing.path)
        base = self.search_paths[0] if self.search_paths else self.repo
        guess = base.joinpath(*parts[:-1]) if len(parts) > 1 else base / parts[0]
        try:
            return f"{guess.resolve().relative_to(self.repo.resolve()).as_posix()}.py"
        except ValueError:
            return None

    def out_of_time(self) -> bool:
        return self.spent > TIME_BUDGET

    def find(self, identifier: str) -> griffe.Object | griffe.Alias | None:
        """The object a dotted path names, following aliases (re-exports), or None."""
        package = identifier.split(".", 1)[0]
        root = self._package(package)
        if root is None:
            return None
        if identifier == package:
            return root
        try:
            found = root[identifier.split(".", 1)[1]]
        except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None
        return found if isinstance(found, (griffe.Object, griffe.Alias)) else None

    def _package(self, name: str) -> griffe.Object | None:
        if name in self._packages:
            return self._packages[name]
        if self._loader is None:
            # griffe logs each docstring it finds odd: the site's readers are not its audience.
            logging.getLogger("griffe").setLevel(logging.ERROR)
            self._loader = _Loader(
                search_paths=[str(p) for p in self.search_paths], allow_inspection=False
            )
        loaded: griffe.Object | None
        try:
            # Only the repository's own source: a package found nowhere there is absent
            # (never the copy installed beside this program).
            if not any(
                (p / name).is_dir() or (p / f"{name}.py").is_file() for p in self.search_paths
            ):
                raise ImportError(name)
            module = self._loader.load(name, try_relative_path=False)
            self._loader.resolve_aliases(implicit=False, external=False)
            loaded = module if isinstance(module, griffe.Object) else None
        except (ImportError, OSError, SyntaxError, griffe.GriffeError, ValueError):
            loaded = None
        self._packages[name] = loaded  # its time counts in the render that asked for it
        return loaded

    def unparsed(self) -> list[tuple[str, str]]:
        """The modules griffe could not parse: each one's file (relative to the
        repository) and why."""
        out: list[tuple[str, str]] = []
        for path, why in self._loader.unparsed.values() if self._loader is not None else ():
            try:
                out.append((path.resolve().relative_to(self.repo.resolve()).as_posix(), why))
            except ValueError:
                out.append((path.as_posix(), why))
        return out

    def unparsed_module(self, identifier: str) -> str | None:
        """The module griffe could not parse that ``identifier`` lives in, or None."""
        if self._loader is None:
            return None
        for dotted in self._loader.unparsed:
            if identifier == dotted or identifier.startswith(dotted + "."):
                return dotted
        return None


class _Loader(griffe.GriffeLoader):
    """griffe's loader, for which a module too deep for Python's parser (a
    ``RecursionError``: ``X = 1 + 1 + …`` over 200,000 terms) is a module that cannot be
    loaded, like one with a syntax error: the package loads without it, not at all
    otherwise (and the import would stop)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.unparsed: dict[str, tuple[Path, str]] = {}

    def _load_module(
        self,
        module_name: str,
        module_path: Path | list[Path],
        *,
        submodules: bool = True,
        parent: griffe.Module | None = None,
    ) -> griffe.Module:
        try:
            return super()._load_module(
                module_name, module_path, submodules=submodules, parent=parent
            )
        except RecursionError as error:
            dotted = f"{parent.path}.{module_name}" if parent is not None else module_name
            path = module_path[0] if isinstance(module_path, list) else module_path
            self.unparsed[dotted] = (path, type(error).__name__)
            raise griffe.LoadingError(f"{dotted} could not be parsed: {error}") from error


# -- rendering ------------------------------------------------------------------------------


@dataclass
class Rendered:
    """A directive's Markdown, the ids it documents with the anchor of each (its heading's
    id; ``""`` for a root shown without a heading: the page itself), and whether the
    object was found."""

    markdown: str
    ids: list[tuple[str, str]] = field(default_factory=list)
    found: bool = True


def render(directive: Directive, library: Library, code_link: str | None = None) -> Rendered:
    """The directive as Markdown, or its one-line stand-in (linked with ``code_link``)."""
    if library.out_of_time():
        return stand_in(directive.identifier, code_link, "not rendered: time budget spent")
    started = time.perf_counter()
    obj = library.find(directive.identifier)
    if obj is None:
        library.spent += time.perf_counter() - started
        unparsed = library.unparsed_module(directive.identifier) is not None
        why = "source not parsed" if unparsed else "source not found"
        return stand_in(directive.identifier, code_link, why)
    writer = _Writer(Options.of(library.global_options, directive.options), library.repo)
    try:
        writer.object(obj, directive.identifier, writer.options.heading_level, root=True)
    except (griffe.AliasResolutionError, griffe.CyclicAliasError, RecursionError):
        pass  # what was written so far stands; the rest is named below
    finally:
        library.spent += time.perf_counter() - started
    if writer.truncated:
        writer.lines += [
            "",
            f"*{writer.truncated} more members of `{directive.identifier}` "
            "are left out of this page.*",
        ]
    text = "\n".join(directive.indent + line if line else "" for line in writer.lines)
    return Rendered(text.strip("\n"), writer.ids)


def stand_in(identifier: str, code_link: str | None, why: str) -> Rendered:
    shown = f"[`{identifier}`]({code_link})" if code_link else f"`{identifier}`"
    return Rendered(f"**API reference:** {shown} ({why}).", [], found=False)


def _level(value: JsonValue) -> int:
    if not isinstance(value, str | int | float):  # a list or a mapping: no level
        return 2
    try:
        return min(max(int(value), 1), 6)
    except (TypeError, ValueError):
        return 2


class _Writer:
    """Markdown lines for one directive, with its bounds."""

    def __init__(self, options: Options, repo: Path) -> None:
        self.options = options
        self.repo = repo
        self.lines: list[str] = []
        self.ids: list[tuple[str, str]] = []
        self.count = 0
        self.size = 0
        self.truncated = 0
        self.parser = _STYLES.get(options.docstring_style)
        self.filters = _filters(options.filters)

    def emit(self, *lines: str) -> None:
        self.lines.extend(lines)
        self.size += sum(len(line) + 1 for line in lines)

    def full(self) -> bool:
        return self.count >= MAX_OBJECTS or self.size >= MAX_BYTES

    def object(
        self, obj: griffe.Object | griffe.Alias, path: str, level: int, root: bool = False
    ) -> None:
        if self.full():
            self.truncated += 1
            return
        self.count += 1
        target = _target(obj)
        show_heading = not root or self.options.show_root_heading
        anchor = path if show_heading else ""
        self.ids.append((path, anchor))
        if target is not None and target.path != path:
            self.ids.append((target.path, anchor))  # the object's own path, re-exported here
        if show_heading:
            # Plain text, no code span: the heading is also a chunk's heading in answers.
            self.emit(f"{'#' * level} {_kind_label(target)}{obj.name} {{ #{path} }}", "")
        if target is None:
            return
        signature = _signature(target, self.options)
        if signature:
            self.emit("```python", signature, "```", "")
        self.docstring(target, path)
        child_level = min(level + 1, 6) if show_heading else level
        for name, member in self.members(target, root):
            self.object(member, f"{path}.{name}", child_level)

    def docstring(self, obj: griffe.Object, path: str) -> None:
        docstring = obj.docstring
        if docstring is None and self.options.merge_init_into_class and obj.is_class:
            init = obj.members.get("__init__")
            docstring = init.docstring if isinstance(init, griffe.Object) else None
        if docstring is None or not docstring.value.strip():
            return
        try:
            sections = docstring.parse(self.parser) if self.parser else []
        except Exception:  # a docstring griffe cannot parse is shown as text
            sections = []
        if not sections:
            self.emit(self.headings(docstring.value.strip(), path), "")
            return
        for section in sections:
            lines = _section(section)
            if section.kind.value == "text":
                lines = [self.headings(line, path) for line in lines]
            self.emit(*lines, "")

    def headings(self, text: str, path: str) -> str:
        """``text`` with its headings' ids (``_heading_ids``), each one an id documented."""
        text = _heading_ids(text, path)
        if "{ #" not in text:
            return text  # most docstrings: no id, and no pattern compiled for this path
        for found in re.finditer(r"\{ #(" + re.escape(path) + r"--[\w.-]*) \}", text):
            self.ids.append((found.group(1), found.group(1)))
        return text

    def members(
        self, obj: griffe.Object, root: bool
    ) -> list[tuple[str, griffe.Object | griffe.Alias]]:
        wanted = self.options.members
        names: list[str] | None = None
        if wanted is False or (isinstance(wanted, list) and not wanted and not root):
            return []
        if isinstance(wanted, list) and root:
            names = wanted
        found: dict[str, griffe.Object | griffe.Alias] = {}
        inherited = self.options.inherited_members
        from_bases: set[str] = set()
        if obj.is_class and inherited:
            try:
                for name, alias in obj.inherited_members.items():
                    if inherited is True or (isinstance(inherited, list) and name in inherited):
                        found[name] = alias
                        from_bases.add(name)
            except (griffe.AliasResolutionError, griffe.CyclicAliasError, ValueError):
                pass
        found.update(obj.members)
        from_bases -= set(obj.members)
        out: list[tuple[str, griffe.Object | griffe.Alias]] = []
        for name, member in found.items():
            if names is not None:
                if name in names:
                    out.append((name, member))
                continue
            if not self.keep(name, member, obj, inherited=name in from_bases):
                continue
            out.append((name, member))
        return self.ordered(out, names)

    def keep(
        self,
        name: str,
        member: griffe.Object | griffe.Alias,
        parent: griffe.Object,
        inherited: bool = False,
    ) -> bool:
        if name == "__init__" and self.options.merge_init_into_class:
            return False
        if not _passes(name, self.filters):
            return False
        if member.is_alias and not inherited:
            # An import is the imported object's page, not this one's, unless exported.
            exports = parent.exports if parent.is_module else None
            if not (exports and name in exports):
                return False
        target = _target(member)
        if target is None:
            return False
        if target.is_module and not self.options.show_submodules:
            return False
        return self.options.show_if_no_docstring or _documented(target)

    def ordered(
        self, members: list[tuple[str, griffe.Object | griffe.Alias]], names: list[str] | None
    ) -> list[tuple[str, griffe.Object | griffe.Alias]]:
        if names is not None:
            return sorted(members, key=lambda m: names.index(m[0]))
        if self.options.members_order == "source":
            members.sort(key=lambda m: _lineno(m[1]))
        else:
            members.sort(key=lambda m: m[0])
        if self.options.group_by_category:
            rank = {"attribute": 0, "class": 1, "function": 2, "module": 3}
            members.sort(key=lambda m: rank.get(_kind(m[1]), 4))
        return members


_DOC_HEADING = re.compile(r"^(#{1,6}[ \t]+)(.+?)[ \t]*$", re.M)


def _heading_ids(text: str, path: str) -> str:
    """A heading inside a docstring gets mkdocstrings' id, ``path--slug`` (``## Named
    colors`` in ``pkg.color`` is ``pkg.color--named-colors``), so links to it work.
    Lines of fenced code are left alone."""
    if "#" not in text:
        return text
    out = []
    for line, code in mkdocs.fenced(text.split("\n")):
        match = None if code or "{ #" in line else _DOC_HEADING.match(line)
        if match:
            line = f"{match.group(1)}{match.group(2)} {{ #{path}--{slugify(match.group(2))} }}"
        out.append(line)
    return "\n".join(out)


def _target(obj: griffe.Object | griffe.Alias) -> griffe.Object | None:
    if isinstance(obj, griffe.Alias):
        try:
            final = obj.final_target
        except (griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None
        return final if isinstance(final, griffe.Object) else None
    return obj


def _kind(obj: griffe.Object | griffe.Alias) -> str:
    target = _target(obj)
    return target.kind.value if target is not None else ""


def _lineno(obj: griffe.Object | griffe.Alias) -> int:
    target = _target(obj)
    return (target.lineno or 0) if target is not None else 0


def _kind_label(obj: griffe.Object | None) -> str:
    """A short word before the name, as mkdocstrings' ``show_symbol_type_heading``."""
    if obj is None:
        return ""
    if obj.is_function:
        return "method " if obj.parent is not None and obj.parent.is_class else "function "
    return {"class": "class ", "attribute": "attribute ", "module": "module "}.get(
        obj.kind.value, ""
    )


def _documented(obj: griffe.Object) -> bool:
    if obj.docstring is not None and obj.docstring.value.strip():
        return True
    if obj.is_class or obj.is_module:
        return any(
            isinstance(m, griffe.Object) and _documented(m)
            for m in list(obj.members.values())[:200]
        )
    return False


def _filters(value: tuple[str, ...]) -> list[tuple[bool, re.Pattern[str]]]:
    """mkdocstrings' filters: regexes a member's name must match; ``!`` negates one."""
    out = []
    for text in value:
        negative = text.startswith("!")
        try:
            out.append((negative, re.compile(text[1:] if negative else text)))
        except re.error:
            continue
    return out


def _passes(name: str, filters: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """As mkdocstrings: the last filter that matches decides; none matching keeps it
    unless only positive filters were given."""
    keep: bool | None = None
    for negative, pattern in filters:
        if pattern.search(name):
            keep = not negative
    if keep is None:
        return any(negative for negative, _ in filters) or not filters
    return keep


def _signature(obj: griffe.Object, options: Options) -> str:
    if isinstance(obj, griffe.Function):
        return _call(f"def {obj.name}", _parameters(obj.parameters), _returns(obj))
    if isinstance(obj, griffe.Class):
        params = ""
        init = obj.members.get("__init__")
        if options.merge_init_into_class and isinstance(init, griffe.Function):
            params = _parameters(init.parameters)
        bases = ", ".join(str(b) for b in obj.bases)
        if params:
            return _call(f"class {obj.name}", params)
        return f"class {obj.name}({bases})" if bases else f"class {obj.name}"
    if isinstance(obj, griffe.Attribute):
        annotation = f": {obj.annotation}" if obj.annotation is not None else ""
        value = str(obj.value) if obj.value is not None else ""
        if len(value) > MAX_VALUE:
            value = value[:MAX_VALUE] + "…"
        return f"{obj.name}{annotation}" + (f" = {value}" if value else "")
    return ""


def _parameters(parameters: griffe.Parameters) -> str:
    parts: list[str] = []
    star = False
    listed = list(parameters)
    if listed and listed[0].name in ("self", "cls"):
        listed = listed[1:]  # as mkdocstrings shows a method: the bound argument is implied
    for p in listed:
        kind = p.kind
        if kind is griffe.ParameterKind.keyword_only and not star:
            parts.append("*")
            star = True
        name = p.name
        if kind is griffe.ParameterKind.var_positional:
            name, star = f"*{name}", True
        elif kind is griffe.ParameterKind.var_keyword:
            name = f"**{name}"
        text = name + (f": {p.annotation}" if p.annotation is not None else "")
        variadic = kind in (griffe.ParameterKind.var_positional, griffe.ParameterKind.var_keyword)
        if p.default is not None and not variadic:
            text += f" = {p.default}" if p.annotation is not None else f"={p.default}"
        parts.append(text)
    return ", ".join(parts)


WRAP = 88  # a longer signature is shown one parameter a line, as Black would write it


def _call(head: str, parameters: str, tail: str = "") -> str:
    if len(head) + len(parameters) + len(tail) + 2 <= WRAP or not parameters:
        return f"{head}({parameters}){tail}"
    inner = "".join(f"    {part},\n" for part in _split_parameters(parameters))
    return f"{head}(\n{inner}){tail}"


def _split_parameters(text: str) -> list[str]:
    """``a: dict[str, int], b`` -> ["a: dict[str, int]", "b"]: commas at bracket depth 0."""
    parts: list[str] = []
    depth, start = 0, 0
    for i, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [part for part in parts if part]


def _returns(obj: griffe.Function) -> str:
    returns = obj.returns
    return f" -> {returns}" if returns is not None else ""


def _cell(text: Any) -> str:
    return " ".join(str(text or "").split()).replace("|", "\\|")


def _section(section: griffe.DocstringSection) -> list[str]:
    kind = section.kind.value
    value = section.value
    if kind == "text":
        return [str(value).strip()]
    if kind == "admonition":
        title = section.title or str(getattr(value, "annotation", "") or "Note").capitalize()
        # Its own paragraph under the label: the description may open with a fence or list.
        return [f"**{title.strip()}:**", "", str(getattr(value, "description", "")).strip()]
    if kind == "examples":
        out = ["**Examples:**", ""]
        for part_kind, text in value:
            if str(getattr(part_kind, "value", part_kind)) == "examples":
                out += ["```pycon", str(text), "```", ""]
            else:
                out += [str(text), ""]
        return out
    if kind == "deprecated":
        return [f"**Deprecated:** {str(getattr(value, 'description', value)).strip()}"]
    title = section.title or kind.replace("_", " ").capitalize()
    items = list(value) if isinstance(value, list) else []
    if not items:
        return []
    if kind in ("parameters", "other_parameters", "attributes", "type_parameters"):
        rows = ["| Name | Type | Description | Default |", "| --- | --- | --- | --- |"]
        for item in items:
            default = getattr(item, "default", None)
            rows.append(
                f"| `{_cell(item.name)}` | {_code(getattr(item, 'annotation', None))} | "
                f"{_cell(item.description)} | {_code(default) if default is not None else ''} |"
            )
        return [f"**{title}:**", "", *rows]
    rows = ["| Type | Description |", "| --- | --- |"]
    for item in items:
        name = getattr(item, "name", "") or ""
        annotation = getattr(item, "annotation", None)
        named = f"`{_cell(name)}`" if name else ""
        shown = _code(annotation) if annotation is not None else named
        rows.append(f"| {shown} | {_cell(getattr(item, 'description', ''))} |")
    return [f"**{title}:**", "", *rows]


def _code(value: Any) -> str:
    text = _cell(value)
    return f"`{text}`" if text else ""
