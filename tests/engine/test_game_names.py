"""No built-in game is named outside its own folder.

A game is one folder under ``tablesim/games/`` and one entry point: the
platform, the server, the studio, the CLI, the harness, the engine and every
layer below ask the registry (``tablesim.games.registry``) and a game's spec
for what differs between games. So a product module outside the games'
folders names none of them in its code: no import of a game's package, no
game's name, table id prefix, title or class as a string or an identifier.

What is counted is code (imports, names, string values); a docstring or a
comment that gives a game as an example is documentation. The one word a
game shares with a device, ``wheel`` (the wheel indicator sensor, a device
kind of ``drivers``), is not counted where it names the device kind: a
string compared with a ``kind``, assigned to one, or listed among the other
device kinds.

The pages' JavaScript outside the games' folders (the player's page, the
console and board, the floor, the words) is counted the same way: a string
that is a game's name, a text or template part with a game's word, title
or table id prefix, an identifier with a game's name. Comments are
documentation; ``wheel`` compared with a ``kind`` names the device kind.
What differs between games comes to the page with the table (the game's
remote view: its scene, its shared hand, its box, its short result).
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

from drivers.registry import KINDS
from tablesim.games import registry

ROOT = Path(__file__).resolve().parents[2]
GAMES_FOLDER = ROOT / "tablesim" / "games"
#: every product package, each layer of the import order
SCANNED = ("tablesim", "drivers", "tablecore")


@functools.cache
def _builtin() -> dict[str, object]:
    return {name: registry.spec(name) for name in registry.BUILTIN}


@functools.cache
def _game_classes(games: tuple[str, ...]) -> frozenset[str]:
    """The classes and functions a built-in game's folder defines with the
    game's name in theirs (``Fortune3Table``, ``WheelConsole``...)."""
    out: set[str] = set()
    for name in games:
        word = re.compile(re.escape(name.rstrip("0123456789")), re.I)
        for path in (GAMES_FOLDER / name).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and word.search(node.name):
                    out.add(node.name)
    return frozenset(out)


