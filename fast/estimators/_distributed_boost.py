"""The dask path of :class:`fast.estimators.boosting.PrivateBoostClassifier` (LB-NxM or SmoothBoost, with stumps or
halfspaces; one-vs-rest over k >= 3 declared classes).

Each round is a few exact distributed passes over the persisted rows; the loop, the noise and the ledger stay on the
driver.  The rules are :mod:`fast.estimators._distributed`'s.
"""
from __future__ import annotations

import math

import numpy as np


def _boost_prep(xb, yb, est, pair, lo, hi, thr):
    """One chunk, once: (per-feature threshold bin in [0, n_thresholds] of the clamped values, y in +-1 float)."""
    from fast.labels import declared_pm1

    X = est._in_domain(np.asarray(xb))  # the public domain map of the in-memory fit, row by row
    Xc = np.clip(np.asarray(X, dtype=np.float64), lo, hi)
    bins = np.empty(Xc.shape, dtype=np.int64)
    for j in range(Xc.shape[1]):
        bins[:, j] = np.searchsorted(thr[j], Xc[:, j], side="left")
    return bins, declared_pm1(np.asarray(yb), pair, n=Xc.shape[0]).astype(np.float64)


def _half_prep(xb, yb, est, pair, norm):
    """One chunk, once (halfspace learner): (Z = the rows clipped to the data_norm ball and scaled into B_d(1),
    y in +-1 float), the in-memory fit's maps."""
    from fast.labels import declared_pm1

    Z = est._scale(np.asarray(est._in_domain(np.asarray(xb)), dtype=np.float64), norm)
    return Z, declared_pm1(np.asarray(yb), pair, n=Z.shape[0]).astype(np.float64)


def _size_partial(L, log_k, lam, top, c, dense):
    return _exact_vector_terms(_measure(L, log_k, lam, top, c, dense))


def _centroid_partial(L, Z, yf, log_k, lam, top, c, dense, size):
    """Exact terms (T, 1, d) of sum_i v_i Z_i, v_i = (mu_i / size) y_i (each product rounded once)."""
    from fast._exact_rados import exact_terms

    v = _measure(L, log_k, lam, top, c, dense) / size * yf
    E = v[:, None] * Z
    return exact_terms(E, np.ones(E.shape[0], dtype=np.int8), np.ones((1, E.shape[0]), dtype=np.int8))


def _update_L_half(L, Z, yf, z):
    h = Z @ z
    return L + (1.0 - np.abs(np.clip(h, -1.0, 1.0) - yf) / 2.0)


def _exact_vector_terms(v):
    """Exact terms (T, 1, 1) of sum(v) (any float64 vector)."""
    from fast._exact_rados import exact_terms

    v = np.asarray(v, dtype=np.float64)
    return exact_terms(v[:, None], np.ones(v.shape[0], dtype=np.int8), np.ones((1, v.shape[0]), dtype=np.int8))


def _min_L(L):
    return float(np.min(L)) if L.shape[0] else np.inf


def _log_weights(L, log_k, lam):
    return log_k - lam * L  # elementwise as in memory: w = log_k - lam L


def _mass(L, log_k, lam, top, c, low):
    """(count of a c >= 1, exact terms of the kept sum) with a = exp(max(w - top, -707)); c = 0: the whole
    non-low mass (the dense test)."""
    from fast.measures import _EXP_FAST

    a = np.exp(np.maximum(_log_weights(L, log_k, lam) - top, _EXP_FAST))
    if c == 0.0:
        return 0, _exact_vector_terms(np.where(a > low, a, 0.0))
    scaled = a * c
    return int(np.count_nonzero(scaled >= 1.0)), _exact_vector_terms(np.where((a > low) & (scaled < 1.0), a, 0.0))


def _measure(L, log_k, lam, top, c, dense):
    """mu_i of the projection (the in-memory ``_scale_capped`` map and the low entries' fix)."""
    from fast.measures import _A_LOW, _EXP_FAST, _FLUSH, LOG_TINY

    w = _log_weights(L, log_k, lam)
    if dense:
        return np.exp(w)
    ws = w - top
    a = np.exp(np.maximum(ws, _EXP_FAST))
    r = np.minimum(1.0, a * c)
    out = np.where(r > _FLUSH, r, 0.0)
    low = a <= _A_LOW
    if low.any():
        log_c = math.log(c)
        out[low] = np.exp(np.minimum(ws[low] + log_c, 0.0)) if log_c + _EXP_FAST + 1e-9 > LOG_TINY else 0.0
    return out


