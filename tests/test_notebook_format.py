"""Policy: every chapter notebook is stored exactly as Jupyter saves it (issue 22).

Opening a chapter in JupyterLab must not mark it modified, and saving it must not change the file that
strict nbval compares: the file is valid nbformat 4.5 and byte-identical to what ``nbformat.write`` would
store with the kernelspec ipykernel installs. ``python tools/normalize_notebooks.py`` fixes a notebook
that fails (metadata only).
"""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("normalize_notebooks", ROOT / "tools" / "normalize_notebooks.py")
normalize = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(normalize)

NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))


def test_the_kernelspec_is_the_one_ipykernel_installs():
    from ipykernel.kernelspec import get_kernel_dict

    installed = get_kernel_dict()
    assert normalize.KERNELSPEC["display_name"] == installed["display_name"]
    assert normalize.KERNELSPEC["language"] == installed["language"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stored_as_jupyter_saves_it(path):
    text = path.read_text(encoding="utf-8")
    assert text == normalize.normalized(path), (
        f"{path.name} is not stored as Jupyter saves it: run python tools/normalize_notebooks.py {path}")