class _Finder(ast.NodeVisitor):
    def __init__(self, games: dict, classes: set[str]) -> None:
        self.hits: list[tuple[int, str]] = []
        self.names = set(games)
        self.packages = tuple(f"tablesim.games.{g}" for g in games)
        words = [re.escape(g) for g in games if g not in KINDS]
        words += [re.escape(s.title) for s in games.values()]
        words += [re.escape(s.title.split(" Card")[0]) for s in games.values()]  # "Fortune 3"
        prefixes = [re.escape(s.id_prefix) + "-" for s in games.values()]  # a table id: "F3-DEMO"
        self.in_text = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(words) + r")|(?<![\w-])(" + "|".join(prefixes) + ")",
                                  re.I)
        self.in_name = re.compile("|".join(re.escape(g) for g in games if g not in KINDS), re.I)
        self.classes = classes
        self.quiet: set[int] = set()  # string nodes not counted: docstrings, device kinds

    def hit(self, node: ast.AST, what: str) -> None:
        self.hits.append((getattr(node, "lineno", 0), what))

    def _kinds(self, nodes) -> None:
        """Strings listed among other device kinds name device kinds."""
        strings = [n for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        if sum(s.value in KINDS for s in strings) >= 2:
            self.quiet.update(id(s) for s in strings if s.value in KINDS)

    def visit(self, nodes) -> None:
        """Each node of a tree (``ast.walk``'s list of them, walked once for ``_mark_context``
        too) to its ``visit_`` method: every node is seen, in no order that matters (the hits
        are sorted), without a visitor's recursion and look-up at each node (most of the test's
        CPU: 2.3 -> 1.2 s)."""
        for node in nodes:
            method = _VISITS.get(type(node))
            if method is not None:
                method(self, node)

    def visit_ClassDef(self, node):  # noqa: N802
        self._name(node, node.name)

    def visit_FunctionDef(self, node):  # noqa: N802
        self._name(node, node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    # --- what is counted -------------------------------------------------------------
    def visit_Import(self, node):  # noqa: N802
        for alias in node.names:
            if alias.name.startswith(self.packages):
                self.hit(node, f"import {alias.name}")

    def visit_ImportFrom(self, node):  # noqa: N802
        module = node.module or ""
        if module.startswith(self.packages) or (module == "tablesim.games"
                                                and any(a.name in self.names for a in node.names)):
            self.hit(node, f"from {module} import ...")

    def visit_Constant(self, node):  # noqa: N802
        if isinstance(node.value, str) and id(node) not in self.quiet:
            text = node.value
            if text in self.names or any(p in text for p in self.packages) or self.in_text.search(text):
                self.hit(node, repr(text[:60]))

    def _name(self, node, name: str) -> None:
        if name in self.classes or self.in_name.search(name):
            self.hit(node, name)

    def visit_Name(self, node):  # noqa: N802
        self._name(node, node.id)

    def visit_Attribute(self, node):  # noqa: N802
        self._name(node, node.attr)

    def visit_arg(self, node):  # noqa: N802
        self._name(node, node.arg)

    def visit_keyword(self, node):  # noqa: N802
        if node.arg:
            self._name(node, node.arg)

    def visit_alias(self, node):  # noqa: N802
        self._name(node, node.asname or node.name.rpartition(".")[2])


#: the node types ``_Finder.visit`` hands on, to their methods
_VISITS = {getattr(ast, name[len("visit_"):]): method for name, method in vars(_Finder).items()
           if name.startswith("visit_") and hasattr(ast, name[len("visit_"):])}


def _is_kind(node: ast.AST) -> bool:
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name.lower() in ("kind", "device", "device_kind")


def _product_modules():
    for package in SCANNED:
        for path in sorted((ROOT / package).rglob("*.py")):
            if GAMES_FOLDER in path.parents:
                continue  # the games' own package: the registry and each game's folder
            yield path


def mentions() -> dict[str, list[tuple[int, str]]]:
    games = _builtin()
    classes = _game_classes(tuple(games))
    found = {}
    for path in _product_modules():
        finder = _Finder(games, classes)
        nodes = list(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))
        _mark_context(finder, nodes, device_layer=path.is_relative_to(ROOT / "drivers"))
        finder.visit(nodes)
        if finder.hits:
            found[str(path.relative_to(ROOT))] = sorted(set(finder.hits))
    return found


def _mark_context(finder: _Finder, nodes: list[ast.AST], *, device_layer: bool) -> None:
    """Mark what is not counted before counting (a string's context may come
    after it). In the device layer, which imports nothing of tablesim (its
    import contract), a device kind's word always names the device."""
    for node in nodes:
        if device_layer and isinstance(node, ast.Constant) and node.value in KINDS:
            finder.quiet.add(id(node))
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                finder.quiet.add(id(body[0].value))  # a docstring
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_is_kind(s) for s in sides):
                for side in sides:
                    elements = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                    finder.quiet.update(id(e) for e in elements if isinstance(e, ast.Constant))
        elif isinstance(node, ast.Assign):
            if any(_is_kind(t) for t in node.targets) and isinstance(node.value, ast.Constant):
                finder.quiet.add(id(node.value))
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            finder._kinds(node.elts)
        elif isinstance(node, ast.Dict):
            finder._kinds(node.keys)


def test_no_built_in_game_is_named_outside_its_folder():
    found = mentions()
    listed = "\n".join(f"{path}:{line}: {what}" for path, hits in found.items() for line, what in hits)
    assert sum(len(h) for h in found.values()) == 0, f"built-in games named outside their folders:\n{listed}"


def _count(source: str, device_layer: bool = False) -> list[tuple[int, str]]:
    games = _builtin()
    finder = _Finder(games, _game_classes(tuple(games)))
    nodes = list(ast.walk(ast.parse(source)))
    _mark_context(finder, nodes, device_layer=device_layer)
    finder.visit(nodes)
    return finder.hits


