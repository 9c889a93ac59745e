"""pytest configuration for the whole checkout: the book's figure style, where the book's figures are drawn.

Importing ``dpcourse`` changes no matplotlib setting; the processes that draw the book's figures opt in to its
style (``booktools/static_figures.py``):

* the chapters' kernels: strict nbval starts one per notebook, with this process's environment, to which
  ``kernel_environment`` adds ``MATPLOTLIBRC=booktools/matplotlibrc`` and the checkout on ``PYTHONPATH`` while the
  kernel starts (as ``tools/execute_notebooks.py`` does for the kernels whose outputs it stores);
* this process: the tests draw figures as the book does (``install_static_style``).

This file, at the top of the checkout, is read by every pytest run in it (``pytest chapters/NAME.ipynb`` reads
no ``tests/conftest.py``).
"""

import os

import pytest

from booktools.static_figures import install_static_style, kernel_environment

install_static_style()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    """A notebook's kernel starts in the setup of its first cell: with the book's figure style."""
    if type(item.parent).__module__.split(".")[0] != "nbval":
        yield
        return
    saved = {key: os.environ.get(key) for key in ("MATPLOTLIBRC", "PYTHONPATH")}
    os.environ.update(kernel_environment(os.environ))
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