def _scores_partial(L, bins, yf, log_k, lam, top, c, dense, nb):
    """Exact terms of (sum mu, per-feature per-bin sums of mu_i y_i): (T, 1, 1 + d nb)."""
    from fast._exact_rados import _slices

    mu = _measure(L, log_k, lam, top, c, dense)
    d = bins.shape[1]
    cols = [mu[:, None]]
    terms = []
    for lo in range(0, mu.shape[0], 1 << 16):  # exact per block: slices of mu y, bincount per slice
        hi_ = min(mu.shape[0], lo + (1 << 16))
        for scale, piece in _slices(np.column_stack([mu[lo:hi_], mu[lo:hi_] * yf[lo:hi_]])):
            row = np.empty(1 + d * nb)
            row[0] = piece[:, 0].sum()  # exact: a slice's sums of <= 2^16 entries
            for j in range(d):
                row[1 + j * nb:1 + (j + 1) * nb] = np.bincount(bins[lo:hi_, j], weights=piece[:, 1], minlength=nb)
            terms.append(row * 2.0**scale if scale else row)
    del cols
    return np.stack(terms)[:, None, :] if terms else np.zeros((0, 1, 1 + d * nb))


def _update_L(L, bins, yf, j, ti, s):
    h = s * np.where(bins[:, j] > ti, 1.0, -1.0)
    return L + (1.0 - np.abs(np.clip(h, -1.0, 1.0) - yf) / 2.0)


def _persist_prepared(blocks, ys, rows, d, est, pair, half, norm, lo, hi, thr):
    """The per-row state of a boosting fit, persisted on the workers: the prepared rows (halfspace: the scaled
    rows, float64; stumps: the threshold bins, int64), y as floats, and a zero per-row loss.  Returns the delayed
    blocks of the first two (one per chunk) and the list of persisted loss arrays."""
    import dask
    import dask.array as da

    if half:
        prep = [dask.delayed(_half_prep, nout=2)(b, yb, est, pair, norm) for b, yb in zip(blocks, ys)]
        Xp = [da.from_delayed(p[0], shape=(r, d), dtype=np.float64) for p, r in zip(prep, rows)]
    else:
        prep = [dask.delayed(_boost_prep, nout=2)(b, yb, est, pair, lo, hi, thr) for b, yb in zip(blocks, ys)]
        Xp = [da.from_delayed(p[0], shape=(r, d), dtype=np.int64) for p, r in zip(prep, rows)]
    yf = [da.from_delayed(p[1], shape=(r,), dtype=np.float64) for p, r in zip(prep, rows)]
    state = [da.zeros(r, chunks=r) for r in rows]
    Xp, yf, state = dask.persist(Xp, yf, state)
    return ([b.to_delayed(optimize_graph=False).ravel()[0] for b in Xp],
            [v.to_delayed(optimize_graph=False).ravel()[0] for v in yf], state)


