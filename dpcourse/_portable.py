"""Temporary alias of :mod:`dpcourse.portable` (removed once every import uses the public name)."""
from .portable import *  # noqa: F401,F403
from .portable import _EXP_COEFFS, _INV_LN2, _LN2_HI, _LN2_LO  # noqa: F401
