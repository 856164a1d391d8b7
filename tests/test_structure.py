"""The shape of the code: modules stay small and nothing is copied between them (docs/architecture.md)."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("solvers", "app")
MAX_LINES = 700
WINDOW = 6  # significant lines
MIN_CHARS = 120  # a window this short is boilerplate (argument lists, returns), not a copied algorithm
TRIVIAL = re.compile(r"^[\s\)\]\}\(\[\{,:]*$")


def _sources() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def _significant(path: Path) -> list[tuple[int, str]]:
    """(line number, normalised text) of the lines that carry code: no blanks, comments, imports, lone brackets."""
    out = []
    for i, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("  #")[0].strip()
        if not line or line.startswith("#") or TRIVIAL.match(line):
            continue
        if line.startswith(("import ", "from ")) and " import " in line + " ":
            continue
        out.append((i, re.sub(r"\s+", " ", line)))
    return out


def copied_blocks() -> list[str]:
    """Windows of WINDOW significant lines found in two different modules."""
    seen: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
    for path in _sources():
        lines = _significant(path)
        for j in range(len(lines) - WINDOW + 1):
            key = tuple(text for _, text in lines[j : j + WINDOW])
            if sum(map(len, key)) >= MIN_CHARS:
                seen[key].append((str(path.relative_to(ROOT)), lines[j][0]))
    found = []
    reported: set[frozenset[str]] = set()
    for where in seen.values():
        files = frozenset(f for f, _ in where)
        if len(files) > 1 and files not in reported:
            reported.add(files)
            found.append(", ".join(f"{f}:{n}" for f, n in where))
    return found


def test_no_module_is_over_the_size_limit() -> None:
    big = {str(p.relative_to(ROOT)): n for p in _sources() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert big == {}, f"split these modules by concern (limit {MAX_LINES} lines): {big}"


def test_no_block_is_copied_between_modules() -> None:
    found = copied_blocks()
    assert found == [], "blocks of 6+ significant lines copied between modules:\n" + "\n".join(found)


def test_the_scanner_finds_a_copy(tmp_path: Path) -> None:
    """The scan is not vacuous: a real block from a kernel, pasted into a second file, is found."""
    src = ROOT / "solvers" / "kernels.py"
    lines = _significant(src)
    assert len(lines) > WINDOW
    block = "\n".join(text for _, text in lines[-WINDOW - 4 :])
    copy = tmp_path / "copy.py"
    copy.write_text(block + "\n")
    keys = {tuple(t for _, t in lines[j : j + WINDOW]) for j in range(len(lines) - WINDOW + 1)}
    pasted = _significant(copy)
    assert any(tuple(t for _, t in pasted[j : j + WINDOW]) in keys for j in range(len(pasted) - WINDOW + 1))


# a slot read by a bare number: the rigid data (solvers.models.rigid_data.RigidData's fields), a method's option
# array (its O_* slots, in the order its pack writes them), the info array (kernels.INFO_*) and a method's work
# array (its fields carved by kernels.carve from the one function that also gives work_size, or named offsets)
BARE_SLOT = re.compile(r"\b(rd|opts|info)\[\d+\]|\bwork\[\d")


def bare_slots(root: Path) -> list[str]:
    return [f"{path.relative_to(root)}:{n}: {line.strip()}"
            for path in sorted(root.rglob("*.py")) for n, line in enumerate(path.read_text().splitlines(), 1)
            if BARE_SLOT.search(line)]


def test_kernels_read_their_slots_by_name() -> None:
    assert bare_slots(ROOT / "solvers") == []


def test_the_slot_scan_finds_a_bare_number(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text("def f(rd, opts, work):\n    m = rd.mass\n    tol = opts[0]\n    R = work[0:9]\n"
                                   "    (r,) = carve(work, fields())\n")
    assert bare_slots(tmp_path) == ["k.py:3: tol = opts[0]", "k.py:4: R = work[0:9]"]


MAX_FUNCTION_LINES = 150  # from `def` to the last line


def function_lengths(root: Path, base: Path) -> dict[str, int]:
    import ast

    out = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                out[f"{path.relative_to(base)}:{node.name}"] = node.end_lineno - node.lineno + 1
    return out


def test_no_method_function_is_over_the_length_limit() -> None:
    over = {name: n for name, n in function_lengths(ROOT / "solvers" / "methods", ROOT).items()
            if n > MAX_FUNCTION_LINES}
    assert over == {}, f"split these functions (limit {MAX_FUNCTION_LINES} lines)"


def test_the_length_scan_counts_a_function(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f():\n" + "    x = 1\n" * 200 + "\n\ndef g():\n    pass\n")
    assert function_lengths(tmp_path, tmp_path) == {"m.py:f": 201, "m.py:g": 2}


# numba's IR inliner copies an inlined function's IR block by block, each block with the whole variable scope of the
# function and of everything inlined into it, so one IR-inlined call costs about the square of the code it brings:
# hermite's IR-inlined step (590 lines with its inlined callees) kept numba's inlining pass busy 37 s of the kernel's
# 101 s compile. A part that inlines more than this is a ``kernels.part`` (LLVM inlines it). Today's largest:
# rattlie's _stage_b, 418.
MAX_INLINED_LINES = 450
# A model function is inlined into every kernel of its machinery (rk4's coords kernel compiled 25 s with the
# 289-line coords.rhs IR-inlined, 14 s with its constraint terms a kernels.part), so it is held to less.
MAX_INLINED_MODEL_LINES = 250


def _ir_inlined(obj: object) -> bool:
    from numba.core.registry import CPUDispatcher

    return isinstance(obj, CPUDispatcher) and obj.targetoptions.get("inline") == "always"


def inlined_lines(disp, outer: tuple = ()) -> int:
    """The source lines an IR-inlined numba function brings into its caller: its own and, recursively, those of every
    IR-inlined function it calls (once per call site: each is a copy)."""
    import ast
    import inspect
    import textwrap

    func = disp.py_func
    node = ast.parse(textwrap.dedent(inspect.getsource(func))).body[0]
    lines = node.end_lineno - node.lineno + 1
    names = {**func.__globals__, **inspect.getclosurevars(func).nonlocals}
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        callee = None
        if isinstance(call.func, ast.Name):
            callee = names.get(call.func.id)
        elif isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name):
            callee = getattr(names.get(call.func.value.id), call.func.attr, None)
        if _ir_inlined(callee) and callee not in outer:
            lines += inlined_lines(callee, (*outer, disp))
    return lines


def _brought_over(packages: list[str], modules: list[str], limit: int) -> dict[str, int]:
    """The IR-inlined functions defined in these modules (and every module of these packages) that bring more than
    ``limit`` lines (inlined_lines), by name."""
    import importlib
    import pkgutil

    for pkg in packages:
        path = importlib.import_module(pkg).__path__
        modules = [*modules, *(f"{pkg}.{info.name}" for info in pkgutil.iter_modules(path))]
    over = {}
    for name in modules:
        for attr, obj in vars(importlib.import_module(name)).items():
            if _ir_inlined(obj) and obj.py_func.__module__ == name and (lines := inlined_lines(obj)) > limit:
                over[f"{name}.{attr}"] = lines
    return over


def test_no_ir_inlined_part_brings_more_than_the_limit() -> None:
    over = _brought_over(["solvers.methods"], [], MAX_INLINED_LINES)
    assert over == {}, f"make these kernels.part, or split them (limit {MAX_INLINED_LINES} inlined lines)"


def test_no_ir_inlined_model_function_brings_more_than_the_limit() -> None:
    over = _brought_over(["solvers.models"], ["solvers.kernels", "solvers.lie", "solvers.linalg"],
                         MAX_INLINED_MODEL_LINES)
    assert over == {}, f"make these kernels.part, or split them (limit {MAX_INLINED_MODEL_LINES} inlined lines)"


def test_the_inlined_count_follows_nested_inlined_calls() -> None:
    from numba import njit

    from solvers import kernels

    @njit(inline="always")
    def leaf(a):
        a[0] += 1.0
        return a[0]

    @njit(inline="always")
    def middle(a):
        leaf(a)
        return leaf(a)

    @kernels.part
    def compiled_apart(a):
        return middle(a)

    @njit(inline="always")
    def top(a):
        compiled_apart(a)
        return middle(a)

    assert inlined_lines(leaf) == 3  # from `def` to the last line
    assert inlined_lines(middle) == 3 + 2 * 3  # two copies of leaf
    assert inlined_lines(top) == 3 + 9  # compiled_apart is LLVM-inlined: not counted
