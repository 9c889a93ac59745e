"""A text alternative of a drawn figure (the live figures' ``alt`` text, which changes with each slider setting)."""

from __future__ import annotations

import re

import numpy as np

__all__ = ["describe_figure"]


def _short(x: float) -> str:
    """A number as a reader would say it: 3 significant digits (what the figure's ticks let one read)."""
    if not np.isfinite(x):
        return "∞" if x > 0 else ("−∞" if x < 0 else "undefined")
    return f"{x:.3g}".replace("-", "−")


_TEX_WORDS = {r"\varepsilon": "ε", r"\epsilon": "ε", r"\delta": "δ", r"\Delta": "Δ", r"\mu": "μ",
              r"\sigma": "σ", r"\alpha": "α", r"\beta": "β", r"\rho": "ρ", r"\lambda": "λ", r"\pi": "π",
              r"\theta": "θ", r"\pm": "±", r"\le": "≤", r"\ge": "≥", r"\leq": "≤", r"\geq": "≥",
              r"\times": "×", r"\cdot": "·", r"\infty": "∞", r"\approx": "≈", r"\ln": "ln", r"\log": "log",
              r"\exp": "exp", r"\Pr": "Pr", r"\ell": "ℓ", r"\sqrt": "√", r"\to": "→", r"\mid": "|"}


def _plain(text: str) -> str:
    """A figure's text as a screen reader should say it: mathtext to Unicode, one line."""
    if "$" in text:
        for tex, uni in sorted(_TEX_WORDS.items(), key=lambda kv: -len(kv[0])):
            text = re.sub(re.escape(tex) + r"(?![A-Za-z])", uni, text)
        text = re.sub(r"\\(?:mathrm|mathcal|mathbf|text|operatorname)\{([^}]*)\}", r"\1", text)
        text = text.replace("$", "").replace("{", "").replace("}", "").replace("\\", "")
    return " ".join(text.split())


def describe_figure(fig) -> str:
    """A text alternative of a drawn figure: per panel its title and axes, each labelled curve's range, the
    bars' heights and the panel's own texts (where figures write their key numbers).

    Written for a reader who cannot see the image (the live figures' ``alt`` text changes with each slider
    setting); numbers are rounded to 3 significant digits, as one reads them off a plot.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([0, 1, 2], [0.5, 0.25, 0.125], label="density")
    >>> _ = ax.set(title="Noise", xlabel="x", ylabel="p")
    >>> describe_figure(fig)
    'Noise (x against p): density from 0.5 at x = 0 to 0.125 at x = 2.'
    >>> plt.close(fig)
    """
    from matplotlib.container import BarContainer

    panels = []
    for ax in fig.get_axes():
        if not ax.get_visible() or not (ax.lines or ax.patches or ax.collections or ax.texts or ax.images):
            continue
        parts = []
        head = _plain(ax.get_title()) or "panel"
        xl, yl = _plain(ax.get_xlabel()), _plain(ax.get_ylabel())
        if xl or yl:
            head += f" ({xl or 'x'} against {yl or 'y'})"
        for line in ax.get_lines():
            label = _plain(str(line.get_label()))
            if label.startswith("_"):
                continue
            x, y = (np.asarray(v, dtype=float) for v in line.get_data())
            ok = np.isfinite(x) & np.isfinite(y)
            if not ok.any():
                continue
            x, y = x[ok], y[ok]
            if np.ptp(y) == 0:
                parts.append(f"{label} at {_short(y[0])}")
            else:
                parts.append(f"{label} from {_short(y[0])} at {xl or 'x'} = {_short(x[0])} to {_short(y[-1])} at "
                             f"{xl or 'x'} = {_short(x[-1])}" + (f", largest {_short(y.max())}"
                                                                if y.max() > max(y[0], y[-1]) else ""))
        for container in ax.containers:
            if isinstance(container, BarContainer) and len(container):
                heights = np.array([b.get_height() for b in container], dtype=float)
                label = str(container.get_label())
                name = label if not label.startswith("_") else "bars"
                parts.append(f"{name}: {len(heights)} bars, heights {_short(np.nanmin(heights))} to "
                             f"{_short(np.nanmax(heights))}")
        parts += [_plain(t.get_text()) for t in ax.texts if t.get_visible() and t.get_text().strip()]
        panels.append(head + (": " + "; ".join(parts) if parts else "") + ".")
    return " ".join(panels)
