"""The process-wide default ledger (issue 28 item 5): every private release made without ``accountant=`` is recorded
once -- one entry per estimator fit, one per direct mechanism call, none for a fit's internal mechanism calls -- an
explicit ledger is charged instead, a cap refuses before any noise, and it is thread-safe.

Every test here fails on the code before the default ledger existed: ``fast.accounting.default_ledger`` /
``reset_default_ledger`` did not exist (ImportError), and nothing recorded a release made with ``accountant=None``
(a ``GridSearchCV`` over a private estimator left no total at all).
"""
import re
import threading
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV

import fast.estimators.boosting as boosting_module
import reference.accounting as racc
import reference.mechanisms as rmech
from fast import PrivateBoostClassifier
from fast.accounting import (BudgetAccountant, BudgetExceeded, DefaultLedger, LedgerNotShared, default_ledger,
                             reset_default_ledger)
from fast.mechanisms import gaussian_mechanism, laplace_mechanism

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def fresh_ledger():
    """Each test starts from (and leaves) an empty, uncapped default ledger."""
    reset_default_ledger()
    yield
    reset_default_ledger()


def _data(n=120, seed=0):
    gen = np.random.default_rng(seed)
    X = gen.normal(size=(n, 3)) / 3.0
    y = (X[:, 0] > 0).astype(int)
    return X, y


def _exact(spent):
    return spent.exact if spent.exact is not None else (Fraction(spent.epsilon), Fraction(spent.delta))


def test_grid_search_records_one_entry_per_fit_and_their_sum():
    """GridSearchCV(n_jobs=1, cv=3) over 2 candidates runs 2 x 3 + 1 (refit) = 7 private fits: the default ledger
    holds 7 entries labelled with the estimator, and its total is the sum of what the fits delivered (each fit's
    privacy_spent_, recomputed by fitting the same configuration)."""
    X, y = _data()
    search = GridSearchCV(PrivateBoostClassifier(weak_learner="halfspace", classes=(0, 1), data_norm=1.0, n_rounds=5),
                          {"epsilon": [0.5, 1.0]}, cv=3, n_jobs=1).fit(X, y)
    entries = default_ledger().entries()
    assert len(entries) == 2 * 3 + 1
    assert {e.label for e in entries} == {"PrivateBoostClassifier"}
    per_eps = {}
    for eps in (0.5, 1.0):  # what one fit at this epsilon delivers (depends on the public sizes only)
        reset_default_ledger()
        clf = PrivateBoostClassifier(weak_learner="halfspace", classes=(0, 1), data_norm=1.0, n_rounds=5,
                                     epsilon=eps).fit(X[:80], y[:80])
        per_eps[eps] = _exact(clf.privacy_spent_)
        (entry,) = default_ledger().entries()
        assert (entry.epsilon, entry.delta) == per_eps[eps]  # the entry IS the fit's privacy_spent_
        assert entry.rho == Fraction(clf.privacy_spent_.rho)
    best = _exact(search.best_estimator_.privacy_spent_)
    want_eps = 3 * per_eps[0.5][0] + 3 * per_eps[1.0][0] + best[0]
    want_delta = 3 * per_eps[0.5][1] + 3 * per_eps[1.0][1] + best[1]
    total = sum(e.epsilon for e in entries), sum(e.delta for e in entries)
    assert total == (want_eps, want_delta)
    assert float(total[0]) > 4.9  # >= 3 x 0.5 + 3 x 1.0 + 0.5 (delivered <= granted by ~1e-8), not one fit's


