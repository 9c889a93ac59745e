"""dpcourse: the one trusted implementation of every mechanism, bound and accountant of the course.

Every public function validates its arguments (see :mod:`dpcourse._validation`), takes ``rng=None``
when it is random, and names in its docstring the theorem of the book that proves its guarantee.
Figures live in :mod:`dpcourse.plots` and exercise checkers in :mod:`dpcourse.exercises`; neither is
imported here, so ``import dpcourse`` does not load matplotlib.
"""

from .divergences import hockey_stick, mechanism_epsilon, privacy_loss
from .gaussian import gaussian_delta, gaussian_epsilon
from .laplace import laplace_mechanism
from .randomized_response import rr_count_distribution

__version__ = "0.1.0"