def test_the_count_sees_each_way_of_naming_a_game():
    named = [
        "from tablesim.games.fortune3.hands import classify",
        "import tablesim.games.football.spec",
        "if game == 'wheel': pass",
        "GAMES = ('football', 'fortune3')",
        "TABLE = 'WHEEL-MOCK'",
        "help = 'Remote Fortune 3 decisions'",
        "table = Fortune3Table()",
        "def football_layout(): pass",
    ]
    for line in named:
        assert _count(line), line
    assert _count("x = 'tablesim.games.wheel.machine'")


def test_a_device_kind_or_documentation_is_not_a_game():
    quiet = [
        '"""A docstring that says Fortune 3, as an example."""',
        "if kind != 'wheel': pass",
        "if self.KIND in ('shoe', 'wheel'): pass",
        "KINDS = ('shuffler', 'shoe', 'display', 'wheel')",
        "class Sensor:\n    kind = 'wheel'",
        "x = 'TDL-WHEEL-EMU'",
    ]
    for source in quiet:
        assert not _count(source), source
    assert not _count("FAULTS = {'peg': (('wheel',), ('spin',))}", device_layer=True)
    assert _count("FAULTS = {'peg': (('wheel',), ('spin',))}")  # (outside the device layer: counted)


# --- the pages' JavaScript ---------------------------------------------------------

#: a ``/`` after one of these (or at the start) begins a regular expression, not a division
_REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^") | {"return", "typeof", "case", "in", "of", "delete", "void"}
_COMPARE = ("===", "!==", "==", "!=")


