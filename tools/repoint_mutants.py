"""Re-point the mutants of ``tools/mutation_test.py`` after code moved between files.

A mutant names a file, an exact text and (when the text is not unique) which occurrence. When a module is split,
the text a mutant targets moves to another file, and the occurrence index may change. This script finds, for every
mutant whose target is no longer where it says, the place it targeted in a reference commit (``--base``, default ``HEAD``), the text around it (a few
lines on each side), and the place in today's tree whose surroundings match best; then it rewrites that mutant's
``path`` (as a literal string) and ``occurrence`` in ``tools/mutation_test.py``. A mutant whose target is no longer
unique in the tree or cannot be found is reported and left as it was (exit status 1).

Usage: ``python tools/repoint_mutants.py [--base REV] [--dry-run]``.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import glob
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tools", "mutation_test.py")
CONTEXT = 6  # lines on each side compared


def _occurrences(text: str, old: str) -> list[int]:
    out, start = [], text.find(old)
    while start >= 0:
        out.append(start)
        start = text.find(old, start + 1)
    return out


def _around(text: str, pos: int, length: int) -> str:
    before = text[:pos].splitlines()[-CONTEXT:]
    after = text[pos + length:].splitlines()[:CONTEXT]
    return "\n".join(before + ["<<TARGET>>"] + after)


def _git_show(base: str, path: str) -> str | None:
    try:
        return subprocess.run(["git", "show", f"{base}:{path}"], cwd=ROOT, check=True, capture_output=True,
                              text=True).stdout
    except subprocess.CalledProcessError:
        return None


def _mutants_in_source(source: str):
    """Yield (call node, name, path node, occurrence keyword node or None) for each ``Mutant(...)`` call."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Mutant":
            occ = next((k for k in node.keywords if k.arg == "occurrence"), None)
            yield node, node.args[0].value, node.args[2], occ


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD", help="the commit the mutants were written against")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv)

    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import mutation_test  # noqa: E402  (the list, with its path constants resolved)

    files = {os.path.relpath(p, ROOT): open(p).read() for p in
             glob.glob(os.path.join(ROOT, "dpcourse", "**", "*.py"), recursive=True)}
    moves, problems = {}, []
    for m in mutation_test.MUTANTS:
        here = files.get(m.path)
        if here is not None:
            count = here.count(m.old)
            if (m.occurrence is None and count == 1) or (m.occurrence is not None and m.occurrence < count):
                continue  # its target is where it says: nothing moved
        base_text = _git_show(args.base, m.path)
        if base_text is None:
            problems.append(f"{m.name}: {m.path} not in {args.base}")
            continue
        where = _occurrences(base_text, m.old)
        index = m.occurrence if m.occurrence is not None else 0
        if index >= len(where):
            problems.append(f"{m.name}: target not found in {m.path} at {args.base}")
            continue
        context = _around(base_text, where[index], len(m.old))
        best = []
        for path, text in files.items():
            for k, pos in enumerate(_occurrences(text, m.old)):
                score = difflib.SequenceMatcher(None, context, _around(text, pos, len(m.old))).ratio()
                best.append((score, path, k, len(_occurrences(text, m.old))))
        if not best:
            problems.append(f"{m.name}: its text is nowhere in dpcourse/ now")
            continue
        best.sort(reverse=True)
        score, path, k, count = best[0]
        if len(best) > 1 and best[1][0] == score:
            problems.append(f"{m.name}: two places match equally well ({best[0][1:3]} and {best[1][1:3]})")
            continue
        occurrence = None if count == 1 else k
        if (path, occurrence) != (m.path, m.occurrence):
            moves[m.name] = (path, occurrence, score)

    source = open(SCRIPT).read()
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def at(lineno, col):
        return offsets[lineno - 1] + len(lines[lineno - 1].encode()[:col].decode())

    edits = []
    for node, name, path_node, occ in _mutants_in_source(source):
        if name not in moves:
            continue
        path, occurrence, _ = moves[name]
        edits.append((at(path_node.lineno, path_node.col_offset), at(path_node.end_lineno, path_node.end_col_offset),
                      repr(path).replace("'", '"')))
        if occ is not None:
            start = at(occ.lineno, occ.col_offset)
            end = at(occ.value.end_lineno, occ.value.end_col_offset)
            edits.append((start, end, f"occurrence={occurrence}" if occurrence is not None else "occurrence=None"))
        elif occurrence is not None:
            end = at(node.end_lineno, node.end_col_offset) - 1  # before the closing parenthesis
            edits.append((end, end, f", occurrence={occurrence}"))
    for start, end, text in sorted(edits, reverse=True):
        source = source[:start] + text + source[end:]
    for name, (path, occurrence, score) in sorted(moves.items()):
        print(f"{name}: -> {path}" + (f" (occurrence {occurrence})" if occurrence is not None else "")
              + (f"  [context match {score:.2f}]" if score < 0.9 else ""))
    for p in problems:
        print("PROBLEM", p)
    print(f"{len(moves)} mutants re-pointed, {len(problems)} problems")
    if not args.dry_run and moves:
        open(SCRIPT, "w").write(source)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
