"""ImpactEncoder on dask input in the modes the dask path used to refuse (fast/estimators/_distributed_impact.py):
``mode="jackknife"`` training codes, ``target_type="continuous"`` and ``categories="auto"`` (levels read from the
data, non-private).  On the code before, each raised a ValueError at the call ("mode='jackknife' training codes are
not supported with a dask input", "target_type='continuous' is not supported with a dask input", "categories must
be given ... with a dask input"), so every ``test_*_equal*`` / ``*_same_bits*`` / ``*_errors*`` test below fails
there at its first dask fit.

Every test runs on a real 2-worker ``distributed.LocalCluster`` (processes, one thread each), started once for the
module; only merged tables (never the rows) reach the driver through ``fast._dask.compute`` (the spy refuses any
other route a dask array's rows could take).
"""
from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pandas as pd
import pytest

import dask
import dask.dataframe as dd

from _dask_cluster import client, mechanism_spy, spy_compute  # noqa: F401 (fixtures)
from _dask_cluster import forbid_worker_noise as _forbid_worker_noise
from fast import ImpactEncoder
from fast._contracts.privacy_contract import InsecureNoiseWarning

CATS = [["a", "b", "c", "d"], [1, 2, 3]]
PARTS = (1, 3, 7)


def _frame(m=2000, seed=0):
    gen = np.random.default_rng(seed)
    return pd.DataFrame({"row_id": (gen.permutation(m) + 10**9).astype(np.int64),
                         "zip": gen.choice(["a", "b", "c", "d", "zz"], m),  # "zz": outside the public list
                         "city": gen.choice([1, 2, 3], m),
                         "y": gen.choice(["no", "yes"], m),
                         # a numeric outcome over ~30 orders of magnitude, both signs: float sums depend on order
                         "t": gen.normal(size=m) * np.exp(gen.normal(size=m) * 8),
                         "k": gen.integers(-50, 100, m).astype(np.float64)})  # integer-valued: sums exact


def _pair(kw, pdf, nparts, target="y", cols=("row_id", "zip", "city")):
    """(in-memory encoder, its training codes, dask encoder, its computed training codes)."""
    cols = list(cols)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        mem = ImpactEncoder(row_id="row_id", random_state=1, **kw)
        codes = mem.fit_transform(pdf[cols], pdf[target])
        ddf = dd.from_pandas(pdf, npartitions=nparts)
        dist = ImpactEncoder(row_id="row_id", random_state=1, **kw)
        lazy = dist.fit_transform(ddf[cols], ddf[target])
    assert isinstance(lazy, dd.DataFrame)
    return mem, codes, dist, lazy.compute().to_numpy()


def _same_coders(a, b):
    assert len(a.coders_) == len(b.coders_)
    for c1, c2 in zip(a.coders_, b.coders_):
        for f in ("count", "code", "kept", "pooled", "default"):
            assert np.array_equal(getattr(c1, f), getattr(c2, f), equal_nan=True), f


# --------------------------------------------------------------------------- jackknife


@pytest.mark.parametrize("kw", [dict(code="bayes"), dict(code="count"), dict(code="mean", rare_count=30),
                                dict(code="bayes", categories="auto")])
def test_jackknife_training_codes_on_dask_equal_in_memory(client, kw, spy_compute):
    """mode="jackknife" fit_transform on a dask DataFrame: a lazy map of the partitions with the merged all-rows
    table broadcast, equal to the in-memory leave-one-out codes BIT FOR BIT (same coders, same codes) for 1, 3 and
    7 partitions, novel levels ("zz", default code) included.  Only the merged tables reach the driver: the same
    bytes for every partitioning, far below the rows'.  The old code refused the call (ValueError)."""
    pdf = _frame()
    kw = {"classes": ("no", "yes"), "categories": CATS, **kw}
    sizes = []
    for nparts in PARTS:
        spy_compute.clear()
        mem, codes, dist, got = _pair(dict(mode="jackknife", **kw), pdf, nparts)
        _same_coders(mem, dist)
        assert mem.levels_ == dist.levels_
        assert np.array_equal(got, codes)
        out = dist.transform(dd.from_pandas(pdf[["row_id", "zip", "city"]], npartitions=nparts)).compute()
        assert np.array_equal(out.to_numpy(), mem.transform(pdf[["row_id", "zip", "city"]]))
        sizes.append(list(spy_compute))
    assert sizes[0] == sizes[1] == sizes[2]  # the merged tables: independent of the partitioning
    assert max(sizes[0]) < 3000 < pdf.memory_usage(deep=True).sum() // 10


