"""Generated table: every public function of mechanisms, accounting and dp_rados (reference and fast) is called
with each bad value of each privacy parameter (NaN, +-inf, negative, zero where not allowed, wrong type), and
with a non-boolean sensitive feature and an overspent budget.  100% must raise ValueError/TypeError (or
BudgetExceeded, a ValueError) naming the argument."""
import inspect

import numpy as np
import pytest

import fast.accounting
import fast.dp_rados
import fast.mechanisms
import reference.accounting
import reference.dp_rados
import reference.mechanisms

NAN, INF = float("nan"), float("inf")
POSITIVE_BAD = [NAN, INF, -INF, -1.0, 0.0, "1", None]
UNIT_BAD = [NAN, INF, -0.5, 0.0, 1.0, 1.5, "0.1"]
NONNEG_BAD = [NAN, INF, -1e-9, "0"]
INT_BAD = [0, -1, 2.5, NAN, "3", True]
BAD = {"positive": POSITIVE_BAD, "unit": UNIT_BAD, "nonneg": NONNEG_BAD, "int": INT_BAD}

_X = np.array([[1.0, 0.3], [-1.0, 2.0], [1.0, -1.0], [-1.0, 0.0], [1.0, 1.0], [1.0, 1.0]])
_Y = np.array([1, -1, 1, 1, -1, 1], dtype=np.int8)