def boost_fit(est, X, y, accountant=None):
    """:meth:`PrivateBoostClassifier.fit` on a dask array (LB-NxM with the stump or halfspace learner over public
    ``bounds`` / ``data_norm``).  k >= 3 declared ``classes``: one-vs-rest through the in-memory ``_fit_one_vs_rest``
    (the composed total charged once, before the first job; the k binary label vectors formed lazily on the workers;
    k binary fits of this function inside the one release).  ``booster="smooth"``: :func:`_smooth_fit`.  Two labels,
    LB-NxM: the per-row state (threshold bins, y, the loss L) is persisted on the workers and every round is a few
    distributed passes returning exact partials (the projection's min, masses and capped counts; the measure's size
    and the stump scores); the loop, the report-noisy-max draw (once per round, on the driver) and the accounting
    (charged before the first job) stay here.  Sums are exact, so the run does not depend on the partitioning; it
    differs from the in-memory fit (float sums) only in rounding (measured: the same hypotheses as the seeded
    in-memory fit, tests/test_dask.py)."""
    import dask
    import dask.array as da

    from fast import _dask
    from fast import accounting as _acc
    from fast import private_boosting as _pb
    from fast._contracts.privacy_contract import (PrivacySpent, charge_fit, noise_rng, refuse_seeded_charge,
                                                  reported_spent)
    from fast._contracts.validation import as_generator
    from fast._exact_rados import finish_terms
    from fast.estimators import boosting as B
    from fast.labels import classes_array, declared_classes
    from fast.measures import _A_LOW, _CAP_ITERATIONS

    eps, dl, T, kappa, lam, rho_total = est._validate_params()
    leak = est._leaked_bound()
    if leak is not None:
        raise ValueError(f"{leak} must be given (public) with a dask input: reading it would be a pass over X")
    half = est.weak_learner == "halfspace"
    refuse_seeded_charge(est.insecure_noise_seed, accountant)
    for stale in ("estimators_", "privacy_spent_per_class_"):  # a previous one-vs-rest fit's
        est.__dict__.pop(stale, None)
    labels = est._class_set()
    if labels is not None:  # one-vs-rest: the in-memory plan and charge, k binary fits of this function
        return est._fit_one_vs_rest(X, y, labels, dl, T, kappa, rho_total, None, accountant)
    if est.booster != "lazy_bregman":
        return _smooth_fit(est, X, y, eps, dl, T, kappa, accountant)
    pair = declared_classes(est.classes, y)
    blocks, offsets, rows = _dask.array_blocks(X)
    ys = _dask.vector_blocks(y, rows)
    n, d = int(offsets[-1]), int(X.shape[1])
    est.n_features_in_ = d
    nt = int(est.n_thresholds)
    if half:
        norm = float(est.data_norm)
        est.data_norm_ = norm
        dim = d
        sensitivity = _pb.centroid_sensitivity(n, kappa)
        sigma, grid = B._sigma_for_rho(rho_total / T, sensitivity, dim, T)
        rho_round = grid.rho
    else:
        lo, hi = est._bounds(np.zeros((1, d)))
        est.bounds_ = (lo, hi)
        thr = lo[:, None] + (hi - lo)[:, None] * (np.arange(1, nt + 1) / (nt + 1))
        est.thresholds_ = thr
        dim = d * nt
        sensitivity = _pb.stump_sensitivity(n, kappa)
        eps_r, rho_round = B._stump_epsilon(rho_total, T, sensitivity)
        sigma = float("nan")
    rho_spent = _acc.zcdp_composition([rho_round] * T)
    eps_spent = _acc.zcdp_to_dp_tight(rho_spent, dl)
    spent = PrivacySpent(
        epsilon=float(eps_spent), delta=float(dl), rho=float(rho_spent),
        neighbouring="replace-one (one example (x, y) of the training set; n public)",
        accounting=(f"T = {T} rounds of a discrete-Gaussian release at L2 sensitivity {sensitivity:.6g} "
                    f"(4/(kappa n), Thm 22 + Lemma 21) on the grid 2^{grid.k}: rho = {grid.rho:.6g} each (zCDP "
                    f"composition, Lemma 14), tight conversion (CKS20 Prop. 12)" if half
                    else f"T = {T} rounds of report-noisy-max (exact discrete Laplace) over {2 * dim} signed stumps "
                    f"at score sensitivity {sensitivity:.6g} (4/(kappa n): smooth measure + Lemma 21): pure "
                    f"eps_r = {eps_r:.6g} each, rho = eps_r^2/2 = {rho_round:.6g} (BS16 Prop. 1.4), zCDP "
                    f"composition (Lemma 14), tight conversion (CKS20 Prop. 12)"))
    charge_fit(spent, accountant, est.insecure_noise_seed, label=type(est).__name__)  # before the first job
    seed = noise_rng(est.insecure_noise_seed)
    gen = None if seed is None else as_generator(seed)
    bins_d, yf_d, L = _persist_prepared(blocks, ys, rows, d, est, pair, half,
                                        norm if half else None, *((None,) * 3 if half else (lo, hi, thr)))
    log_k, target, nb = math.log(kappa), kappa * n, nt + 1
    hyps = []
    for _t in range(T):
        L_d = [v.to_delayed(optimize_graph=False).ravel()[0] for v in L]
        top = log_k - lam * min(_dask.compute(*[dask.delayed(_min_L)(v) for v in L_d]))
        total = _fsum_parts(_dask.compute(*[dask.delayed(_mass)(v, log_k, lam, top, 0.0, _A_LOW) for v in L_d]))
        dense = math.log(total) + top >= math.log(target)
        c = 0.0
        if not dense:  # the capped scaling's fixed point (fast.measures._capping), exact sums
            c, previous, settled = target / total, -1, False
            for _ in range(_CAP_ITERATIONS):
                out = _dask.compute(*[dask.delayed(_mass)(v, log_k, lam, top, c, _A_LOW) for v in L_d])
                capped, kept = sum(o[0] for o in out), _fsum_parts(out)
                if capped == previous:
                    c, settled = (target - capped) / kept, True
                    break
                if capped < previous or not (kept > 0.0) or not (target - capped > 0.0):
                    break
                c, previous = (target - capped) / kept, capped
            if not settled:  # (the in-memory fit sorts here) bisection on c: never an exception, data-independent
                c = _bisect_capping(L_d, log_k, lam, top, target, total, _A_LOW)
        if half:  # the centroid release (fast.private_boosting's run, on the driver)
            size = _fsum_parts(_dask.compute(*[dask.delayed(_size_partial)(v, log_k, lam, top, c, dense)
                                               for v in L_d]))
            z = finish_terms(_dask.compute(*[dask.delayed(_centroid_partial)(v, b, yy, log_k, lam, top, c, dense,
                                                                             size)
                                             for v, b, yy in zip(L_d, bins_d, yf_d)]), 1, d)[0]
            z = B._release(z, grid, gen)
            if est.normalize:
                nz = math.sqrt(math.fsum(z * z))
                z = z / nz if nz > 0 else z
            hyps.append(z)
            L = dask.persist([da.from_delayed(dask.delayed(_update_L_half)(v, b, yy, z), shape=(r,),
                                              dtype=np.float64) for v, b, yy, r in zip(L_d, bins_d, yf_d, rows)])[0]
            continue
        parts = _dask.compute(*[dask.delayed(_scores_partial)(v, b, yy, log_k, lam, top, c, dense, nb)
                                for v, b, yy in zip(L_d, bins_d, yf_d)])
        sums = finish_terms(parts, 1, 1 + d * nb)[0]
        size, above = sums[0], (sums[1:] / sums[0]).reshape(d, nb)
        cum = np.cumsum(above, axis=1)[:, :-1]
        scores = (above.sum(axis=1, keepdims=True) - cum) - cum
        ci = _pb.report_noisy_max(np.stack([scores, -scores], axis=-1).ravel(), sensitivity, eps_r, rng=gen)
        j, ti = ci // (2 * nt), (ci // 2) % nt
        s = 1.0 if ci % 2 == 0 else -1.0
        hyps.append((j, float(thr[j, ti]), s))
        L = dask.persist([da.from_delayed(dask.delayed(_update_L)(v, b, yy, j, ti, s), shape=(r,), dtype=np.float64)
                          for v, b, yy, r in zip(L_d, bins_d, yf_d, rows)])[0]
        del size
    est.classes_ = classes_array(pair)
    est.hypotheses_ = np.array(hyps, dtype=np.float64)
    if half:
        est.coef_ = est.hypotheses_.mean(axis=0)
    est.sigma_ = float(sigma)
    est.lam_ = float(lam)
    est.privacy_spent_ = reported_spent(spent, est.insecure_noise_seed)
    est._report_noise(n, d, stacklevel=5)  # as in memory: public n, d and parameters (issue 28 item 6)
    return est