def test_jackknife_private_as_in_memory(client, mechanism_spy):
    """With epsilon the in-memory encoder refuses jackknife TRAINING codes (each subtracts the row's own exact
    outcome) and allows ``fit`` (its coders are the release): the dask path mirrors both exactly -- the same
    ValueError before anything is read or charged, and a fit whose coders equal the in-memory seeded fit for 1, 3
    and 7 partitions, its noise drawn on the driver once per column (none on a worker).  (This mirrors behaviour the
    old code already had for these two calls; it guards it now that non-private jackknife codes run on dask.)"""
    worker_pids = set(client.run(_forbid_worker_noise).values())
    pdf = _frame()
    kw = dict(mode="jackknife", epsilon=1.0, categories=CATS, classes=("no", "yes"), insecure_noise_seed=4)
    cols = ["row_id", "zip", "city"]
    msg = "mode='jackknife' with epsilon set cannot return training codes privately"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        with pytest.raises(ValueError, match=msg):
            ImpactEncoder(row_id="row_id", **kw).fit_transform(pdf[cols], pdf["y"])
        ddf = dd.from_pandas(pdf, npartitions=3)
        with pytest.raises(ValueError, match=msg):
            ImpactEncoder(row_id="row_id", **kw).fit_transform(ddf[cols], ddf["y"])
        assert mechanism_spy == []
        mem = ImpactEncoder(row_id="row_id", **kw).fit(pdf[cols], pdf["y"])
        mechanism_spy.clear()
        for nparts in PARTS:
            ddf = dd.from_pandas(pdf, npartitions=nparts)
            dist = ImpactEncoder(row_id="row_id", **kw).fit(ddf[cols], ddf["y"])
            _same_coders(mem, dist)
            assert dist.privacy_spent_ == mem.privacy_spent_ and dist.accuracy_ == mem.accuracy_
    assert len(mechanism_spy) == 2 * len(PARTS) and {pid for pid, _ in mechanism_spy} == {os.getpid()}
    assert os.getpid() not in worker_pids
    zip_table = mechanism_spy[0][1]  # the exact all-rows table of "zip" over its 4 public levels
    assert zip_table.shape == (4, 2) and zip_table.sum() == (pdf["zip"] != "zz").sum()


# --------------------------------------------------------------------------- continuous target


def _fsum_table(levels, idx, y):
    """The exactly rounded [count, sum y, sum fl(y*y)] per level (math.fsum): what the dask path must give."""
    out = np.zeros((len(levels), 3))
    for lv in range(len(levels)):
        v = y[idx == lv]
        out[lv] = (v.size, math.fsum(v.tolist()), math.fsum((v * v).tolist()))
    return out


def _partial_bound(y, mode, cells):
    """The most bytes the merged continuous partials of columns with ``cells`` (L + 1) cells per group can hold:
    int64 counts per cell and one int64 triple per (cell, binary exponent) of y and of y^2 -- a function of the
    levels, groups and exponent range, not of the row count (plus 1000 bytes of Python objects)."""
    k = {"cross": 5, "split": 2}.get(mode, 1)
    v = y.to_numpy()
    exps = [np.unique(np.frexp(w[w != 0])[1]).size for w in (v, v * v)]
    return sum(8 * k * c + 24 * k * c * sum(exps) for c in cells) + 1000