def js_tokens(source: str) -> list[tuple[int, str, str]]:
    """(line, kind, text) of a script's code, comments left out: kind is
    "name" (an identifier), "text" (a string, or a template's literal part:
    its ``${...}`` parts are code), or "op" (anything else)."""
    out: list[tuple[int, str, str]] = []
    i, n, line = 0, len(source), 1
    depth: list[int] = []  # open ``${`` of templates: the brace depth each returns at
    braces = 0

    def last() -> str:
        return out[-1][2] if out and out[-1][1] != "text" else ("" if not out else '"')

    def template(i: int, line: int) -> tuple[int, int]:
        """Reads a template's literal part from ``i`` (after ` or }); stops after ` or at ${."""
        start, chunk = line, []
        while i < n:
            c = source[i]
            if c == "\\":
                chunk.append(source[i:i + 2])
                i += 2
                continue
            if c == "`":
                out.append((start, "text", "".join(chunk)))
                return i + 1, line
            if source.startswith("${", i):
                out.append((start, "text", "".join(chunk)))
                depth.append(braces)
                out.append((line, "op", "${"))
                return i + 2, line
            line += c == "\n"
            chunk.append(c)
            i += 1
        return i, line

    while i < n:
        c = source[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif source.startswith("//", i):
            i = source.find("\n", i)
            i = n if i < 0 else i
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += source.count("\n", i, end)
            i = end
        elif c in "'\"":
            j = i + 1
            while j < n and source[j] != c:
                j += 2 if source[j] == "\\" else 1
            out.append((line, "text", source[i + 1:j]))
            i = j + 1
        elif c == "`":
            i, line = template(i + 1, line)
        elif c == "/" and (not out or last() in _REGEX_AFTER):
            j, in_class = i + 1, False  # a regular expression: read over, not counted
            while j < n and (in_class or source[j] != "/"):
                in_class = (in_class or source[j] == "[") and source[j] != "]"
                j += 2 if source[j] == "\\" else 1
            i = j + 1
            while i < n and source[i].isalpha():
                i += 1
        elif c.isalpha() or c in "_$":
            j = i
            while j < n and (source[j].isalnum() or source[j] in "_$"):
                j += 1
            out.append((line, "name", source[i:j]))
            i = j
        else:
            if c == "{":
                braces += 1
            elif c == "}":
                if depth and depth[-1] == braces:
                    depth.pop()
                    i, line = template(i + 1, line)
                    continue
                braces -= 1
            three = source[i:i + 3]
            op = three if three in ("===", "!==") else source[i:i + 2] if source[i:i + 2] in ("==", "!=") else c
            out.append((line, "op", op))
            i += len(op)
    return out


def js_count(source: str) -> list[tuple[int, str]]:
    games = _builtin()
    finder = _Finder(games, set(_game_classes(tuple(games))))
    # a table id's prefix as a table id writes it (upper case: "F3-DEMO"; a CSS class "wheel-box" is not one)
    prefixes = re.compile(r"(?<![\w-])(" + "|".join(re.escape(s.id_prefix) + "-" for s in games.values()) + ")")
    words = _words()
    tokens = js_tokens(source)
    hits = []
    for k, (line, kind, text) in enumerate(tokens):
        if kind == "name" and (text in finder.classes or finder.in_name.search(text)):
            hits.append((line, text))
        elif kind == "text":
            near = [tokens[j] for j in (k - 2, k - 1, k + 1, k + 2) if 0 <= j < len(tokens)]
            compared_with_kind = (any(t[2] in _COMPARE for t in near)
                                  and any(t[1] == "name" and t[2].lower() in ("kind", "device", "device_kind") for t in near))
            if text in finder.names and not (text in KINDS and compared_with_kind):
                hits.append((line, repr(text)))
            elif words.search(text) or prefixes.search(text):
                hits.append((line, repr(text[:60])))
    return hits


@functools.cache
def _words() -> re.Pattern:
    """The games' words, titles and "Fortune 3" in a text (the device word ``wheel`` not among them)."""
    games = _builtin()
    words = [re.escape(g) for g in games if g not in KINDS]
    words += [re.escape(s.title) for s in games.values()] + [re.escape(s.title.split(" Card")[0]) for s in games.values()]
    return re.compile(r"(?<![A-Za-z0-9])(" + "|".join(words) + ")", re.I)


def _scripts():
    for package in SCANNED:
        for path in sorted((ROOT / package).rglob("*.js")):
            if GAMES_FOLDER not in path.parents:
                yield path


def js_mentions() -> dict[str, list[tuple[int, str]]]:
    found = {}
    for path in _scripts():
        hits = js_count(path.read_text(encoding="utf-8"))
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    return found


def test_no_built_in_game_is_named_in_the_pages_scripts_outside_its_folder():
    scripts = list(_scripts())
    assert any(p.name == "player.js" for p in scripts) and any(p.name == "console.js" for p in scripts)
    found = js_mentions()
    listed = "\n".join(f"{path}:{line}: {what}" for path, hits in found.items() for line, what in hits)
    assert sum(len(h) for h in found.values()) == 0, f"built-in games named in the pages' scripts:\n{listed}"


def test_the_script_count_sees_each_way_of_naming_a_game():
    named = [
        'if (tb.game === "fortune3") x();',
        "const draw = { football, fortune3 }[tb.game];",
        'betName("wheel", symbol);',
        "t(`fortune3.hand.${c}`);",
        'const help = "Remote Fortune 3 decisions";',
        "const table = `F3-DEMO`;",
        'x = `${a}football${b}`;',
        "function football(tb) {}",
    ]
    for source in named:
        assert js_count(source), source


def test_a_scripts_comments_regexes_and_device_kinds_are_not_games():
    quiet = [
        "// Fortune 3: the Ante's even money",
        "/* football's draw */ const x = 1;",
        'const wheel = table.layout.kind === "wheel";',
        'h("div", { class: "wheel-box" }, t("player.wheel"));',
        "t(`${tb.game}.hand.${c}`, null, c);",
        'const s = v.replace(/"fortune3"/g, "");',
        "const u = 'http://x/y'; // fortune3",
    ]
    for source in quiet:
        assert not js_count(source), source


# --- the pages' style sheets and HTML ------------------------------------------------

_PAGE_COMMENT = {"css": re.compile(r"/\*.*?\*/", re.S), "html": re.compile(r"<!--.*?-->|/\*.*?\*/", re.S)}
#: a class or id built from a game's name (``felt-wheel``, ``game_football``): the name its last part
_BUILT = re.compile(r"[A-Za-z][\w-]*?[-_]([A-Za-z][A-Za-z0-9]*)(?![\w-])")
_QUOTED = re.compile(r"""["']([^"'\n]*)["']""")


def page_count(source: str, kind: str) -> list[tuple[int, str]]:
    """A style sheet's (``kind`` "css") or an HTML page's ("html") naming of
    the built-in games, comments left out: a game's word, title or table id
    prefix anywhere (a selector, a value, a text), a quoted value that is a
    game's name, a class or id ending in a game's name (``felt-wheel``: a
    class made from the game). The device word ``wheel`` as a class's first
    part (``wheel-disc``, the spin scene's wheel) names the device."""
    games = _builtin()
    prefixes = re.compile(r"(?<![\w-])(" + "|".join(re.escape(s.id_prefix) + "-" for s in games.values()) + ")")
    code = _PAGE_COMMENT[kind].sub(lambda m: "\n" * m.group(0).count("\n"), source)
    hits: dict[tuple[int, int], str] = {}  # (line, where the name starts) -> what: each naming once
    for number, text in enumerate(code.splitlines(), 1):
        for pattern in (_words(), prefixes):
            hits.update({(number, m.start()): m.group(0) for m in pattern.finditer(text)})
        hits.update({(number, m.start(1)): repr(m.group(1)) for m in _QUOTED.finditer(text) if m.group(1) in games})
        hits.update({(number, m.start(1)): m.group(0) for m in _BUILT.finditer(text) if m.group(1) in games})
    return [(number, what) for (number, _), what in sorted(hits.items())]


def _pages():
    for package in SCANNED:
        for path in sorted([*(ROOT / package).rglob("*.css"), *(ROOT / package).rglob("*.html")]):
            if GAMES_FOLDER not in path.parents:
                yield path


def page_mentions() -> dict[str, list[tuple[int, str]]]:
    found = {}
    for path in _pages():
        hits = page_count(path.read_text(encoding="utf-8"), path.suffix[1:])
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    return found


def test_no_built_in_game_is_named_in_the_pages_style_sheets_or_html_outside_its_folder():
    pages = {p.name for p in _pages()}
    assert {"player.css", "index.html", "style.css", "console.html"} <= pages
    found = page_mentions()
    listed = "\n".join(f"{path}:{line}: {what}" for path, hits in found.items() for line, what in hits)
    assert sum(len(h) for h in found.values()) == 0, f"built-in games named in the pages' CSS and HTML:\n{listed}"


def test_the_page_count_sees_each_way_of_naming_a_game():
    named = [
        (".spots.felt-wheel { grid-template-columns: repeat(7, 1fr); }", "css"),
        (".spots.felt-fortune3 .spot { border-radius: 50%; }", "css"),
        ('body[data-game="football"] .draw { padding: 2px; }', "css"),
        ('.x[data-game="wheel"] { color: red; }', "css"),
        ('<section class="game-football"></section>', "html"),
        ("<h1>Fortune 3 Card Poker</h1>", "html"),
        ('<a href="/table/F3-DEMO">table</a>', "html"),
    ]
    for source, kind in named:
        assert page_count(source, kind), source


def test_a_pages_comments_and_the_device_wheel_are_not_games():
    quiet = [
        ("/* football's spots two to a row */ .spots { gap: 1px; }", "css"),
        (".wheel-box { width: 15rem; } .wheel-disc { filter: none; }", "css"),
        ("<!-- Fortune 3's remote hand --><div id='decide'></div>", "html"),
        ('<div class="wheel-box" data-kind="shoe"></div>', "html"),
    ]
    for source, kind in quiet:
        assert not page_count(source, kind), source