# function -> (valid keyword arguments, {parameter: kind of bad values})
TABLE = {
    "mechanisms.laplace_mechanism": (dict(value=1.0, sensitivity=1.0, epsilon=1.0, rng=0),
                                     {"sensitivity": "positive", "epsilon": "positive"}),
    "mechanisms.gaussian_mechanism": (dict(value=1.0, sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0),
                                      {"sensitivity": "positive", "epsilon": "positive", "delta": "unit"}),
    "mechanisms.unsafe_float_laplace": (dict(value=1.0, sensitivity=1.0, epsilon=1.0, rng=0),
                                        {"sensitivity": "positive", "epsilon": "positive"}),
    "mechanisms.unsafe_float_gaussian": (dict(value=1.0, sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0),
                                         {"sensitivity": "positive", "epsilon": "positive", "delta": "unit"}),
    "mechanisms.laplace_grid": (dict(sensitivity=1.0, epsilon=1.0), {"sensitivity": "positive", "epsilon": "positive"}),
    "mechanisms.gaussian_grid": (dict(sensitivity=1.0, epsilon=1.0, delta=1e-5),
                                 {"sensitivity": "positive", "epsilon": "positive", "delta": "unit"}),
    "mechanisms.sample_discrete_laplace": (dict(scale=3, size=2, rng=0), {"scale": "int"}),
    "mechanisms.sample_discrete_gaussian": (dict(sigma2=3, size=2, rng=0), {"sigma2": "int"}),
    "mechanisms.classic_gaussian_sigma": (dict(sensitivity=1.0, epsilon=0.5, delta=1e-5),
                                          {"sensitivity": "positive", "epsilon": "positive", "delta": "unit"}),
    "mechanisms.analytic_gaussian_sigma": (dict(sensitivity=1.0, epsilon=0.5, delta=1e-5),
                                           {"sensitivity": "positive", "epsilon": "positive", "delta": "unit"}),
    "mechanisms.zcdp_gaussian_sigma": (dict(sensitivity=1.0, epsilon=0.5, delta=1e-5),
                                       {"sensitivity": "positive", "epsilon": "positive", "delta": "unit"}),
    "mechanisms.gaussian_delta": (dict(sigma=1.0, sensitivity=1.0, epsilon=0.5),
                                  {"sigma": "positive", "sensitivity": "positive", "epsilon": "nonneg"}),
    "accounting.basic_composition": (dict(epsilons=[0.1], deltas=[0.0]), {}),
    "accounting.advanced_composition": (dict(epsilon=0.1, delta=0.0, k=3, delta_prime=1e-6),
                                        {"epsilon": "positive", "delta": "nonneg", "k": "int", "delta_prime": "unit"}),
    "accounting.advanced_composition_thm48": (dict(epsilon=0.1, delta=0.0, k=3, delta_prime=1e-6),
                                              {"epsilon": "positive", "delta": "nonneg", "k": "int",
                                               "delta_prime": "unit"}),
    "accounting.zcdp_composition": (dict(rhos=[0.1]), {}),
    "accounting.renyi_gaussian": (dict(z=[0.0], z_prime=[1.0], sigma=1.0, alpha=2.0), {"sigma": "positive"}),
    "accounting.gaussian_rho": (dict(sensitivity=1.0, sigma=1.0), {"sensitivity": "positive", "sigma": "positive"}),
    "accounting.pure_dp_to_zcdp": (dict(epsilon=1.0), {"epsilon": "positive"}),
    "accounting.zcdp_to_dp": (dict(rho=0.1, delta=1e-5), {"rho": "positive", "delta": "unit"}),
    "accounting.zcdp_to_dp_tight": (dict(rho=0.1, delta=1e-5), {"rho": "positive", "delta": "unit"}),
    "accounting.zcdp_to_dp_rho": (dict(epsilon=1.0, delta=1e-5), {"epsilon": "positive", "delta": "unit"}),
    "accounting.split": (dict(budget=(1.0, 0.0), k=2), {"k": "int"}),
    "accounting.default_ledger": (dict(), {}),
    "accounting.reset_default_ledger": (dict(cap=(1.0, 0.0)), {}),
    "dp_rados.dp_feat_beta": (dict(epsilon=1.0), {"epsilon": "positive"}),
    "dp_rados.dp_feat_window": (dict(X=_X, y=_Y, feature=0, epsilon=5.0), {"epsilon": "positive"}),
    "dp_rados.in_dp_feat_set": (dict(X=_X, y=_Y, feature=0, epsilon=5.0, sigmas=np.ones((1, 6), dtype=np.int8)),
                                {"epsilon": "positive"}),
    "dp_rados.dp_feat_signatures": (dict(X=_X, y=_Y, feature=0, n=2, epsilon=5.0, rng=0),
                                    {"epsilon": "positive", "n": "int", "max_trials": "int"}),
    "dp_rados.dp_feat_rados": (dict(X=_X, y=_Y, feature=0, n=2, epsilon=5.0, rng=0),
                               {"epsilon": "positive", "n": "int", "max_trials": "int"}),
    "dp_rados.dp_feat_delta": (dict(m=50, n_minus=20, epsilon=1.0), {"epsilon": "positive", "m": "int",
                                                                     "epsilon_prime": "nonneg"}),
    "dp_rados.theorem7_bound": (dict(n=10, m=50, epsilon=1.0, eta=0.05),
                                {"n": "int", "m": "int", "epsilon": "positive", "eta": "unit"}),
    "dp_rados.rejection_quantile": (dict(n=10, m=50, epsilon=1.0, eta=0.05),
                                    {"n": "int", "m": "int", "epsilon": "positive", "eta": "unit"}),
    "dp_rados.clip_rows": (dict(X=_X, clip=1.0), {"clip": "positive"}),
    "dp_rados.noisy_edges": (dict(X=_X, y=_Y, epsilon=1.0, delta=1e-5, rng=0),
                             {"epsilon": "positive", "delta": "unit", "clip": "positive"}),
    "dp_rados.fixed_support_rados": (dict(edges=_X, y=_Y, n=3, support=2, rng=0), {"n": "int", "support": "int"}),
    "dp_rados.dp_feat_plan": (dict(m=50, n=2, epsilon=4.0, delta=1e-3),
                              {"m": "int", "n": "int", "epsilon": "positive", "delta": "unit"}),
    "dp_rados.dp_feat": (dict(feature=0, epsilon=60.0, delta=0.5), {"epsilon": "positive", "delta": "unit",
                                                                    "max_trials": "int"}),
    "dp_rados.gaussian_edges": (dict(epsilon=1.0, delta=1e-5, support=2), {"epsilon": "positive", "delta": "unit",
                                                                          "clip": "positive"}),
    "dp_rados.gaussian_edges_noise": (dict(epsilon=1.0, delta=1e-5, clip=1.0, m=100, d=3, support=10),
                                      {"epsilon": "positive", "delta": "unit", "clip": "positive", "m": "int",
                                       "d": "int"}),
    "dp_rados.warn_if_noise_dominates": (dict(report=None), {}),
}
MODULES = {"mechanisms": (reference.mechanisms, fast.mechanisms), "accounting": (reference.accounting, fast.accounting),
           "dp_rados": (reference.dp_rados, fast.dp_rados)}