@pytest.mark.parametrize("mode", ["naive", "cross", "split", "jackknife"])
def test_continuous_target_on_dask_same_bits_any_partitioning(client, mode, spy_compute):
    """target_type="continuous" on dask: the per-level sums are EXACT integer partials (fast.estimators.
    _distributed_impact._exact_cell_sums) merged on the workers and rounded once on the driver, so the coders, the
    training codes and transform are the same bits for 1, 3 and 7 partitions, and every table sum is the exactly
    rounded (math.fsum) sum of its rows.  The in-memory fit sums in plain floating point (np.bincount, row order):
    it is compared with a stated tolerance (relative 1e-9 of the largest code; measured ~3e-15).  The old code
    refused the call."""
    pdf = _frame()
    runs = []
    for nparts in PARTS:
        spy_compute.clear()
        mem, codes, dist, got = _pair(dict(mode=mode, target_type="continuous"), pdf, nparts, target="t")
        out = dist.transform(dd.from_pandas(pdf[["row_id", "zip", "city"]], npartitions=nparts)).compute()
        runs.append((dist, got, out.to_numpy(), list(spy_compute)))
        assert dist.target_type_ == "continuous" and dist.classes_ is None
        scale = np.nanmax(np.abs(codes))
        assert np.array_equal(np.isnan(got), np.isnan(codes))
        assert np.nanmax(np.abs(got - codes)) <= 1e-9 * scale
    first = runs[0]
    for dist, got, out, sizes in runs[1:]:
        _same_coders(first[0], dist)
        assert np.array_equal(got, first[1], equal_nan=True) and np.array_equal(out, first[2])
        assert sizes == first[3]  # the same merged partials reach the driver whatever the partitioning
    # what reached the driver: per column the (k, L + 1) int64 counts and, per (cell, binary exponent) of y and of
    # y^2, one int64 triple -- bounded by the cells and the exponent range, whatever the number of rows
    assert max(first[3]) <= _partial_bound(pdf["t"], mode, (5, 4))
    # the all-rows tables are the exactly rounded sums of their rows (math.fsum), bit for bit
    dist = first[0]
    y = pdf["t"].to_numpy()
    for j, c in enumerate(("zip", "city")):
        table, extra = dist._tables_[j]
        idx = pd.Index(list(dist.levels_[j])).get_indexer(pdf[c])
        assert not extra and np.array_equal(table, _fsum_table(dist.levels_[j], idx, y))


@pytest.mark.parametrize("mode", ["naive", "cross", "split", "jackknife"])
def test_continuous_integer_outcome_on_dask_equal_in_memory_bit_for_bit(client, mode, spy_compute):
    """With an integer-valued outcome every float sum of the in-memory fit is exact too, so there the dask
    continuous fit must equal it BIT FOR BIT (coders, training codes, categories="auto" levels) for 1, 3 and 7
    partitions.  The old code refused the call."""
    pdf = _frame(1500, 3)
    for nparts in PARTS:
        spy_compute.clear()
        mem, codes, dist, got = _pair(dict(mode=mode, target_type="continuous", categories="auto",
                                           rare_count=5), pdf, nparts, target="k")
        assert mem.levels_ == dist.levels_
        _same_coders(mem, dist)
        assert np.array_equal(got, codes, equal_nan=True)
        # two computes (the levels, then the merged tables), bounded whatever the number of rows
        assert len(spy_compute) == 2 and max(spy_compute) <= _partial_bound(pdf["k"], mode, (6, 4))


def test_continuous_target_on_dask_refuses_as_in_memory(client):
    """The outcome checks of the in-memory fit, with its messages, on dask (run in the tasks: NaN, a non-numeric
    y), and epsilon / classes with a continuous target refused before anything is read.  The old code refused every
    continuous dask fit with "not supported with a dask input", so the first two matches fail there."""
    pdf = _frame(300)
    cols = ["row_id", "zip", "city"]
    bad = pdf.assign(t=pdf["t"].where(pdf.index != 250))  # one NaN, in the last partition
    for frame, match in ((bad, "y must not contain NaN"), (pdf.assign(t=pdf["y"]), "y must be numeric")):
        with pytest.raises(ValueError, match=match):
            ImpactEncoder(target_type="continuous", mode="naive").fit(frame[cols], frame["t"])
        ddf = dd.from_pandas(frame, npartitions=3)
        with pytest.raises(ValueError, match=match):
            ImpactEncoder(target_type="continuous", mode="naive", row_id="row_id").fit(ddf[cols], ddf["t"])
    ddf = dd.from_pandas(pdf, npartitions=3)
    for kw in (dict(epsilon=1.0, categories=CATS), dict(classes=("no", "yes"))):
        with pytest.raises(ValueError, match="target_type='continuous' cannot be used with classes or epsilon"):
            ImpactEncoder(target_type="continuous", mode="naive", row_id="row_id", **kw).fit(ddf[cols], ddf["t"])


