"""The help widget's shipped file is the join of its modules, and the join refuses what
would break the one closure or the modules' word on what they use: a module left out of
the order, an import the order does not satisfy, an import missing or unused, a name
declared twice, a global written; the script it makes defines only
``window.BibliotecaWidget`` (run by node in an empty global scope)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from shared.site import widget_build
from shared.site.js_source import code_only, declared_names, used_names
from shared.site.widget_build import ORDER, JoinError, Module, join, load, read_module
from tests.unit.test_js_rules import node_json


def test_the_shipped_widget_is_the_join_of_its_modules() -> None:
    """Stale? Run ``python -m shared.site.widget_build``."""
    assert widget_build.TARGET.read_text(encoding="utf-8") == widget_build.text()


def test_the_check_command_fails_on_a_stale_file_and_passes_on_a_current_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "widget.js"
    monkeypatch.setattr(widget_build, "TARGET", target)
    target.write_text(widget_build.text() + "// edited by hand\n", encoding="utf-8")
    assert widget_build.main(["--check"]) == 1
    assert widget_build.main([]) == 0
    assert widget_build.main(["--check"]) == 0


def test_every_module_of_the_folder_is_in_the_order_and_only_those() -> None:
    assert sorted(m.name for m in load()) == sorted(ORDER)


def test_a_module_missing_from_the_order_is_refused() -> None:
    modules = load()
    with pytest.raises(JoinError, match="extra: not in the join's ORDER"):
        join([*modules, read_module("extra", "export const EXTRA = 1;\n")])
    with pytest.raises(JoinError, match="feedback: in ORDER but no such module"):
        join([m for m in modules if m.name != "feedback"])


def test_a_module_before_a_module_it_imports_is_refused() -> None:
    """``answer`` imports ``feedback``: put first, its names would not exist yet."""
    order = tuple(n for n in ORDER if n != "answer")
    at = order.index("feedback")
    order = (*order[:at], "answer", *order[at:])
    with pytest.raises(JoinError, match=r"answer\.js imports feedback\.js, which ORDER puts after"):
        join(load(), order)


def test_an_import_of_a_name_its_module_does_not_export_is_refused() -> None:
    modules = [
        replace(m, text='import { nothing } from "./dom.js";\n' + m.text) if m.name == "urls" else m
        for m in load()
    ]
    with pytest.raises(JoinError, match=r"urls\.js imports nothing from dom\.js"):
        join([read_module(m.name, m.text) for m in modules])


def _without_import(module: str, name: str) -> list[Module]:
    """The modules, ``module`` with ``name`` taken out of its imports."""
    out = []
    for m in load():
        text = m.text
        if m.name == module:
            text = text.replace(f"{{ {name}, ", "{ ", 1).replace(f", {name} }}", " }", 1)
            assert text != m.text, f"{module}.js does not import {name} as the test expects"
        out.append(read_module(m.name, text))
    return out


@pytest.mark.parametrize(("module", "name"), [("sources", "link"), ("ask", "say")])
def test_a_name_of_another_module_used_without_its_import_is_refused(
    module: str, name: str
) -> None:
    """In the closure it would still work; the module would stop saying what it uses."""
    with pytest.raises(JoinError, match=rf"{module}\.js uses {name} of .* without importing"):
        join(_without_import(module, name))


def test_an_import_never_used_is_refused() -> None:
    modules = [
        read_module(m.name, m.text.replace("el, link }", "el, link, toggle }", 1))
        if m.name == "inline"
        else m
        for m in load()
    ]
    with pytest.raises(JoinError, match=r"inline\.js imports toggle and never uses it"):
        join(modules)


def test_the_scan_reads_code_apart_from_strings_comments_and_regular_expressions() -> None:
    """A quote inside a regular expression, a ``/`` that divides, a name in a string or a
    comment, a property and an object key: only real uses count."""
    code = code_only(
        "const re = /^[`\"']+$/; // el in a comment\n"
        "const half = (a + b) / 2 / c; /* link */\n"
        'say(w.el, "toggle", { format: 1 }, `PREFIX`);\n'
        "return /x/.test(s);\n"
    )
    assert used_names(code) >= {"a", "b", "c", "say", "w", "s", "re", "half"}
    assert used_names(code).isdisjoint({"el", "link", "toggle", "format", "PREFIX"})


def test_the_scan_sees_every_local_declaration() -> None:
    code = code_only(
        "function f(a, b = 1) { const { more, chips: c } = g(); let x; "
        "arr.map((y, z) => y); list.map(q => q); try {} catch (err) {} }"
    )
    assert declared_names(code) >= {"f", "a", "b", "more", "c", "x", "y", "z", "q", "err"}


def test_a_name_declared_by_two_modules_is_refused() -> None:
    """In one closure the second ``const`` would be a SyntaxError on every page."""
    clash = read_module("extra", "const PREFIX = 'x';\n")
    with pytest.raises(JoinError, match="both declare PREFIX"):
        join([*load(), clash], (*ORDER, "extra"))


@pytest.mark.parametrize(
    "line", ["window.leak = 1;", "globalThis['leak'] = 1;", "window.BibliotecaWidget = {};"]
)
def test_a_module_that_writes_a_global_is_refused(line: str) -> None:
    """Only the entry may define the embedding API; no module defines anything else."""
    leaky = read_module("extra", f"export function leak() {{\n  {line}\n}}\n")
    with pytest.raises(JoinError, match=r"extra\.js writes a global"):
        join([*load(), leaky], (*ORDER, "extra"))


@pytest.mark.parametrize("form", ["export default 1;\n", 'import * as dom from "./dom.js";\n'])
def test_an_import_or_export_the_join_cannot_read_is_refused(form: str) -> None:
    with pytest.raises(JoinError, match="the join cannot read"):
        read_module("extra", form)


def test_the_joined_text_has_no_imports_or_exports_and_keeps_every_module() -> None:
    joined = widget_build.text()
    assert "\nimport " not in joined
    assert "\nexport " not in joined
    assert [line for line in joined.splitlines() if line.startswith("// ---- ")] == [
        f"// ---- widget/{name}.js" for name in ORDER
    ]


# The page as the script finds it when it runs from <head> (no body yet): enough of a DOM
# for readConfig. A script leaks a name two ways: a property of the global object (a
# top-level `var` or `function`), or a top-level `const`/`let`/`class`, which is no
# property but every later script sees (and a second copy's would be a SyntaxError); the
# first is read off the global object before and after, the second probed by name.
_HARNESS = """
const vm = require("vm");
const fs = require("fs");
const context = vm.createContext({ URL: URL });
vm.runInContext(`
  globalThis.window = globalThis;
  globalThis.document = {
    currentScript: null, body: null, baseURI: "http://127.0.0.1/docs/",
    documentElement: { lang: "es" },
    querySelectorAll: () => [],
    addEventListener: () => {},
  };
`, context);
const names = () => vm.runInContext("Object.getOwnPropertyNames(globalThis)", context);
const before = new Set(names());
const script = fs.readFileSync(process.argv[1], "utf-8");
vm.runInContext(script, context);
const api = vm.runInContext("window.BibliotecaWidget", context);
let secondCopy = null;
try {
  vm.runInContext(script, context);
} catch (err) {
  secondCopy = err.name;
}
console.log(JSON.stringify({
  added: names().filter((n) => !before.has(n)).sort(),
  keys: api ? Object.keys(api) : null,
  frozen: api ? Object.isFrozen(api) : null,
  secondCopy: secondCopy,
  sameAfterSecondCopy: vm.runInContext("window.BibliotecaWidget", context) === api,
  visible: PROBES.filter((n) => vm.runInContext(`typeof ${n}`, context) !== "undefined"),
}));
"""


def _run(script: str, tmp_path: Path) -> dict[str, object]:
    path = tmp_path / "script.js"
    path.write_text(script, encoding="utf-8")
    probes = sorted({name for m in load() for name in m.declared})
    harness = (
        f"process.argv[1] = {json.dumps(str(path))};\n"
        f"const PROBES = {json.dumps(probes)};\n{_HARNESS}"
    )
    answer = node_json(harness)
    assert isinstance(answer, dict)
    return answer


def test_the_shipped_script_defines_one_frozen_global_and_a_second_copy_does_nothing(
    tmp_path: Path,
) -> None:
    answer = _run(widget_build.TARGET.read_text(encoding="utf-8"), tmp_path)
    assert answer == {
        "added": ["BibliotecaWidget"],
        "keys": ["version", "open", "close", "ask", "renderMarkdown"],
        "frozen": True,
        "secondCopy": None,
        "sameAfterSecondCopy": True,
        "visible": [],
    }


def test_the_global_check_sees_a_script_whose_names_leak(tmp_path: Path) -> None:
    """The same harness on two modules' bodies without the closure: a top-level function
    is a property of the global object, a top-level ``const`` a name every script sees
    (and a second copy of the script fails on it)."""
    modules: list[Module] = load()
    unwrapped = "".join(m.body for m in modules if m.name in ("dom", "urls"))
    answer = _run(unwrapped, tmp_path)
    assert answer["added"] == [
        "el",
        "link",
        "pageUrl",
        "safeHref",
        "sourceUrl",
        "toggle",
        "wikiUrl",
    ]
    assert answer["visible"] == [
        "PREFIX",
        "SLUG",
        "el",
        "link",
        "pageUrl",
        "safeHref",
        "sourceUrl",
        "toggle",
        "wikiUrl",
    ]
    assert answer["secondCopy"] == "SyntaxError"
