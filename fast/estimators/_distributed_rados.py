"""The dask path of the rado estimators (:class:`fast.estimators.rados.RadoBoostClassifier`,
:class:`~fast.estimators.rados.OmegaRAdaBoostClassifier`) and the private rado sources on dask.

Rados are computed on the cluster from exact partials (:mod:`fast._exact_rados`); boosting runs on the driver.  The
rules are :mod:`fast.estimators._distributed`'s.
"""
from __future__ import annotations


import numpy as np


def _fixed_support_partial(xb, yb, offset, picks, n, intercept):
    """One task of fixed-support rados: signature j agrees with y exactly on its picked GLOBAL rows; the exact terms
    of this chunk's share (the picked rows inside it), as :func:`fast._dask._rados_partial`."""
    from fast._dask import block_edges
    from fast._exact_rados import exact_terms

    xb = np.asarray(xb)
    if intercept:
        xb = np.column_stack([xb, np.ones(xb.shape[0])])
    yb, E = block_edges(xb, yb)
    j, i = picks
    inside = (i >= offset) & (i < offset + xb.shape[0])
    sig = np.broadcast_to(-yb, (n, xb.shape[0])).copy()  # -y_i: row i outside the support of every signature
    sig[j[inside], i[inside] - offset] = yb[i[inside] - offset]
    return exact_terms(E, yb, sig)


def _edges_partial(xb, yb, offset, picks, n, k, source):
    """One task of private Gaussian-edges rados: for each signature j, the EXACT integer sum over the picked rows
    of this chunk of round_half_even(e_i / 2^k), e_i = y_i clip(x_i) mapped into the source's public domain (the
    rounding of ``fast.mechanisms`` ``_release``; 2^k the public grid).  (n, d) int64; no noise here."""
    from fast.dp_rados import _examples, clip_rows

    xb = source.in_domain(np.asarray(xb))
    xb, yb = _examples(xb, yb)
    j, i = picks
    inside = (i >= offset) & (i < offset + xb.shape[0])
    local = i[inside] - offset
    E = yb[local, None].astype(np.float64) * clip_rows(xb[local], source.clip)
    units = np.rint(E * 2.0**-k).astype(np.int64)  # exact: a power-of-two scaling, |units| < 2^52 (checked)
    out = np.zeros((n, xb.shape[1]), dtype=np.int64)
    np.add.at(out, j[inside], units)
    return out


def private_edges_rados(source, X, yd, n, rng, noise_seed, m, d):
    """Gaussian-edges rados (nock2015 s5.2) of a dask array, with the noise drawn ONCE on the driver.

    In memory the source releases every edge e~_i = 2^k (round(e_i / 2^k) + Y_i) (one discrete-Gaussian release,
    L2 sensitivity 2 clip per row) and sums the noisy edges of the picked rows (post-processing).  Here the tasks
    return the exact integer sums S_j of round(e_i / 2^k) over each signature's picked rows; the driver draws Y_u
    for the picked rows u only (one ``gaussian_mechanism`` call on zeros, the same grid: the other rows' noisy
    edges are never used, and a selection made from public randomness and m alone is post-processing) and returns
    2^k (S_j + sum_{u in J_j} Y_u), exact integers scaled once.  The released rados have the in-memory
    distribution; no row and no noise travels, and a retried task returns the same integers."""
    import dask

    from fast import _dask
    from fast.dp_rados import _support_of
    from fast.mechanisms import gaussian_grid, gaussian_mechanism

    support = _support_of(source.support, m)
    picks = fixed_support_picks(m, n, support, rng)
    grid = gaussian_grid(2.0 * source.clip, source.epsilon, source.delta, dimension=d)
    k = int(grid.k)
    if source.clip * 2.0**-k >= 2.0**52 / max(1, support):
        raise ValueError("the noise grid is too fine for the exact integer sums of the dask path")
    blocks, offsets, rows = _dask.array_blocks(X)
    task = dask.delayed(_edges_partial, pure=True)
    shared = dask.delayed((picks, source), pure=True)
    parts = _dask.compute(*[task(b, yb, int(offsets[c]), shared[0], n, k, shared[1])
                            for c, (b, yb) in enumerate(zip(blocks, _dask.vector_blocks(yd, rows)))])
    exact = sum(parts)  # int64, exact: the pre-noise aggregate
    used, where = np.unique(picks[1], return_inverse=True)
    noise = gaussian_mechanism(np.zeros((used.shape[0], d)), sensitivity=2.0 * source.clip, epsilon=source.epsilon,
                               delta=source.delta, rng=noise_seed, sensitivity_dimension=d)
    units = np.rint(np.asarray(noise) * 2.0**-k).astype(np.int64)  # the draws Y_u (exact: multiples of 2^k)
    total = exact.copy()
    np.add.at(total, picks[0], units[where])
    return total.astype(np.float64) * 2.0**k, exact


