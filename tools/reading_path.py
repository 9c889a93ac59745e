"""The first-reading path of each chapter, measured: words, pictures, quizzes, deeper sections, terms.

    python tools/reading_path.py            # a table over every chapter (the numbers issue 37 asks for)

A chapter's *first-reading path* is its prose from the top to the heading "Exercises", leaving out deeper
sections (a heading "Deeper: ..." down to the next heading of the same or a higher level), collapsed blocks
(``:class: dropdown``, ``{toggle}``), quizzes, and what is not prose: code, math, directive options, tables'
rules, MyST roles' targets. ``tests/test_reading_path.py`` holds every chapter to the conventions with these
numbers; the glossary (``glossary.md``) is what the term-order test reads.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_FENCE_OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\s*(?:\{(?P<kind>[\w:-]+)\})?(?P<arg>.*)$")


@dataclass
class Block:
    """A piece of a chapter in reading order: prose (markdown), code, or a directive, and where it sits."""

    cell: int
    kind: str          # "prose", "code", "image", "explorer", "quiz", "directive:<name>"
    text: str
    deeper: bool
    exercises: bool    # at or after the heading "Exercises"
    collapsed: bool = False


@dataclass
class Chapter:
    path: Path
    blocks: list[Block] = field(default_factory=list)

    @property
    def stem(self) -> str:
        return self.path.stem

    def first_path(self) -> list[Block]:
        return [b for b in self.blocks if not b.deeper and not b.exercises and not b.collapsed]

    def first_path_prose(self) -> str:
        return "\n".join(b.text for b in self.first_path() if b.kind == "prose")


def chapter_order() -> list[Path]:
    """The chapters' notebooks in the book's reading order (from ``_toc.yml``)."""
    toc = (ROOT / "_toc.yml").read_text()
    return [ROOT / f"{m}.ipynb" for m in re.findall(r"file:\s*(chapters/\S+)", toc)]


def _strip_markup(text: str) -> str:
    """Prose only: no math, inline code, role targets, link targets, HTML tags or table rules."""
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"\$[^$\n]+\$", " FORMULA ", text)
    text = re.sub(r"``[^`]+``|`[^`\n]+`", lambda m: " CODE " if not m.group(0).startswith("`{") else m.group(0), text)
    text = re.sub(r"\{[\w:-]+\}`([^`<]*?)(?:<[^>]*>)?`", r"\1", text)   # {term}`text <target>` -> text
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"</?[A-Za-z][^<>\n]*>", " ", text)                   # HTML tags (not "δ < 1 ... >")
    text = re.sub(r"^\s*:[\w-]+:.*$", " ", text, flags=re.M)          # directive options
    text = re.sub(r"^\s*\|?[-:| ]+\|?\s*$", " ", text, flags=re.M)    # table rules
    return text


def words(text: str) -> int:
    return len(re.findall(r"[A-Za-z\u00C0-\u024F\u0370-\u03FF][\w'’-]*", _strip_markup(text)))


def code_words(text: str) -> int:
    return len(re.findall(r"[A-Za-z_]\w*|\d+(?:\.\d+)?", text))


def read_chapter(path: Path) -> Chapter:
    nb = json.loads(Path(path).read_text())
    ch = Chapter(Path(path))
    deeper_level = None      # the level of the open "Deeper:" heading
    exercises = False
    for i, cell in enumerate(nb["cells"]):
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code":
            ch.blocks.append(Block(i, "code", src, deeper_level is not None, exercises))
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                if "image/png" in data or "image/svg+xml" in data:
                    ch.blocks.append(Block(i, "image", "", deeper_level is not None, exercises))
                elif "dpcourse-explorer" in "".join(data.get("text/html", "")):
                    ch.blocks.append(Block(i, "explorer", "", deeper_level is not None, exercises))
            continue
        if cell["cell_type"] != "markdown":
            continue
        lines = src.split("\n")
        k, prose = 0, []

        def flush():
            if prose:
                ch.blocks.append(Block(i, "prose", "\n".join(prose), deeper_level is not None, exercises))
                prose.clear()

        while k < len(lines):
            line = lines[k]
            m = _HEADING.match(line)
            if m:
                flush()
                level, title = len(m[1]), m[2].strip()
                if deeper_level is not None and level <= deeper_level:
                    deeper_level = None
                if title.startswith("Deeper:"):
                    deeper_level = level
                if re.match(r"(\d+(\.\d+)*\s+)?Exercises\b", title):
                    exercises = True
                ch.blocks.append(Block(i, "prose", title, deeper_level is not None, exercises))
                k += 1
                continue
            f = _FENCE_OPEN.match(line)
            if f and (f["kind"] or f["fence"].startswith("`")):
                flush()
                fence, kind = f["fence"], f["kind"] or "code"
                j, depth = k + 1, 0
                while j < len(lines):
                    s = lines[j].strip()
                    if s == fence and depth == 0:
                        break
                    if s.startswith(fence[0] * 3) and len(s) > 3 and s.lstrip(fence[0])[:1] in "{":
                        depth += 1
                    elif s == fence[0] * len(s) and len(s) >= 3 and depth > 0:
                        depth -= 1
                    j += 1
                body = "\n".join(lines[k + 1:j])
                collapsed = bool(re.search(r":class:\s*.*\bdropdown\b", body)) or kind in ("toggle", "dropdown")
                name = "quiz" if kind == "quiz" else ("code" if kind == "code" else f"directive:{kind}")
                text = (f["arg"] + "\n" + body) if name != "code" else body
                ch.blocks.append(Block(i, name, text, deeper_level is not None, exercises,
                                       collapsed=collapsed or kind in ("solution", "solution-start")))
                k = j + 1
                continue
            prose.append(line)
            k += 1
        flush()
    return ch


def directive_prose(ch: Chapter, *, include=("prf:", "admonition", "note", "tip", "important", "warning",
                                              "figure", "exercise")) -> str:
    """Prose inside the first path's directives (definitions, theorems, proofs, notes): it is read too."""
    out = []
    for b in ch.first_path():
        if b.kind.startswith("directive:") and any(b.kind[10:].startswith(p) for p in include):
            out.append(b.text)
    return "\n".join(out)


def stats(ch: Chapter) -> dict:
    first = ch.first_path()
    prose = ch.first_path_prose() + "\n" + directive_prose(ch)
    code = "\n".join(b.text for b in first if b.kind == "code")
    return {
        "chapter": ch.stem,
        "first_path_words": words(prose),
        "prose_per_code_word": round(words(prose) / max(1, code_words(code)), 1),
        "pictures_first_path": sum(b.kind in ("image", "explorer") for b in first),
        "pictures": sum(b.kind in ("image", "explorer") for b in ch.blocks),
        "quizzes": sum(b.kind == "quiz" for b in ch.blocks),
        "deeper_sections": sum(1 for b in ch.blocks if b.kind == "prose" and b.text.startswith("Deeper:")),
    }


def main() -> int:
    rows = [stats(read_chapter(p)) for p in chapter_order()]
    keys = list(rows[0])
    print(" | ".join(keys))
    for r in rows:
        print(" | ".join(str(r[k]) for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