EXTRA = {  # bad values for arguments not covered by the kinds above
    "dp_rados.warn_if_noise_dominates": [dict(report="dominated"), dict(report={"dominated": True}),
                                         dict(report=None, stacklevel=0), dict(report=None, stacklevel=1.5)],
    "dp_rados.gaussian_edges_noise": [dict(epsilon=1.0, delta=1e-5, clip=1.0, m=100, d=3, support=0),
                                      dict(epsilon=1.0, delta=1e-5, clip=1.0, m=100, d=3, support=1.5),
                                      dict(epsilon=1.0, delta=1e-5, clip=1.0, m=100, d=3, support="10")],
    "accounting.basic_composition": [dict(epsilons=[NAN], deltas=[0.0]), dict(epsilons=[-1.0], deltas=[0.0]),
                                     dict(epsilons=[1.0], deltas=[INF]), dict(epsilons=[INF], deltas=[0.0])],
    "accounting.zcdp_composition": [dict(rhos=[NAN]), dict(rhos=[-1.0]), dict(rhos=[INF])],
    "accounting.reset_default_ledger": [dict(cap=(NAN, 0.0)), dict(cap=(-1.0, 0.0)), dict(cap=(0.0, 0.0)),
                                        dict(cap=(1.0, 2.0)), dict(cap=(INF, 0.0)), dict(cap=1.0), dict(cap="1"),
                                        dict(cap=(1.0,))],
    "accounting.renyi_gaussian": [dict(z=[NAN], z_prime=[1.0], sigma=1.0, alpha=2.0),
                                  dict(z=[0.0], z_prime=[1.0], sigma=1.0, alpha=0.5)],
    "accounting.split": [dict(budget=(NAN, 0.0), k=2), dict(budget=(-1.0, 0.0), k=2), dict(budget=(1.0, 2.0), k=2)],
    "mechanisms.laplace_mechanism": [dict(value=NAN, sensitivity=1.0, epsilon=1.0),
                                     dict(value=[1.0, INF], sensitivity=1.0, epsilon=1.0)],
    "mechanisms.gaussian_mechanism": [dict(value=NAN, sensitivity=1.0, epsilon=1.0, delta=1e-5)],
}


def _cases():
    for key, (base, params) in TABLE.items():
        for kind_param, kind in params.items():
            for bad in BAD[kind]:
                yield key, {**base, kind_param: bad}, f"{kind_param}={bad!r}"
        for kwargs in EXTRA.get(key, []):
            yield key, kwargs, repr(kwargs)[:40]


CASES = [(impl_index, key, kwargs, label) for key, kwargs, label in _cases() for impl_index in (0, 1)
         if hasattr(MODULES[key.split(".")[0]][impl_index], key.split(".")[1])]  # factories: fast only


def test_table_covers_every_public_function():
    for mod, (ref, fst) in MODULES.items():
        for impl in (ref, fst):
            public = [n for n in impl.__all__ if inspect.isfunction(getattr(impl, n))]
            missing = [n for n in public if f"{mod}.{n}" not in TABLE]
            assert not missing, (impl.__name__, missing)


@pytest.mark.parametrize("impl_index,key,kwargs,label", CASES,
                         ids=[f"{('reference', 'fast')[c[0]]}.{c[1]}[{c[3]}]" for c in CASES])
def test_bad_value_raises(impl_index, key, kwargs, label):
    mod, name = key.split(".")
    func = getattr(MODULES[mod][impl_index], name)
    with pytest.raises((ValueError, TypeError)):
        out = func(**kwargs)
        if callable(out) and name in ("dp_feat", "gaussian_edges"):
            out(_X, _Y, 2, 0)