def _bisect_capping(L_d, log_k, lam, top, target, total, low):
    """c of the capped scaling by bisection (the fallback of the fixed point): g(c) = #(a c >= 1) + c kept(c) is
    non-decreasing; bracket g(c) = target, then, once both ends cap the same set, c = (target - capped) / kept."""
    import dask

    from fast import _dask

    def g(c):
        out = _dask.compute(*[dask.delayed(_mass)(v, log_k, lam, top, c, low) for v in L_d])
        return sum(o[0] for o in out), _fsum_parts(out)

    lo_c, hi_c = target / total, 1.0 / _A_LOW_BISECT
    for _ in range(200):
        mid = 0.5 * (lo_c + hi_c)
        capped, kept = g(mid)
        if capped + mid * kept < target:
            lo_c = mid
        else:
            hi_c = mid
        c_lo, c_hi = g(lo_c)[0], g(hi_c)[0]
        if c_lo == c_hi or not (lo_c < mid < hi_c):
            break
    capped, kept = g(lo_c)
    return (target - capped) / kept if kept > 0.0 else lo_c


#: the largest scaling bisection tries: a = exp(w - top) is at least exp(-707) for the kept entries
_A_LOW_BISECT = math.exp(-707.0)


def _fsum_parts(parts):
    """The exactly rounded total of partials ((count, terms) pairs or terms)."""
    from fast._exact_rados import finish_terms

    terms = [p[1] if isinstance(p, tuple) else p for p in parts]
    return float(finish_terms(terms, 1, 1)[0, 0])


