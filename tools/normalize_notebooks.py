"""Store every chapter notebook exactly as Jupyter would save it, so that opening one does not mark it modified.

    python tools/normalize_notebooks.py            # rewrite the notebooks that differ (metadata only)
    python tools/normalize_notebooks.py --check    # list them and exit 1 if any (what the test checks)
    python tools/normalize_notebooks.py chapters/14_quantiles.ipynb ...

Why: JupyterLab starts the notebook's kernel and writes that kernel's spec into the notebook's metadata. The
chapters were stored with ``"display_name": "Python 3"`` while ipykernel installs the kernel as
``"Python 3 (ipykernel)"``, so every chapter opened in JupyterLab was marked modified at once, and saving
it changed the file (measured with JupyterLab 4.6.6 in headless Chromium: after setting the display name,
open + save leaves the file byte-identical). The rest of the file already is what nbformat writes
(``nbformat.writes`` + newline, cell ids, nbformat 4.5), and stays so: this tool changes only the kernelspec
and re-serialises with nbformat; outputs, cell ids and execution counts are kept as they are.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
#: The kernelspec ipykernel installs (``jupyter kernelspec list``), which JupyterLab writes on opening.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def normalized(path: Path) -> str:
    """The text Jupyter would save for the notebook at ``path`` (validated; only the kernelspec may change)."""
    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    nbformat.validate(nb)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    text = nbformat.writes(nb)
    return text if text.endswith("\n") else text + "\n"   # nbformat.write ends the file with a newline


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: chapters/*.ipynb")
    parser.add_argument("--check", action="store_true", help="only list the notebooks that would change")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "chapters").glob("*.ipynb"))
    changed = []
    for path in paths:
        text = normalized(path)
        if path.read_text(encoding="utf-8") != text:
            changed.append(path)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    verb = "would change" if args.check else "normalised"
    for path in changed:
        print(f"{verb}: {path}")
    print(f"{len(changed)} of {len(paths)} notebooks {verb}")
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
