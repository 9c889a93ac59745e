"""The book's build tooling: the live figures' states and the static figures' style (not part of ``dpcourse``).

``dpcourse.plots.explorer`` declares a live figure (:func:`dpcourse.plots.explorer.explorer`: a plotting function
and its controls); what draws it for the book lives here, beside the Sphinx extension in ``_ext/`` that calls it,
and is not in the ``dpcourse`` wheel (``pyproject.toml`` packages ``dpcourse*`` only). Importing ``dpcourse``
changes no matplotlib setting; the book's processes opt in to the style (see ``static_figures``).

Modules:

* ``states``: draw every state of a live figure for the build (``draw_state``, ``render_states``), its sizes and
  text alternatives (``page_sizes``, ``state_descriptions``), and ``spec_key`` (the cache key: the spec and the
  source of ``dpcourse`` and of this package).
* ``style``: the book's figure style (``LIVE_STYLE``, ``book_style``: font floor, thinned tick labels, wrapped
  titles).
* ``legends``: legends that cover data (``legends_over_data``), moved to a free corner (``free_legends``) or below
  their axes (``legends_below``).
* ``text_caches``: ``shared_text_caches``, which patches private matplotlib internals while figures are drawn
  (shared text caches, cheap tick copies): the same pixels, faster.
* ``describe``: ``describe_figure``, a text alternative of a drawn figure.
* ``static_figures``: the ``figure.hooks`` entry that puts a notebook's figures in the book style when they are
  printed as PNG, ``install_static_style`` (opt in for this process) and ``kernel_environment`` (opt in for the
  kernels that execute the chapters: ``tools/execute_notebooks.py`` and strict nbval, see ``conftest.py``), with
  ``matplotlibrc`` (the same settings as a matplotlib configuration file).
"""
