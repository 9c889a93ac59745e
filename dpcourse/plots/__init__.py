"""Figures of the book, one module per chapter; each function returns the matplotlib Figure it drew.

Chapters call these functions once non-interactively (so the figure is in the static book) and again
from an ipywidgets control (so a reader with a kernel can move the parameters).

Importing this package changes no matplotlib setting. The book's figure style (its fonts, its dpi, and the
hook that prints each figure in it) is opted in by the processes that draw the book's figures: see
``booktools/static_figures.py`` in the course repository.
"""
