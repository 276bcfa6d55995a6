"""No class of the product has more than two bases from the project.

A class made of many project classes (mixins) spreads its state over
modules that each set attributes on one shared ``self``: a reader of one
part cannot tell what the others keep. Parts are objects the class owns
(``TableRunner`` owns its view, bet timer, device feed, notices and remote
hand), and a class takes at most two project bases.

Read from the source (no module is imported): a base counts as the
project's when its name is a class of the same module, or is imported from
``tablesim``, ``drivers`` or ``tablecore`` (``Protocol``, ``Generic``,
``Exception`` and every other outside class do not count).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: every product package
SCANNED = ("tablesim", "drivers", "tablecore")
MAX_PROJECT_BASES = 2


def _project_names(nodes: list[ast.AST]) -> tuple[set[str], set[str]]:
    """(names bound to a project class or module, names of modules only used as ``mod.Class``),
    from every node of a module (``ast.walk``'s)."""
    names: set[str] = {n.name for n in nodes if isinstance(n, ast.ClassDef)}
    modules: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            if node.level > 0 or (node.module or "").split(".")[0] in SCANNED:
                names.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in SCANNED:
                    modules.add(a.asname or a.name.split(".")[0])
    return names, modules


def _is_project(base: ast.expr, names: set[str], modules: set[str]) -> bool:
    if isinstance(base, ast.Subscript):  # Base[T]
        base = base.value
    if isinstance(base, ast.Name):
        return base.id in names
    if isinstance(base, ast.Attribute):
        head = base
        while isinstance(head, ast.Attribute):
            head = head.value
        return isinstance(head, ast.Name) and (head.id in modules or head.id in names)
    return False


def crowded(source: str, where: str = "<source>") -> list[str]:
    """The classes of ``source`` with more than ``MAX_PROJECT_BASES`` project bases."""
    nodes = list(ast.walk(ast.parse(source)))  # (walked once: the walk is most of the test's CPU)
    names, modules = _project_names(nodes)
    out = []
    for node in nodes:
        if isinstance(node, ast.ClassDef):
            ours = [ast.unparse(b) for b in node.bases if _is_project(b, names, modules)]
            if len(ours) > MAX_PROJECT_BASES:
                out.append(f"{where}:{node.lineno} {node.name}({', '.join(ours)})")
    return out


def test_the_count_sees_project_bases_and_only_those():
    source = (
        "from typing import Protocol\n"
        "from tablesim.server.executor import TableThread\n"
        "from tablesim.server import snapshot\n"
        "import tablesim.server.bettimer as bettimer\n"
        "class Mine: pass\n"
        "class Many(TableThread, snapshot.TableView, bettimer.BetTimer): pass\n"
        "class Few(TableThread, Mine, Protocol, Exception): pass\n"
    )
    assert crowded(source) == ["<source>:6 Many(TableThread, snapshot.TableView, bettimer.BetTimer)"]


def test_no_product_class_has_more_than_two_project_bases():
    found = []
    for package in SCANNED:
        for path in sorted((ROOT / package).rglob("*.py")):
            found += crowded(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert found == [], "classes with more than two project bases (own the parts instead):\n" + "\n".join(found)