def test_direct_mechanism_calls_record_one_entry_each_in_both_packages():
    """One entry per direct call, the delivered spend exactly; ``reference`` records in the same (one) ledger."""
    assert racc.default_ledger() is default_ledger()
    laplace_mechanism(np.ones(4), sensitivity=1.0, epsilon=0.5)
    gaussian_mechanism(1.0, sensitivity=1.0, epsilon=0.5, delta=1e-5)
    rmech.laplace_mechanism(1.0, sensitivity=1.0, epsilon=0.25)
    e1, e2, e3 = default_ledger().entries()
    assert (e1.label, e1.epsilon, e1.delta, e1.rho) == ("laplace_mechanism", Fraction(1, 2), 0, None)
    assert (e2.label, e2.epsilon, e2.delta) == ("gaussian_mechanism", Fraction(1, 2), Fraction(1e-5))
    assert e2.rho is not None and e2.rho > 0
    assert (e3.label, e3.epsilon) == ("laplace_mechanism", Fraction(1, 4))
    assert default_ledger().total().epsilon == Fraction(5, 4)
    assert not default_ledger().rho_complete and default_ledger().spent_rho == e2.rho


@pytest.mark.parametrize("booster", ["lazy_bregman", "smooth"])
def test_a_fit_adds_exactly_one_entry_not_its_internal_mechanism_calls(booster):
    """booster='smooth' runs smooth_boost, whose rounds call laplace_mechanism and gaussian_mechanism: without the
    private_release frame each call (and smooth_boost's own charge) would be recorded too; exactly one entry, the
    fit's charge."""
    X, y = _data()
    kw = dict(epsilon=2.0, delta=1e-5, n_rounds=4, classes=(0, 1), weak_learner="halfspace", data_norm=1.0,
              booster=booster)
    if booster == "smooth":
        kw["gamma"] = 0.3
    calls = []
    real = boosting_module._pb.smooth_boost

    def spy(*a, **k):
        calls.append(1)
        return real(*a, **k)

    boosting_module._pb.smooth_boost = spy
    try:
        PrivateBoostClassifier(**kw).fit(X, y)
    finally:
        boosting_module._pb.smooth_boost = real
    assert len(calls) == (booster == "smooth")
    (entry,) = default_ledger().entries()
    assert entry.label == "PrivateBoostClassifier"


def test_explicit_accountant_is_charged_instead_of_the_default():
    X, y = _data()
    acc = BudgetAccountant(10.0, 1e-3)
    clf = PrivateBoostClassifier(weak_learner="halfspace", epsilon=1.0, n_rounds=5, classes=(0, 1),
                                 data_norm=1.0).fit(X, y, accountant=acc)
    laplace_mechanism(1.0, sensitivity=1.0, epsilon=0.5, accountant=acc)
    assert len(default_ledger()) == 0
    assert acc.spent_epsilon == _exact(clf.privacy_spent_)[0] + Fraction(1, 2)


def test_seeded_fit_is_not_recorded():
    """A seeded fit is not private (privacy_spent_ says epsilon = inf): the default ledger does not record it."""
    X, y = _data()
    with pytest.warns(UserWarning):
        PrivateBoostClassifier(weak_learner="halfspace", n_rounds=3, classes=(0, 1), data_norm=1.0,
                               insecure_noise_seed=0).fit(X, y)
    assert len(default_ledger()) == 0


def test_cap_refuses_the_fit_that_would_exceed_it_before_any_noise(monkeypatch):
    X, y = _data()
    led = reset_default_ledger(cap=(1.5, 1e-5))
    PrivateBoostClassifier(weak_learner="halfspace", epsilon=1.0, n_rounds=5, classes=(0, 1),
                           data_norm=1.0).fit(X, y)  # fits the cap
    drawn = []
    real = boosting_module.noise_rng
    monkeypatch.setattr(boosting_module, "noise_rng", lambda seed: drawn.append(seed) or real(seed))
    clf = PrivateBoostClassifier(weak_learner="halfspace", epsilon=1.0, n_rounds=5, classes=(0, 1), data_norm=1.0)
    with pytest.raises(BudgetExceeded):
        clf.fit(X, y)
    assert drawn == [] and not hasattr(clf, "hypotheses_")  # refused before the noise source was opened
    assert len(led) == 1 and led.cap.spent_epsilon == led.total().epsilon
    with pytest.raises(BudgetExceeded):  # a direct mechanism call is refused the same way
        laplace_mechanism(1.0, sensitivity=1.0, epsilon=0.75)
    assert len(led) == 1
    laplace_mechanism(1.0, sensitivity=1.0, epsilon=0.25)  # what is left still fits
    assert len(led) == 2


