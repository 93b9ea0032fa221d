"""One BLAS thread limit for all of :mod:`fast`: a cached threadpoolctl controller and :func:`limit_blas`.

Why limit at all: on the shared 2-core machine a multi-threaded OpenBLAS call waits for a descheduled second thread;
small or memory-bound products (per-round gemv of boosting, per-chunk GEMMs of SNC, skinny least squares, the
Cholesky of a 1000 x 1000 kernel) ran 3-20x slower with two threads than with one under load (the reasons are
recorded where each limit is used).  Why one controller: ``threadpoolctl.ThreadpoolController()`` scans the loaded
shared libraries (~0.3 ms); made once per process, a limit then costs ~15-50 us.  The limit is local: restored
on exit of the ``with`` block (threadpoolctl's limits are process-wide while they last).
"""
from __future__ import annotations

import contextlib

__all__ = ["controller", "limit_blas"]

_CONTROLLER = None


def controller():
    """The process's threadpoolctl ``ThreadpoolController``, made on first use.  scipy's BLAS (a separate OpenBLAS
    from numpy's in the wheels) is loaded first, so the controller sees, and limits, both libraries."""
    global _CONTROLLER
    if _CONTROLLER is None:
        import scipy.linalg  # noqa: F401  (loads scipy's OpenBLAS: threadpoolctl sees only loaded libraries)
        from threadpoolctl import ThreadpoolController

        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


def limit_blas(threads=1, size=None, *, min_size=0):
    """A context limiting BLAS to ``threads`` threads, or ``contextlib.nullcontext()`` (BLAS left alone) when
    ``threads`` is None or the work ``size`` (e.g. the entries of the matrix) is below ``min_size``: small calls do
    not repay the context's cost.  ``size=None`` always limits.

    >>> from fast._blas import limit_blas
    >>> with limit_blas(1):
    ...     pass
    >>> type(limit_blas(1, 10, min_size=1 << 16)).__name__
    'nullcontext'
    """
    if threads is None or (size is not None and size < min_size):
        return contextlib.nullcontext()
    return controller().limit(limits=int(threads), user_api="blas")
