"""privlearn.reference: slow, readable, pure Python; mirrors each paper's equations one to one.

A reader holding the paper can check every line: loops and sums written as in the paper, ``math.fsum``,
``fractions`` and ``mpmath`` where float64 is not enough.  Same public names and semantics as :mod:`fast`,
against which it is differential-tested (``pytest -m equivalence``).  Not for production use.
"""

from spec import __version__  # noqa: E402  (one version for the three packages of the distribution)