def test_reset_replaces_the_ledger():
    laplace_mechanism(1.0, sensitivity=1.0, epsilon=0.5)
    old = default_ledger()
    new = reset_default_ledger()
    assert new is default_ledger() and new is not old and len(new) == 0 and len(old) == 1
    assert isinstance(new, DefaultLedger) and new.cap is None
    with pytest.raises(LedgerNotShared):  # per process: never pickled into a worker
        __import__("pickle").dumps(new)


def test_threads_record_every_release_and_a_fit_does_not_mute_another_thread():
    """8 threads x 25 direct calls record 200 entries summing exactly to 200 x 1/4; while another thread fits (its
    frame suppresses ITS internal calls only: a context variable, not a global flag) the direct calls still count."""
    barrier = threading.Barrier(8)

    def calls():
        barrier.wait()
        for _ in range(25):
            laplace_mechanism(1.0, sensitivity=1.0, epsilon=0.25)

    threads = [threading.Thread(target=calls) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(default_ledger()) == 200 and default_ledger().total().epsilon == 50
    reset_default_ledger()
    X, y = _data()
    fitter = threading.Thread(target=lambda: [PrivateBoostClassifier(weak_learner="halfspace",
        n_rounds=3, booster="smooth", gamma=0.3, classes=(0, 1), data_norm=1.0, delta=1e-5).fit(X, y)
        for _ in range(3)])
    fitter.start()
    for _ in range(50):
        laplace_mechanism(1.0, sensitivity=1.0, epsilon=0.25)
    fitter.join()
    labels = [e.label for e in default_ledger().entries()]
    assert labels.count("PrivateBoostClassifier") == 3 and labels.count("laplace_mechanism") == 50
    assert len(labels) == 53


def test_readme_accountant_example_runs():
    """The README's accountant= / default-ledger example (the python block that shows both) runs as shown."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    shown = [b for b in blocks if "default_ledger" in b and "accountant=" in b]
    assert len(shown) == 1, f"{len(shown)} README python blocks show default_ledger and accountant="
    namespace: dict = {}
    exec(compile(shown[0], "README.md", "exec"), namespace)  # noqa: S102 - our own documentation
    assert len(namespace["ledger"]) == 3


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_forked_child_records_in_its_own_copy_and_a_capped_one_fails_closed():
    """Per process: a forked child's release is recorded in its copy only (the parent's ledger is unchanged); with
    a cap the child's release raises LedgerNotShared (the cap cannot be enforced across processes) before any noise."""
    import os

    for cap, want in ((None, b"2"), ((5.0, 0), b"LedgerNotShared")):
        led = reset_default_ledger(cap=cap)
        laplace_mechanism(1.0, sensitivity=1.0, epsilon=0.5)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            try:
                laplace_mechanism(1.0, sensitivity=1.0, epsilon=0.5)
                out = str(len(default_ledger())).encode()
            except Exception as exc:  # noqa: BLE001 - reported to the parent
                out = type(exc).__name__.encode()
            os.write(w, out)
            os._exit(0)
        os.close(w)
        got = os.read(r, 100)
        os.close(r)
        os.waitpid(pid, 0)
        assert got == want
        assert len(led) == 1


@pytest.mark.parametrize("cap", [(float("nan"), 0.0), (-1.0, 0.0), (0.0, 0.0), (1.0, 2.0), 1.0, "1", (1.0,)])
def test_bad_cap_is_refused_naming_cap_and_keeps_the_ledger(cap):
    laplace_mechanism(1.0, sensitivity=1.0, epsilon=0.5)
    before = default_ledger()
    with pytest.raises((ValueError, TypeError), match="cap must be None or an"):
        reset_default_ledger(cap=cap)
    assert default_ledger() is before and len(before) == 1
