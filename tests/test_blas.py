"""fast/_blas.py: one BLAS thread limit shared by fast.snc and fast.causal."""

from __future__ import annotations
import fast.causal as FC
import fast.snc as FS
from fast import _blas


# ------------------------------------------------------------------------------------------------ the BLAS limit
def test_one_blas_limit_for_snc_and_causal():
    from threadpoolctl import threadpool_info

    import pathlib

    import fast

    assert FC.limit_blas is _blas.limit_blas
    assert not hasattr(FS, "_blas_one_thread") and not hasattr(FC, "_BLAS") and not hasattr(FC, "_blas_limit")
    # one home for the threadpoolctl controller: no other module of fast builds its own
    root = pathlib.Path(fast.__file__).parent
    builders = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                      if "ThreadpoolController(" in p.read_text() and p.name != "_blas.py")
    assert builders == [], builders
    with _blas.limit_blas(1):
        assert all(lib["num_threads"] == 1 for lib in threadpool_info() if lib["user_api"] == "blas")
    assert type(_blas.limit_blas(1, 10, min_size=100)).__name__ == "nullcontext"
    assert type(_blas.limit_blas(None)).__name__ == "nullcontext"
    assert _blas.controller() is _blas.controller()