# --------------------------------------------------------------------------- SmoothBoost (booster="smooth")


def _sb_measure(S, t, g):
    """SB-NxM of one chunk (``fast.private_boosting._sb_measure``: the in-memory run's values bit for bit)."""
    from fast.private_boosting import _sb_measure as measure

    return measure(S, t, g)


def _sb_size_partial(S, t, g):
    """Exact terms (T, 1, 1) of the chunk's sum of mu (the PTR test's |mu|)."""
    return _exact_vector_terms(_sb_measure(S, t, g))


def _sb_signed(S, yf, t, g, size):
    """v_i = mu_i / |mu| y_i, the in-memory operations in their order (``mu / size * yf``)."""
    return _sb_measure(S, t, g) / size * yf


def _sb_centroid_partial(S, Z, yf, t, g, size):
    """Exact terms (T, 1, d) of sum_i v_i Z_i (each product rounded once, as the in-memory ``v @ Z``'s)."""
    from fast._exact_rados import exact_terms

    E = _sb_signed(S, yf, t, g, size)[:, None] * Z
    return exact_terms(E, np.ones(E.shape[0], dtype=np.int8), np.ones((1, E.shape[0]), dtype=np.int8))


def _sb_scores_partial(S, bins, yf, t, g, size, nb):
    """Exact terms (T, 1, 1 + d nb) of (sum v, per-feature per-bin sums of v), v = mu / |mu| y."""
    from fast._exact_rados import _slices

    v = _sb_signed(S, yf, t, g, size)
    d = bins.shape[1]
    terms = []
    for lo in range(0, v.shape[0], 1 << 16):  # exact per block: slices of v, bincount per slice
        hi_ = min(v.shape[0], lo + (1 << 16))
        for scale, piece in _slices(v[lo:hi_, None]):
            row = np.empty(1 + d * nb)
            row[0] = piece[:, 0].sum()  # exact: a slice's sums of <= 2^16 entries
            for j in range(d):
                row[1 + j * nb:1 + (j + 1) * nb] = np.bincount(bins[lo:hi_, j], weights=piece[:, 0], minlength=nb)
            terms.append(row * 2.0**scale if scale else row)
    return np.stack(terms)[:, None, :] if terms else np.zeros((0, 1, 1 + d * nb))


def _sb_update_stump(S, bins, yf, j, ti, s):
    """sums += y s h (h = +1 above thr[j, ti], else -1), the in-memory ``yf * s * where(...)``."""
    return S + yf * s * np.where(bins[:, j] > ti, 1.0, -1.0)


def _sb_update_half(S, Z, yf, z):
    """sums += y clip(Z z, -1, 1) (``fast._boosting_kernels.smooth_measure``'s update)."""
    return S + yf * np.clip(Z @ z, -1.0, 1.0)


