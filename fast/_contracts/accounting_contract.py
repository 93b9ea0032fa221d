"""Result types of ``reference.accounting`` and ``fast.accounting`` (one definition, so both return the same type).

* :class:`Composition`: the (epsilon, delta) of a k-fold composition, a pair that unpacks as ``eps, delta = ...``
  and says which valid bound it is (``bound``: "basic" or "advanced").
"""
from __future__ import annotations

__all__ = ["Composition", "BOUNDS"]

#: the bounds :func:`fast.accounting.advanced_composition` chooses between
BOUNDS = ("basic", "advanced")


class Composition(tuple):
    """(epsilon, delta) of a k-fold composition, and which bound gave it.

    A tuple of two floats (``eps, delta = advanced_composition(...)`` and indexing work as on the plain pair it
    replaces; it compares equal to that pair) with the bound's name in ``bound``:

    * "basic": (k epsilon, k delta), Dwork-Roth Thm 3.16;
    * "advanced": (k eps^2/2 + eps sqrt(2 k log(1/delta')), k delta + delta'), bun2020 Theorem 48.

    Parameters
    ----------
    epsilon, delta : float
        The composed guarantee.
    bound : {"basic", "advanced"}
        Which bound it is.

    Examples
    --------
    >>> c = Composition(1.0, 0.0, "basic")
    >>> eps, delta = c
    >>> (eps, delta, c.bound, c == (1.0, 0.0))
    (1.0, 0.0, 'basic', True)
    >>> c
    Composition(epsilon=1.0, delta=0.0, bound='basic')
    """

    def __new__(cls, epsilon: float, delta: float, bound: str):
        if bound not in BOUNDS:
            raise ValueError(f"bound must be one of {BOUNDS}, got {bound!r}")
        self = super().__new__(cls, (epsilon, delta))
        self.__dict__["bound"] = bound
        return self

    @property
    def epsilon(self) -> float:
        """The composed epsilon."""
        return self[0]

    @property
    def delta(self) -> float:
        """The composed delta."""
        return self[1]

    def __setattr__(self, name, value):
        raise AttributeError(f"Composition is immutable (cannot set {name!r})")

    def __getnewargs__(self):
        return (self[0], self[1], self.bound)

    def __repr__(self) -> str:
        return f"Composition(epsilon={self[0]!r}, delta={self[1]!r}, bound={self.bound!r})"