@pytest.mark.parametrize("impl", [reference.dp_rados, fast.dp_rados], ids=["reference", "fast"])
def test_non_boolean_sensitive_feature_raises(impl):
    with pytest.raises(ValueError, match="must be boolean with values in"):
        impl.dp_feat_rados(_X, _Y, 1, 2, 5.0, rng=0)
    X01 = _X.copy()
    X01[:, 0] = (X01[:, 0] > 0).astype(float)  # {0, 1} is refused too: map it to {-1, +1} explicitly
    with pytest.raises(ValueError, match="feature 0 must be boolean"):
        impl.dp_feat_window(X01, _Y, 0, 5.0)


@pytest.mark.parametrize("impl", [reference.accounting, fast.accounting], ids=["reference", "fast"])
def test_overspent_budget_raises(impl):
    acc = impl.BudgetAccountant(1.0, 1e-6)
    acc.spend(0.75)
    with pytest.raises(impl.BudgetExceeded, match="epsilon budget exceeded"):
        acc.spend(0.5)
    with pytest.raises(impl.BudgetExceeded, match="delta budget exceeded"):
        acc.spend(0.0, 1e-5)
    for bad in (NAN, INF, -1.0):
        with pytest.raises(ValueError):
            acc.spend(bad)
        with pytest.raises(ValueError):
            impl.BudgetAccountant(bad)
    with pytest.raises(ValueError):
        impl.BudgetAccountant(0.0)


# --------------------------------------------------------------------------- issue 9, item 6: the value argument
MECHANISMS = [("laplace_mechanism", {}), ("gaussian_mechanism", {"delta": 1e-5}),
              ("unsafe_float_laplace", {}), ("unsafe_float_gaussian", {"delta": 1e-5})]


@pytest.mark.parametrize("impl", [reference.mechanisms, fast.mechanisms], ids=["reference", "fast"])
@pytest.mark.parametrize("name,extra", MECHANISMS, ids=[m[0] for m in MECHANISMS])
def test_value_zero_d_is_a_scalar_and_every_shape_is_accepted(impl, name, extra):
    """A 0-d array is a scalar (the old code: 'value must be a 1-d array, got shape ()'); 1-d, 2-d and 3-d arrays
    are accepted by every mechanism and keep their shape (documented: the sensitivity bounds the norm over all
    entries)."""
    func = getattr(impl, name)
    kw = dict(sensitivity=1.0, epsilon=1.0, rng=0, **extra)
    for zero_d in (np.array(2.5), np.array(3), np.float32(1.5)):
        out = func(zero_d, **kw)
        assert type(out) is float
    assert func(np.array(2.5), **kw) == func(2.5, **kw)  # the same draws as the scalar
    for shape in [(3,), (2, 3), (2, 1, 2)]:
        out = func(np.zeros(shape), **kw)
        assert isinstance(out, np.ndarray) and out.shape == shape and out.dtype == np.float64
    with pytest.raises(TypeError, match="value must be a real number or a numeric array"):
        func(np.array(True), **kw)
    with pytest.raises(ValueError, match="value must be a finite number, got nan"):
        func(np.array(np.nan), **kw)


@pytest.mark.parametrize("impl", [reference.mechanisms, fast.mechanisms], ids=["reference", "fast"])
def test_error_messages_do_not_contradict_themselves(impl):
    """'a finite number in [-inf, inf], got nan' and 'a finite number in (0.0, inf], got inf' (the old messages)
    state an interval that contains the refused value; the interval printed now excludes it."""
    import re

    cases = [(dict(value=float("nan"), sensitivity=1.0, epsilon=1.0), "value must be a finite number, got nan"),
             (dict(value=1.0, sensitivity=1.0, epsilon=float("inf")), "epsilon must be a finite number in (0.0, inf), got inf"),
             (dict(value=1.0, sensitivity=-1.0, epsilon=1.0), "sensitivity must be a finite number in (0.0, inf), got -1.0")]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=re.escape(message)):
            impl.laplace_mechanism(**kwargs, rng=0)
    for bad in (float("inf"), float("-inf"), float("nan"), 0.0, -1.0):
        with pytest.raises(ValueError) as info:
            impl.laplace_mechanism(1.0, sensitivity=1.0, epsilon=bad, rng=0)
        text = str(info.value)
        assert "inf]" not in text and "[-inf" not in text, text


