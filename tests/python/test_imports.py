"""The Python front end's import graph has no circle.

The modules of python/pldsim and python/pypto are read as source (ast),
not imported, and every import statement counts, also one inside a
function: an import deferred to call time still makes the two modules
depend on each other, only hidden from the interpreter until it fails
half-initialised.  The rule this keeps (docs/architecture.md, "The
package layout"): pypto re-exports what pldsim defines, and pldsim never
imports pypto; inside pldsim each module sits above the ones it imports;
an import inside a function is only for an optional dependency (torch,
numpy).

The façade itself is checked too: a module of python/pypto only imports
pldsim's names and re-exports them (``__all__``, module-level aliases);
a function, class or lambda defined in one fails the test, naming it,
so that new vocabulary goes into pldsim, where the machinery can import
it without importing its façade back."""

from __future__ import annotations

import ast
import os
import unittest
from dataclasses import dataclass

from support import SRC

PYTHON_DIR = os.path.join(SRC, "python")
PACKAGES = ("pldsim", "pypto")
#: what a function may import: the optional dependencies, imported when a
#: program first needs them (torch takes about a second to import, and a
#: program that uses no host tensor never does; numpy comes with torch,
#: for calloc's lazily zeroed pages, values.lazy_zeros)
OPTIONAL = frozenset({"torch", "numpy"})


@dataclass(frozen=True)
class Edge:
    """`importer` imports `target`, at `line` of its file."""

    importer: str
    target: str
    line: int
    in_function: bool

    def __str__(self) -> str:
        where = ", inside a function" if self.in_function else ""
        return f"{self.importer} -> {self.target} (line {self.line}{where})"