def _smooth_fit(est, X, y, eps, dl, T, kappa, accountant):
    """:meth:`PrivateBoostClassifier.fit` with ``booster="smooth"`` on a dask array (issue 29): SmoothBoost (bun2020
    Alg. 13, SB-NxM) with the Laplace propose-test-release stopping rule (Alg. 10-12), the stump or the centroid
    learner, as the in-memory ``_fit_smooth``.

    The per-row state (threshold bins or the scaled rows Z, y in +-1, the margin sums) is persisted on the workers.
    Each round is two distributed passes returning exact partials: |mu| = sum_i mu_i (exactly rounded: the value of
    the in-memory ``math.fsum``, so the test's input is the in-memory one bit for bit), then, when the test passes,
    the stump scores (exact per-bin sums of v = mu / |mu| y) or the centroid sum_i v_i Z_i (each product rounded
    once); a third task per chunk updates the sums.  The plan and the charge are the in-memory fit's
    (``_smooth_plan``, before the first job); the test's Laplace draw, the report-noisy-max / discrete-Gaussian
    draw, the stopping decision and the loop are on the driver, through ``fast.mechanisms`` /
    ``fast.private_boosting``, once per release.

    The stopping test reads |mu| + Laplace noise, as in memory (the PTR test of Alg. 10-12, whose privacy is part
    of the per-round (2 eps_r, e^eps_r delta_r) of Lemmas 49-50): the number of rounds run, and so the number of
    jobs, depends on the data only through that noisy test, exactly as the in-memory run's loop does.  The sums are
    exact, so the fit does not depend on the partitioning; it differs from the in-memory fit only where the
    in-memory float sums (the bincount scores, ``v @ Z``) round differently."""
    import dask
    import dask.array as da

    from fast import _dask
    from fast import mechanisms as _mech
    from fast import private_boosting as _pb
    from fast._contracts.privacy_contract import reported_spent
    from fast._exact_rados import finish_terms
    from fast.labels import classes_array, declared_classes

    half = est.weak_learner == "halfspace"
    pair = declared_classes(est.classes, y)
    blocks, offsets, rows = _dask.array_blocks(X)
    ys = _dask.vector_blocks(y, rows)
    n, d = int(offsets[-1]), int(X.shape[1])
    for name in ("coef_", "bounds_", "thresholds_", "data_norm_"):  # a previous fit's, as the in-memory fit leaves
        est.__dict__.pop(name, None)
    est.n_features_in_ = d
    nt = int(est.n_thresholds)
    if half:
        norm = float(est.data_norm)
        est.data_norm_ = norm
    else:
        lo, hi = est._bounds(np.zeros((1, d)))
        est.bounds_ = (lo, hi)
        thr = lo[:, None] + (hi - lo)[:, None] * (np.arange(1, nt + 1) / (nt + 1))
        est.thresholds_ = thr
    # the in-memory plan: per-round budget, refusals, the charge (before the first job), the generator
    eps_r, delta_r, sensitivity, eps_spent, delta_spent, gen = est._smooth_plan(eps, dl, T, kappa, not half, n, d,
                                                                               accountant)
    rows_d, yf_d, S = _persist_prepared(blocks, ys, rows, d, est, pair, half,
                                        norm if half else None, *((None,) * 3 if half else (lo, hi, thr)))
    g = float(est.gamma)
    threshold = 2.0 + math.log(1.0 / delta_r) / eps_r
    nb = nt + 1
    hyps = []
    for t in range(T):
        S_d = [v.to_delayed(optimize_graph=False).ravel()[0] for v in S]
        size = _fsum_parts(_dask.compute(*[dask.delayed(_sb_size_partial)(v, t, g) for v in S_d]))
        noisy = _mech.laplace_mechanism(size - kappa * n / 2.0, sensitivity=1.0, epsilon=eps_r, rng=gen)
        if not noisy > threshold:  # the PTR test (in-memory semantics): stop
            break
        if half:
            mean = finish_terms(_dask.compute(*[dask.delayed(_sb_centroid_partial)(v, b, yy, t, g, size)
                                                for v, b, yy in zip(S_d, rows_d, yf_d)]), 1, d)[0]
            z = np.asarray(_mech.gaussian_mechanism(mean, sensitivity=sensitivity, epsilon=eps_r, delta=delta_r,
                                                    rng=gen), dtype=np.float64)
            if est.normalize:
                z = _pb._normalized(z)
            hyps.append(z)
            S = dask.persist([da.from_delayed(dask.delayed(_sb_update_half)(v, b, yy, z), shape=(r,),
                                              dtype=np.float64) for v, b, yy, r in zip(S_d, rows_d, yf_d, rows)])[0]
            continue
        sums = finish_terms(_dask.compute(*[dask.delayed(_sb_scores_partial)(v, b, yy, t, g, size, nb)
                                            for v, b, yy in zip(S_d, rows_d, yf_d)]), 1, 1 + d * nb)[0]
        total, above = sums[0], sums[1:].reshape(d, nb)
        cum = np.cumsum(above, axis=1)[:, :-1]
        scores = (total - cum) - cum
        ci = _pb.report_noisy_max(np.stack([scores, -scores], axis=-1).ravel(), sensitivity, eps_r, rng=gen)
        j, ti, s = ci // (2 * nt), (ci // 2) % nt, 1.0 if ci % 2 == 0 else -1.0
        hyps.append((j, float(thr[j, ti]), s))
        S = dask.persist([da.from_delayed(dask.delayed(_sb_update_stump)(v, b, yy, j, ti, s), shape=(r,),
                                          dtype=np.float64) for v, b, yy, r in zip(S_d, rows_d, yf_d, rows)])[0]
    est._smooth_attributes(hyps, len(hyps), classes_array(pair), not half, d, T, eps_r, delta_r, eps_spent,
                           delta_spent)
    est.privacy_spent_ = reported_spent(est.privacy_spent_, est.insecure_noise_seed)
    est._report_noise(n, d, stacklevel=5)
    return est
