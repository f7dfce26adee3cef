"""The games app's import graph, read from the source (AST, so imports inside functions
count too: they are how cycles hide).

- no cycle between modules of ``kondavo/games`` (the services are layered: ``store`` <-
  ``clocks`` <- ``creation`` <- ``moves``/``actions``/``takeback``/``lobby``/``challenge``);
- no module inside ``kondavo/games/services`` imports names from the package ``__init__``
  (it is the façade for callers outside);
- ``selectors`` only read (no ``wire``, services or publishing); ``wire`` sits below the
  services;
- nothing under ``kondavo/games`` imports ``frontend``, ``bots`` or ``rating`` (they build
  on games and reach it through ``kondavo.games.hooks``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "kondavo" / "games"


def _module_name(path: Path, base: Path) -> str:
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, module: str, is_package: bool) -> list[tuple[str, str | None]]:
    """(imported module, imported name or None) for every import in ``tree``, at any depth,
    except under ``if TYPE_CHECKING:``."""
    out: list[tuple[str, str | None]] = []
    package = module if is_package else module.rpartition(".")[0]
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _type_checking_only(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            out.extend((alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            out.extend((base, alias.name) for alias in node.names)
        stack.extend(ast.iter_child_nodes(node))
    return out


def import_graph(package_dir: Path) -> tuple[dict[str, set[str]], dict[str, list[str]]]:
    """(edges between the package's own modules, every imported module name per module)."""
    base = package_dir.parent  # the dotted names start above the outermost package
    while (base / "__init__.py").exists():
        base = base.parent
    files = {_module_name(p, base): p for p in package_dir.rglob("*.py")
             if "migrations" not in p.parts}
    edges: dict[str, set[str]] = {name: set() for name in files}
    imported: dict[str, list[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        pairs = _imports(tree, name, path.name == "__init__.py")
        imported[name] = [mod for mod, _ in pairs]
        for mod, attr in pairs:
            target = f"{mod}.{attr}" if attr and f"{mod}.{attr}" in files else mod
            if target in files and target != name:
                edges[name].add(target)
    return edges, imported


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_checker_finds_a_cycle_through_a_function_level_import(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from pkg.sub.a import f\n")
    (pkg / "sub" / "a.py").write_text("from pkg.sub import b\n\ndef f():\n    return b\n")
    (pkg / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import c\n"
        "def g():\n    from .a import f\n    return f\n")
    (pkg / "c.py").write_text("import pkg.sub.b\n")
    edges, _ = import_graph(pkg)
    assert cycles(edges) == [["pkg.sub.a", "pkg.sub.b"]]
    assert "pkg.c" not in edges["pkg.sub.b"]  # TYPE_CHECKING imports do not count


def test_no_import_cycle_in_games() -> None:
    edges, _ = import_graph(GAMES)
    assert "kondavo.games.services.store" in edges  # the walk found the services
    assert cycles(edges) == []


def test_services_are_layered() -> None:
    edges, _ = import_graph(GAMES)
    services = "kondavo.games.services"
    own = {name: {t for t in targets if t.startswith(services + ".")}
           for name, targets in edges.items() if name.startswith(services + ".")}
    assert own[f"{services}.store"] == set()
    assert own[f"{services}.clocks"] == {f"{services}.store"}
    for name, targets in edges.items():
        if name.startswith(services + "."):
            assert services not in targets, f"{name} imports the services package itself"


@pytest.mark.parametrize("forbidden", ["frontend", "bots", "rating"])
def test_games_does_not_import_the_apps_built_on_it(forbidden: str) -> None:
    _, imported = import_graph(GAMES)
    offenders = sorted(name for name, mods in imported.items()
                       if any(m == forbidden or m.startswith(forbidden + ".") for m in mods))
    assert offenders == []


def test_selectors_only_read_and_wire_is_below_the_services() -> None:
    """Selectors import neither the wire format nor the services nor the publishing;
    ``wire`` shapes from reads and is used by the services, never the other way."""
    edges, _ = import_graph(GAMES)
    games = "kondavo.games"
    reads = edges[f"{games}.selectors"]
    for above in ("wire", "events", "services", "consumers"):
        assert not any(t == f"{games}.{above}" or t.startswith(f"{games}.{above}.")
                       for t in reads), above
    assert not any(t.startswith(f"{games}.services") for t in edges[f"{games}.wire"])
    assert f"{games}.wire" in edges[f"{games}.services.store"]