def fixed_support_picks(m: int, n: int, support: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """(signature index, global row) pairs: for each of the n signatures a uniform ``support``-subset of [0, m)
    (nock2015 eq. 18), drawn on the driver from ``rng`` (non-private randomness)."""
    rows = np.stack([rng.choice(m, size=support, replace=False) for _ in range(n)])
    return np.repeat(np.arange(n), support), rows.ravel().astype(np.int64)


def radoboost_fit(est, X, y, accountant=None):
    """:meth:`RadoBoostClassifier.fit` on dask arrays: the rados are computed on the cluster, exact and
    chunk-independent, from a counter-based signature stream keyed by ``random_state`` (``support=None``) or from
    fixed-support signatures whose ``support`` rows are drawn on the driver; boosting runs on the driver.  Equal to
    ``fit_rados`` on the in-memory exact rados of the same signatures.  With ``privacy``: ``gaussian_edges``
    (:func:`private_edges_rados`) or ``dp_feat`` (:func:`fast.estimators._distributed_dp_feat.dp_feat_dask_rados`:
    the K's drawn once here, the agreeing sets chosen by keyed words of (fit secret, global row id), the secret
    never stored), the ledger charged before the first job."""
    import dask
    import dask.array as da

    from fast import _dask
    from fast._exact_rados import finish_terms, signature_stream
    from fast.estimators.rados import _generator
    from fast.labels import check_classes, classes_array

    from fast.dp_rados import DPFeatSource, GaussianEdgesSource
    from fast._contracts.privacy_contract import charge_fit, noise_rng, refuse_seeded_charge, reported_spent

    est._validate_params()
    refuse_seeded_charge(est.insecure_noise_seed, accountant)
    if est.privacy is not None and not isinstance(est.privacy, (GaussianEdgesSource, DPFeatSource)):
        raise ValueError("privacy with a dask input supports gaussian_edges(...) and dp_feat(...) only; fit on the "
                         "rows in memory, or send rados with fit_rados")
    standardise = est._standardise() if hasattr(est, "_standardise") else False
    if est.classes is None:
        raise ValueError("classes must be given (negative, positive) with a dask input: reading the label set "
                         "would need a pass over y")
    pair = check_classes(est.classes)
    if not isinstance(X, da.Array) or X.ndim != 2:
        raise TypeError("X must be a 2-d dask array (row chunks)")
    yd = y if isinstance(y, da.Array) else da.asarray(y)
    ypm = da.where(yd == pair[1], 1, -1).astype(np.int8)
    m, d = (int(v) for v in X.shape)
    n = est._n_rados(m)
    mean = scale = None
    if standardise:  # z-scores from exact column sums (two passes): the same on any chunking
        mean, scale = _column_moments(X, m)
        X = (X - mean) / scale
    intercept = est._intercept() if hasattr(est, "_intercept") else bool(est.fit_intercept)
    rng = _generator(est.random_state)
    if est.privacy is not None:
        dd_ = d + (1 if intercept else 0)
        if intercept:
            raise ValueError("fit_intercept=True with privacy is not supported with a dask input")
        spent = est.privacy.privacy_spent_for_fit(m, n, dd_)
        report = est.privacy.noise_report(m, dd_) if hasattr(est.privacy, "noise_report") else None
        dp_feat = isinstance(est.privacy, DPFeatSource)
        if dp_feat:  # the in-memory refusal (fast/estimators/rados.py), and the feature index, before the charge
            if dd_ > 1:
                raise ValueError(
                    f"privacy={est.privacy!r} cannot protect a fit on {dd_} features: DP-Feat's guarantee covers "
                    "the j*-coordinate of each rado ALONE; the other coordinates (exact sums the fit uses) identify "
                    "the signatures and with them the protected values (one rado, m = 8, epsilon 2: delta 0.50 for "
                    "the whole rado against 0.031 for its j*-coordinate, tests/test_privacy_surface.py), so "
                    "privacy_spent_ would be false; use gaussian_edges(...) (every example protected), or X = the "
                    "protected column only")
            from fast._contracts.validation import check_int

            check_int(est.privacy.feature, "feature", minimum=0, maximum=dd_ - 1)
        charge_fit(spent, accountant, est.insecure_noise_seed, label=type(est).__name__)  # before the job
        if report is not None:
            from fast.dp_rados import warn_if_noise_dominates

            warn_if_noise_dominates(report, stacklevel=5)
            est.noise_report_ = report
        else:
            est.__dict__.pop("noise_report_", None)
        seed = noise_rng(est.insecure_noise_seed)
        seeded = None if seed is None else np.random.default_rng(seed)
        if dp_feat:  # keyed-word signature selection (fast/estimators/_distributed_dp_feat.py): no global pass
            from fast.estimators._distributed_dp_feat import dp_feat_dask_rados

            Pi, _ = dp_feat_dask_rados(est.privacy, X, ypm, n, seeded, m)
        else:
            Pi, _ = private_edges_rados(est.privacy, X, ypm, n, rng, seeded, m, dd_)
        est.n_features_in_ = d
        if hasattr(est, "feature_names_in_"):
            del est.feature_names_in_
        import inspect

        if "intercept" in inspect.signature(est._fit_on_rados).parameters:
            est._fit_on_rados(Pi, classes_array(pair), rng, intercept)
        else:
            est._fit_on_rados(Pi, classes_array(pair), rng)
        est.privacy_spent_ = reported_spent(spent, est.insecure_noise_seed)
        est.x_mean_, est.x_scale_ = np.zeros(d), np.ones(d)
        return est
    if est.support is None:
        Pi = _dask.rados(X, ypm, signature_stream(n, seed=int(rng.integers(0, 2**63 - 1))), intercept=intercept)
    else:
        if est.support > m:
            raise ValueError(f"support must be at most the number of rows ({m}), got {est.support}")
        picks = fixed_support_picks(m, n, int(est.support), rng)
        blocks, offsets, rows = _dask.array_blocks(X)
        task = dask.delayed(_fixed_support_partial, pure=True)
        parts = _dask.compute(*[task(b, yb, int(offsets[k]), picks, n, intercept)
                                for k, (b, yb) in enumerate(zip(blocks, _dask.vector_blocks(ypm, rows)))])
        Pi = finish_terms(parts, n, d + (1 if intercept else 0))
    est.n_features_in_ = d
    if hasattr(est, "feature_names_in_"):
        del est.feature_names_in_
    est.__dict__.pop("privacy_spent_", None)
    est.__dict__.pop("noise_report_", None)
    import inspect

    if "intercept" in inspect.signature(est._fit_on_rados).parameters:
        est._fit_on_rados(Pi, classes_array(pair), rng, intercept)
    else:
        est._fit_on_rados(Pi, classes_array(pair), rng)
    if mean is not None:  # back to the raw features, as in memory
        est.coef_ = est.coef_ / scale
        est.intercept_ = est.intercept_ - est.coef_ @ mean
    est.x_mean_ = np.zeros(d) if mean is None else mean
    est.x_scale_ = np.ones(d) if scale is None else scale
    return est


def _moment_partial(xb, center):
    """Exact terms (T, 1, d) of the column sums of x (center None) or of (x - center)^2."""
    from fast._exact_rados import exact_terms

    x = np.asarray(xb, dtype=np.float64)
    E = x if center is None else (x - center) ** 2
    return exact_terms(E, np.ones(E.shape[0], dtype=np.int8), np.ones((1, E.shape[0]), dtype=np.int8))


def _column_moments(X, m):
    """(mean, scale) of every column from exact sums: mean = fsum(x) / m, scale = sqrt(fsum((x - mean)^2) / m);
    a column whose moments are not finite or whose scale is 0 gets (0, 1), as in memory."""
    import dask

    from fast import _dask
    from fast._exact_rados import finish_terms

    blocks, _, _ = _dask.array_blocks(X)
    d = int(X.shape[1])
    task = dask.delayed(_moment_partial, pure=True)
    with np.errstate(over="ignore", invalid="ignore"):
        mean = finish_terms(_dask.compute(*[task(b, None) for b in blocks]), 1, d)[0] / m
        var = finish_terms(_dask.compute(*[task(b, mean) for b in blocks]), 1, d)[0] / m
        scale = np.sqrt(var)
    ok = np.isfinite(mean) & np.isfinite(scale) & (scale > 0)
    return np.where(ok, mean, 0.0), np.where(ok, scale, 1.0)
