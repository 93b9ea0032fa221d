"""privlearn.fast: the production package (numpy / numba).

Same public names and semantics as :mod:`reference`, differential-tested against it.  Import the
concept modules directly, e.g. ``from fast import rados`` or ``import fast.rados``.
"""