# --------------------------------------------------------------------------- categories="auto"


def _mixed_frame(m=700, seed=2):
    gen = np.random.default_rng(seed)
    s = gen.choice(["p", "q", "r"], m).astype(object)
    s[gen.random(m) < 0.1] = None  # the missing level
    f = gen.choice([2.5, -1.0, 0.0, 7.25], m)
    f[gen.random(m) < 0.1] = np.nan
    f[5] = -0.0  # 0.0 and -0.0 are one level: the first seen is kept, as pandas' factorize
    return pd.DataFrame({"row_id": np.arange(m, dtype=np.int64) * 7 + 3, "s": s, "i": gen.integers(-3, 4, m),
                         "f": f, "b": gen.random(m) < 0.3, "y": gen.random(m) < 0.4})


@pytest.mark.parametrize("mode", ["naive", "cross", "jackknife"])
def test_categories_auto_on_dask_equal_in_memory(client, mode, spy_compute):
    """categories="auto" without epsilon on dask: a distributed pass finds the levels present (per-partition
    distinct levels merged on the workers), sorted as ic.factorize sorts them (missing last); then the count pass.
    levels_, coders and training codes equal the in-memory fit bit for bit for 1, 3 and 7 partitions (str with
    None, int, float with NaN and -0.0, bool columns); each compute brings one level list or one table per column.
    The old code refused every categories="auto" dask fit."""
    pdf = _mixed_frame()
    cols = ["row_id", "s", "i", "f", "b"]
    with dask.config.set({"dataframe.convert-string": False}):
        for nparts in PARTS:
            spy_compute.clear()
            mem, codes, dist, got = _pair(dict(mode=mode), pdf, nparts, cols=cols)
            assert mem.levels_ == dist.levels_ and len(dist.levels_[0]) == 4 and dist.levels_[0][-1] is None
            assert [str(v) for v in dist.levels_[2]] == [str(v) for v in mem.levels_[2]]  # -0.0 kept as seen
            _same_coders(mem, dist)
            assert np.array_equal(got, codes)
            assert len(spy_compute) == 2 and max(spy_compute) < 4000  # levels, then tables: never the 700 rows


def test_categories_auto_dask_errors_as_in_memory(client):
    """The level checks of the in-memory fit, with its messages, whatever partition holds the offending value: a
    column whose partitions hold different kinds (str here, int there: each partition alone is one kind), an
    unhashable value, inf in a float column.  With epsilon, categories="auto" stays refused (the set of levels
    present is a private release), naming categories; a splitter cv is refused naming cv (its folds are
    positions).  The old code refused all three non-private fits with "categories must be given" instead."""
    m = 60
    y = pd.Series(np.arange(m) % 2 == 0)
    mixed = np.array(["a"] * 40 + [1] * 20, dtype=object)
    unhashable = np.array(["a"] * 50 + [[1]] + ["b"] * 9, dtype=object)
    inf = np.where(np.arange(m) == 55, np.inf, np.arange(m) % 3).astype(np.float64)
    cases = [(mixed, TypeError, r"column 'c' of X must hold levels of one kind, got a mix of \['int', 'str'\]"),
             (unhashable, TypeError, "column 'c' of X must hold hashable levels .* got an unhashable list"),
             (inf, ValueError, "X must not contain inf")]
    with dask.config.set({"dataframe.convert-string": False}):
        for values, exc, match in cases:
            pdf = pd.DataFrame({"c": values, "y": y})
            with pytest.raises(exc, match=match):
                ImpactEncoder(mode="naive").fit(pdf[["c"]], pdf["y"])
            ddf = dd.from_pandas(pdf, npartitions=3)
            with pytest.raises(exc, match=match):
                ImpactEncoder(mode="naive").fit(ddf[["c"]], ddf["y"])
    ddf = dd.from_pandas(_frame(100), npartitions=2)
    with pytest.raises(ValueError, match="categories must be given .* when epsilon is set: the set of levels "
                                         "present in the data is itself private"):
        ImpactEncoder(mode="naive", epsilon=1.0, classes=("no", "yes")).fit(ddf[["zip", "city"]], ddf["y"])
    from sklearn.model_selection import KFold

    with pytest.raises(ValueError, match=r"cv must be an int k >= 2 with a dask input .* row positions"):
        ImpactEncoder(cv=KFold(3), categories=CATS, classes=("no", "yes"), row_id="row_id").fit(
            ddf[["row_id", "zip", "city"]], ddf["y"])


