"""Every file the README points a reader to exists (it once sent contributors to a missing CONVENTIONS.md)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_FILE = re.compile(r"^[\w.-]+(/[\w.-]+)*/?$")
_KNOWN = (".md", ".py", ".yml", ".yaml", ".txt", ".bib", ".css", ".js", ".ipynb", ".toml", ".cfg", "/")


def _readme_targets() -> tuple[list[str], list[str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    prose = re.sub(r"```.*?```", "", text, flags=re.S)  # commands in fenced blocks are not references
    links = [t for t in re.findall(r"\]\(([^)\s]+)\)", prose) if not re.match(r"[a-z]+:", t) and not t.startswith("#")]
    names = [t for t in re.findall(r"`([^`\s]+)`", prose)
             if _FILE.match(t) and len(t) > 1 and "NAME" not in t and (t.endswith(_KNOWN) or "/" in t)
             and not t.startswith("_build/") and not re.fullmatch(r"\.\w+", t)]  # build outputs, extensions
    return links, names


def _exists_somewhere(name: str) -> bool:
    """A bare name in the layout table (``plots/explorer.py``) may be relative to the folder of its row."""
    folders = [ROOT] + [d for d in ROOT.iterdir() if d.is_dir() and d.name not in ("_build", ".git")]
    folders += [e for d in folders[1:] for e in d.iterdir() if e.is_dir()]
    return any((d / name).exists() for d in folders)


def test_readme_links_point_at_files_that_exist():
    links, names = _readme_targets()
    assert "CONTRIBUTING.md" in links               # the contributor guide is linked, not just named
    missing = [t for t in links if not (ROOT / t.split("#")[0]).exists()]
    assert not missing, f"README links to files that do not exist: {missing}"


def test_files_the_readme_names_exist():
    _, names = _readme_targets()
    assert len(names) >= 20                          # the layout table is read
    missing = [t for t in names if not _exists_somewhere(t)]
    assert not missing, f"README names files that are not in the repository: {missing}"
