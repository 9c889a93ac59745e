"""Execute chapter notebooks top to bottom in a fresh kernel and store their outputs, as CONTRIBUTING asks.

It does what ``jupyter execute --inplace`` does, with two differences:

* the kernel client is :class:`dpcourse.homework.kernel.RobustAsyncKernelClient`, which cannot miss a
  kernel's reply (``jupyter execute`` hung in about one run in ten on this project's chapters when the
  machine was loaded: the reply sat in the client's socket and its edge-triggered wake-up was lost);
* each cell has a time limit (``--timeout``, 120 s by default), and a cell that exceeds it, or a kernel
  that dies, is reported with the notebook and the cell's number and first line; the notebook is then
  left as it was.

The kernel draws in the book's figure style: it starts with ``booktools.static_figures.kernel_environment``
(``MATPLOTLIBRC=booktools/matplotlibrc`` and the checkout on ``PYTHONPATH``), as the kernels of strict nbval do
(``conftest.py``), since importing ``dpcourse`` changes no matplotlib setting.

The executed notebook is saved in Jupyter's own format (``tools/normalize_notebooks.py``), so opening it
in JupyterLab does not mark it modified.

Usage (from the repository root, in the project's environment)::

    python tools/execute_notebooks.py chapters/14_quantiles.ipynb [more.ipynb ...] [--timeout 120]

Exit status 0 only if every notebook ran to the end.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def execute(path: Path, timeout: float) -> str | None:
    """Run ``path`` in place; None on success, else a message naming the notebook and the cell."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
    from traitlets.config import Config

    from dpcourse.homework.kernel import CLIENT_CLASS

    nb = nbformat.read(path, as_version=4)
    config = Config()
    config.AsyncKernelManager.client_class = CLIENT_CLASS
    current = {"index": None}

    def on_cell_start(cell, cell_index):
        current["index"] = cell_index

    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", config=config, shutdown_kernel="immediate",
                            resources={"metadata": {"path": str(path.parent)}}, on_cell_start=on_cell_start)
    try:
        client.execute()
    except (CellTimeoutError, DeadKernelError, CellExecutionError) as exc:
        i = current["index"]
        first = nb.cells[i].source.strip().splitlines()[0] if i is not None and nb.cells[i].source.strip() else ""
        code_no = sum(1 for c in nb.cells[:i] if c.cell_type == "code") if i is not None else None
        kind = {CellTimeoutError: f"no answer within {timeout:g} s", DeadKernelError: "the kernel died"}.get(
            type(exc), "the cell raised")
        return f"{path}: code cell {code_no} (nbval's 'Cell {code_no}'), `{first}`: {kind}: {str(exc).splitlines()[0]}"
    nbformat.write(nb, path)
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per cell (default 120)")
    args = parser.parse_args(argv)
    if not 0 < args.timeout <= 3600:
        parser.error("--timeout must be in (0, 3600] seconds")
    sys.path.insert(0, str(ROOT / "tools"))
    sys.path.insert(0, str(ROOT))
    from normalize_notebooks import normalized

    from booktools.static_figures import kernel_environment

    os.environ.update(kernel_environment(os.environ))  # the kernels draw in the book's figure style

    failed = 0
    for nb_path in args.notebooks:
        start = time.monotonic()
        error = execute(nb_path.resolve(), args.timeout)
        if error:
            failed += 1
            print(error, file=sys.stderr)
            continue
        nb_path.write_text(normalized(nb_path), encoding="utf-8")
        print(f"{nb_path}: executed in {time.monotonic() - start:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    sys.exit(main())