def test_dask_errors_in_the_in_memory_order(client):
    """Two faults at once raise the in-memory fit's FIRST error on dask too: its X rules (no row / inf / fewer than
    2 rows) before y's, y's before the levels' kinds -- although the dask tasks meet them in another order (a
    task records a bad y or a bad level and the driver raises them in the in-memory order)."""
    with dask.config.set({"dataframe.convert-string": False}):
        mixed = pd.DataFrame({"c": np.array(["a"] * 4 + [1] * 4, dtype=object),
                              "t": [1.0, 2.0, np.nan, 3.0, 1.0, 2.0, 5.0, 3.0]})
        inf = pd.DataFrame({"c": [1.0, 2.0, np.inf, 1.0] * 2, "t": [1.0, np.nan] * 4})
        one = pd.DataFrame({"c": ["a"], "t": [np.nan]})
        for pdf, match in ((mixed, "y must not contain NaN"), (inf, "X must not contain inf"),
                           (one, "X must have at least 2 rows")):
            for X, y in ((pdf[["c"]], pdf["t"]), (dd.from_pandas(pdf, npartitions=2)[["c"]],
                                                 dd.from_pandas(pdf, npartitions=2)["t"])):
                with pytest.raises(ValueError, match=match):
                    ImpactEncoder(mode="naive", target_type="continuous").fit(X, y)
            ddf = dd.from_pandas(pdf, npartitions=2)  # public categories: the count pass keeps the order too
            if pdf is one:
                with pytest.raises(ValueError, match=match):
                    ImpactEncoder(mode="naive", target_type="continuous", categories=[["a"]]).fit(ddf[["c"]],
                                                                                                  ddf["t"])


def test_exact_cell_sums_are_fsum_whatever_the_cut():
    """The continuous partials (fast.estimators._distributed_impact._exact_cell_sums): for values over ~600 orders
    of magnitude, subnormals, signed zeros and +inf terms (fl(y * y) overflows), any cut of the rows into partials
    merged in any order rounds to math.fsum of each cell's values (IEEE's inf where a term is +inf), bit for bit.
    (The module has no such function before this change.)"""
    from fast.estimators import _distributed_impact as di

    gen = np.random.default_rng(9)
    n, cells = 5000, 7
    v = gen.normal(size=n) * np.exp(gen.uniform(-700, 700, n))
    v[:20] = [5e-324, -5e-324, 0.0, -0.0, 2.2e-308, 1.7e308, 1.7e308, -1e-310] + [3.0] * 12
    v[4000] = np.inf
    cell = gen.integers(0, cells, n)
    cell[4000] = 3
    want = [math.fsum(v[(cell == c)].tolist()) if c != 3 else math.inf for c in range(cells)]
    for cuts in ([0, n], [0, 1, 2500, 4999, n], sorted({0, n, *gen.integers(0, n, 40).tolist()})):
        parts = [di._exact_cell_sums(cell[a:b], v[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
        gen.shuffle(parts)
        units, special = di._finish_sums(di._merge_sums(*parts), cells)
        got = [di._rounded(u, s) for u, s in zip(units, special)]
        assert [x.hex() for x in got] == [x.hex() for x in want]