def modules(root: str = PYTHON_DIR) -> dict[str, str]:
    """Dotted module name -> file, for every module of the packages."""
    out = {}
    for pkg in PACKAGES:
        for d, dirs, files in os.walk(os.path.join(root, pkg)):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__")
            for f in sorted(files):
                if f.endswith(".py"):
                    parts = os.path.relpath(os.path.join(d, f), root)[:-3].split(os.sep)
                    if parts[-1] == "__init__":
                        parts.pop()
                    out[".".join(parts)] = os.path.join(d, f)
    return out


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _named(node: ast.Import | ast.ImportFrom, importer: str, is_package: bool, known: dict) -> list[str]:
    """The modules an import statement names: `import a.b`, `from a import
    b` (b itself when it is a module), relative forms resolved."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = node.module or ""
    if node.level:
        pkg = importer.split(".") if is_package else importer.split(".")[:-1]
        pkg = pkg[: len(pkg) - (node.level - 1)]
        base = ".".join(pkg + ([node.module] if node.module else []))
    return [base] + [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known]


class _Imports(ast.NodeVisitor):
    """Every import statement of a module, and whether a function holds it."""

    def __init__(self) -> None:
        self.depth = 0
        self.found: list[tuple[ast.Import | ast.ImportFrom, bool]] = []

    def _function(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_Import(self, node: ast.Import) -> None:
        self.found.append((node, self.depth > 0))

    visit_ImportFrom = visit_Import


def import_graph(root: str = PYTHON_DIR) -> tuple[dict[str, list[Edge]], list[Edge]]:
    """The edges between the packages' modules, by importer; and every
    import made inside a function, of any module (for the optional rule)."""
    known = modules(root)
    graph: dict[str, list[Edge]] = {m: [] for m in known}
    deferred: list[Edge] = []
    for importer, path in known.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        visitor = _Imports()
        visitor.visit(tree)
        own = set(_parents(importer))
        for node, in_function in visitor.found:
            named = _named(node, importer, path.endswith("__init__.py"), known)
            if in_function:
                deferred.extend(Edge(importer, n, node.lineno, True) for n in named)
            targets = set(named)
            # importing a.b.c runs a and a.b first; the importer's own
            # packages are running already, unless it names one itself
            targets |= {p for n in named for p in _parents(n) if p not in own}
            for t in sorted(targets):
                if t in known and t != importer:
                    graph[importer].append(Edge(importer, t, node.lineno, in_function))
    return graph, deferred


def circles(graph: dict[str, list[Edge]]) -> list[list[Edge]]:
    """A circle through each back edge a depth-first walk meets (none when
    the graph is acyclic), as the edges that make it up."""
    state: dict[str, int] = {}  # 1 on the walk's path, 2 done
    path: list[Edge] = []
    found: list[list[Edge]] = []

    def walk(m: str) -> None:
        state[m] = 1
        for e in graph[m]:
            if state.get(e.target) == 1:
                start = next((i for i, p in enumerate(path) if p.importer == e.target), len(path))
                found.append([*path[start:], e])
            elif e.target not in state:
                path.append(e)
                walk(e.target)
                path.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            walk(m)
    return found


#: what a statement at the top of a façade module may be: its docstring,
#: imports, and assignments (``__all__``, an alias, ``__getattr__ = ...``)
FACADE_STATEMENTS = (ast.Expr, ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign)


def own_definitions(source: str, path: str) -> list[str]:
    """What a module of the façade defines of its own, by line: each
    function, class or lambda anywhere in it, and each top-level statement
    other than a docstring, an import or an assignment (an ``if`` or a
    ``for`` is logic, which belongs in pldsim)."""
    tree = ast.parse(source, path)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append((node.lineno, f"{type(node).__name__} {node.name}"))
        elif isinstance(node, ast.Lambda):
            found.append((node.lineno, "a lambda"))
    for i, node in enumerate(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue  # named above
        docstring = i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        if not isinstance(node, FACADE_STATEMENTS) or (isinstance(node, ast.Expr) and not docstring):
            found.append((node.lineno, f"a statement ({type(node).__name__})"))
    return [f"{path}:{line}: {what}" for line, what in sorted(found)]


class ImportGraph(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.graph, cls.deferred = import_graph()

    def test_the_graph_is_read(self):
        # a graph read wrong (no modules, no edges) would have no circle either
        self.assertIn("pldsim.config", self.graph)
        self.assertIn("pldsim.state", self.graph)
        targets = {e.target for e in self.graph["pypto.language"]}
        self.assertLessEqual({"pldsim.config", "pldsim.language", "pldsim.values"}, targets)
        self.assertIn("pldsim.ops", {e.target for e in self.graph["pldsim.language"]})
        self.assertGreater(sum(len(v) for v in self.graph.values()), 80)

    def test_no_import_circle(self):
        found = circles(self.graph)
        if found:
            text = "\n".join("circle:\n  " + "\n  ".join(str(e) for e in c) for c in found)
            self.fail(f"the front end's imports go round in a circle:\n{text}")

    def test_pldsim_never_imports_pypto(self):
        back = [str(e) for m, edges in self.graph.items() if m.startswith("pldsim") for e in edges if e.target.startswith("pypto")]
        if back:
            self.fail("pldsim imports its pypto façade back:\n  " + "\n  ".join(back))

    def test_a_function_imports_only_optional_dependencies(self):
        bad = [str(e) for e in self.deferred if e.target.split(".")[0] not in OPTIONAL]
        if bad:
            self.fail(f"imports inside functions, of other than {sorted(OPTIONAL)} (move them to the module's top):\n  " + "\n  ".join(bad))

    def test_pypto_defines_nothing_of_its_own(self):
        facade = {m: p for m, p in modules().items() if m.split(".")[0] == "pypto"}
        self.assertIn("pypto.language", facade)
        self.assertIn("pypto.language.typing", facade)
        found = []
        for m, path in sorted(facade.items()):
            with open(path, encoding="utf-8") as f:
                found += own_definitions(f.read(), os.path.relpath(path, SRC))
        if found:
            self.fail("pypto is pldsim's façade: define these in pldsim and re-export them:\n  " + "\n  ".join(found))

    def test_a_definition_in_the_facade_is_found(self):
        # the check itself: each kind of definition, and what is allowed
        allowed = '"""Doc."""\nfrom pldsim.x import a, b as c\nimport pldsim\nd = a\n__getattr__ = b("m")\n__all__ = ["a", "c"]\n'
        self.assertEqual(own_definitions(allowed, "m.py"), [])
        defined = "def f():\n    pass\nclass C:\n    x = lambda: 0\nif a:\n    import b\nprint(1)\n"
        self.assertEqual(
            own_definitions(defined, "m.py"),
            ["m.py:1: FunctionDef f", "m.py:3: ClassDef C", "m.py:4: a lambda", "m.py:5: a statement (If)", "m.py:7: a statement (Expr)"],
        )

    def test_a_circle_is_found_and_named(self):
        # the check itself: a made-up graph with a circle closed in a function
        g = {
            "a": [Edge("a", "b", 1, False)],
            "b": [Edge("b", "c", 2, False)],
            "c": [Edge("c", "a", 9, True)],
            "d": [Edge("d", "a", 3, False)],
        }
        found = circles(g)
        self.assertEqual(len(found), 1)
        self.assertEqual([str(e) for e in found[0]], ["a -> b (line 1)", "b -> c (line 2)", "c -> a (line 9, inside a function)"])
        self.assertEqual(circles({"a": [Edge("a", "b", 1, False)], "b": []}), [])


if __name__ == "__main__":
    unittest.main()
