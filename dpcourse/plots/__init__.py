"""Figures of the book, one module per chapter; each function returns the matplotlib Figure it drew.

Chapters call these functions once non-interactively (so the figure is in the static book) and again
from an ipywidgets control (so a reader with a kernel can move the parameters).
"""

from .explorer import install_static_style as _install_static_style

_install_static_style()  # the book's figure style: see dpcourse.plots.explorer.install_static_style
