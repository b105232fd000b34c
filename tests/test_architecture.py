"""Dependencies point one way: core ← storage ← services ← app ← adapters. Walks real imports."""

from __future__ import annotations

import ast
from pathlib import Path

import engram

SRC = Path(engram.__file__).parent

# Lower numbers are deeper. A module may import engram modules of a strictly lower layer, or of
# its own package.
LAYERS = {
    "core": 0,
    "about": 0,
    "errors": 0,
    "clock": 1,  # refuses with `errors`
    "config_env": 0,
    "atomic": 0,
    "process_memory": 0,
    "process_threads": 0,
    "config": 1,
    "storage": 2,
    "embeddings": 2,
    "vault": 2,
    "services": 3,
    "app": 4,
    "api": 5,
    "web": 6,
    "mcp": 7,
    "cli": 8,
    "__init__": 9,
    "__main__": 9,
}


def top(module: str) -> str:
    return module.split(".")[1] if module.count(".") else "__init__"


def engram_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("engram")}
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and node.module
            and node.module.startswith("engram")
        ):
            found.add(node.module)
    return found


def modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC.parent).with_suffix("")
        out.append((".".join(rel.parts), path))
    return out


def test_every_package_has_a_layer() -> None:
    assert {top(name) for name, _ in modules()} <= set(LAYERS)


def test_imports_point_down_the_layers() -> None:
    violations = []
    for name, path in modules():
        mine = top(name)
        for imported in engram_imports(path):
            theirs = top(imported) if imported != "engram" else "__init__"
            if theirs != mine and LAYERS[theirs] >= LAYERS[mine]:
                violations.append(f"{name} imports {imported}")
    assert violations == []


def test_core_is_pure() -> None:
    """No I/O, no wall clock, no SQL in the core."""
    banned = ("sqlite3", "open(", "time.time", "datetime.now", "os.", "pathlib", "requests")
    for path in (SRC / "core").glob("*.py"):
        text = path.read_text()
        for word in banned:
            assert word not in text, f"{path.name} uses {word}"


def test_only_clock_reads_the_wall_clock() -> None:
    for name, path in modules():
        if name == "engram.clock":
            continue
        text = path.read_text()
        assert "datetime.now(" not in text and "time.time()" not in text, name


def test_no_source_file_is_over_600_lines() -> None:
    """Small modules with one concern each (issue 13): a file past 600 lines holds two."""
    long = {name: n for name, path in modules() if (n := len(path.read_text().splitlines())) > 600}
    assert long == {}
