"""One helper for the tests of the parallel numba kernels (fast/_risk_kernels.py): a context that sets numba's
thread count and the kernels' row-split threshold, so the threaded path runs on tiny inputs."""


def threads(count, min_work):
    """numba threads and the threshold of the row split, for a block (the helper path on tiny inputs)."""
    import contextlib

    import numba

    from fast import _risk_kernels as K

    @contextlib.contextmanager
    def limit():
        previous, threshold = numba.get_num_threads(), K.PARALLEL_MIN_WORK
        numba.set_num_threads(min(count, numba.config.NUMBA_NUM_THREADS))
        K.PARALLEL_MIN_WORK = min_work
        try:
            yield
        finally:
            numba.set_num_threads(previous)
            K.PARALLEL_MIN_WORK = threshold
    return limit()