# --------------------------------------------------------------------------- issue 9, item 6: 0-d array PARAMETERS
def _same(a, b):
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)
    if callable(a) or hasattr(a, "__dict__") and not hasattr(a, "__dataclass_fields__"):
        return repr(a) == repr(b)
    return a == b


ZERO_D_CASES = [(impl_index, key, param) for key, (base, params) in TABLE.items() for param in params
                if param in base  # a parameter with a default has no valid value in the table
                for impl_index in (0, 1) if hasattr(MODULES[key.split(".")[0]][impl_index], key.split(".")[1])]


@pytest.mark.parametrize("impl_index,key,param", ZERO_D_CASES,
                         ids=[f"{('reference', 'fast')[c[0]]}.{c[1]}[{c[2]}]" for c in ZERO_D_CASES])
def test_zero_d_array_parameter_is_the_scalar(impl_index, key, param):
    """A 0-d numeric array passed as a PARAMETER (sensitivity, epsilon, delta, scale, sigma2, n, ...) is that number:
    the old code said 'sensitivity must be a real number, got array(1.)'.  Same result as the scalar (the same
    draws under the same seed); a 0-d bool array is refused as bool is."""
    mod, name = key.split(".")
    func = getattr(MODULES[mod][impl_index], name)
    base = TABLE[key][0]
    scalar = base[param]
    as_array = np.array(scalar)
    assert as_array.ndim == 0 and as_array.dtype.kind in "if"
    out_array = func(**{**base, param: as_array})
    out_scalar = func(**base)
    assert _same(out_array, out_scalar), (out_array, out_scalar)
    with pytest.raises(TypeError, match=f"{param} must be"):
        func(**{**base, param: np.array(True)})


@pytest.mark.parametrize("impl", [reference.mechanisms, fast.mechanisms], ids=["reference", "fast"])
def test_the_audited_zero_d_calls(impl):
    """The calls of the audit, verbatim: each raised TypeError ('... must be a real number, got array(1.)')."""
    kw = dict(rng=np.random.default_rng(3))
    assert impl.laplace_mechanism(1.0, sensitivity=np.array(1.0), epsilon=1.0, **kw) == \
        impl.laplace_mechanism(1.0, sensitivity=1.0, epsilon=1.0, rng=np.random.default_rng(3))
    assert impl.laplace_mechanism(1.0, sensitivity=1.0, epsilon=np.array(0.5), rng=1) == \
        impl.laplace_mechanism(1.0, sensitivity=1.0, epsilon=0.5, rng=1)
    assert impl.gaussian_mechanism(1.0, sensitivity=1.0, epsilon=np.float32(1.0), delta=np.array(1e-5), rng=1) == \
        impl.gaussian_mechanism(1.0, sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=1)
    assert impl.sample_discrete_laplace(np.array(2), rng=5) == impl.sample_discrete_laplace(2, rng=5)
    assert impl.sample_discrete_gaussian(np.array(2, dtype=np.uint8), size=3, rng=5).tolist() == \
        impl.sample_discrete_gaussian(2, size=3, rng=5).tolist()
    acc = fast.accounting.BudgetAccountant(np.array(1.0))  # the ledger takes the same scalars
    impl.laplace_mechanism(1.0, sensitivity=np.array(1.0), epsilon=np.array(0.5), rng=0, accountant=acc)
    assert acc.spent_epsilon == fast.accounting.Budget(acc.spent_epsilon, 0).epsilon <= 0.5


@pytest.mark.parametrize("impl", [reference.mechanisms, fast.mechanisms], ids=["reference", "fast"])
def test_integer_scale_message_does_not_contradict_itself(impl):
    """'scale must be an integer, got 2.0' (the old message) refuses a value that IS an integer.  The rule is the
    TYPE (no silent coercion; Python's own integer arguments refuse floats, e.g. range(2.0)), so an integral float is
    still refused, and the message now says so; both packages say it identically (shared validator)."""
    import re

    cases = [(2.0, "the float 2.0"), (np.array(2.0), "a 0-d float64 array array(2.)"), (2.5, "the float 2.5"),
             (True, "the bool True"), ("3", "the str '3'"), (None, "None")]
    for func, name in ((impl.sample_discrete_laplace, "scale"), (impl.sample_discrete_gaussian, "sigma2")):
        for bad, shown in cases:
            message = f"{name} must be an integer-typed number (int or numpy integer, not bool), got {shown}"
            with pytest.raises(TypeError, match=re.escape(message)) as info:
                func(bad, rng=0)
            assert str(info.value) == message
        for ok in (2, np.int64(2), np.array(2), np.array(2, dtype=np.int8)):
            assert isinstance(func(ok, rng=0), int)
    with pytest.raises(ValueError, match=re.escape("scale must be an integer >= 1, got 0")):
        impl.sample_discrete_laplace(np.array(0), rng=0)


# --------------------------------------------------------------------------- issue 28 item 6: the noise reports
# fast only (estimator-level, no reference mirror): function -> (valid keyword arguments, {parameter: kind})
REPORTS = {
    "boosting.boosting_noise": (dict(epsilon=1.0, delta=1e-6, n=100, d=3),
                                {"epsilon": "positive", "delta": "unit", "n": "int", "d": "int", "n_rounds": "int",
                                 "n_thresholds": "int", "n_fits": "int", "kappa": "unit", "rho": "positive"}),
    "causal.anm_noise": (dict(score="kendall", m=100, n=100, epsilon=1.0),
                         {"epsilon": "positive", "m": "int", "n": "int", "delta": "nonneg"}),
}
REPORT_EXTRA = {
    "boosting.boosting_noise": [dict(n=100, d=3, booster="ada"), dict(n=100, d=3, weak_learner="tree")],
    "causal.anm_noise": [dict(score="tau", m=100, n=100), dict(score="kendall", m=100, n=100, privacy="both")],
    "boosting.warn_if_boosting_noise": [dict(report={"dominated": True}), dict(report=None, stacklevel=0),
                                        dict(report=None, stacklevel=True)],
    "causal.warn_if_anm_noise": [dict(report="dominated"), dict(report=None, stacklevel=1.5)],
}


def _report_cases():
    for key, (base, params) in REPORTS.items():
        for param, kind in params.items():
            for bad in BAD[kind]:
                if param == "rho" and bad is None:
                    continue  # rho=None is the (epsilon, delta) grant
                yield key, {**base, param: bad}, param, f"{param}={bad!r}"
    for key, cases in REPORT_EXTRA.items():
        for kwargs in cases:
            yield key, kwargs, None, repr(kwargs)[:40]


REPORT_CASES = list(_report_cases())


def test_report_table_covers_the_report_functions():
    import fast.estimators.boosting as boosting
    import fast.estimators.causal as causal

    for mod, name in (("boosting", boosting), ("causal", causal)):
        funcs = [n for n in name.__all__ if n.endswith("_noise") and inspect.isfunction(getattr(name, n))]
        assert funcs and all(f"{mod}.{f}" in {**REPORTS, **REPORT_EXTRA} for f in funcs), funcs


@pytest.mark.parametrize("key,kwargs,param,label", REPORT_CASES, ids=[f"{c[0]}[{c[3]}]" for c in REPORT_CASES])
def test_report_bad_value_raises_naming_the_argument(key, kwargs, param, label):
    """boosting_noise / anm_noise / their warn_if_* refuse every bad value with ValueError / TypeError naming the
    argument (never a report computed from a NaN budget)."""
    import importlib

    mod, name = key.split(".")
    func = getattr(importlib.import_module(f"fast.estimators.{mod}"), name)
    with pytest.raises((ValueError, TypeError)) as info:
        func(**kwargs)
    if param is not None:
        assert param in str(info.value), str(info.value)
