"""Pairs for reference.labels / fast.labels."""
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fast.labels
import reference.labels
from spec.pairs import Call, Pair


@st.composite
def _two_class(draw):
    a, b = draw(st.lists(st.integers(-3, 3), min_size=2, max_size=2, unique=True))
    y = draw(hnp.arrays(np.int64, draw(st.integers(2, 20)), elements=st.sampled_from([a, b])))
    y[0], y[-1] = a, b
    positive = draw(st.sampled_from([None, a, b]))
    return Call((y,), {"positive": positive})


_bad = st.sampled_from([
    Call((np.zeros(5),)),                      # one class
    Call((np.array([0, 1, 2]),)),              # three classes
    Call((np.array([0, 1, 1]),), {"positive": 7}),
    Call((np.zeros((2, 2)),)),                 # not 1-d
])

# (NaN only in float arrays: the harness's unchanged-input check compares object arrays without equal_nan)
_LABEL_VALUES = st.one_of(st.integers(-2, 2), st.sampled_from([0.0, 1.0, True, False, None, "a", "1", (1,)]))


@st.composite
def _declared(draw):
    """Any labels against a declared pair: int / float (NaN) / str arrays, object arrays and lists of mixed values."""
    classes = draw(st.sampled_from([(0, 1), (-1, 1), (1, 0), (0.0, 1.0), ("a", "b"), ("no", "1"), (False, True)]))
    kind = draw(st.sampled_from(["int", "float", "str", "object", "list"]))
    n = draw(st.integers(1, 12))
    if kind == "int" and not isinstance(classes[1], str):
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(-2, 2)))
    elif kind == "float" and not isinstance(classes[1], str):
        y = draw(hnp.arrays(np.float64, n, elements=st.sampled_from([0.0, 1.0, -1.0, 2.5, float("nan")])))
    elif kind == "str" and isinstance(classes[1], str):
        y = draw(hnp.arrays(np.dtype("U2"), n, elements=st.sampled_from(["a", "b", "no", "1", ""])))
    else:
        values = draw(st.lists(_LABEL_VALUES, min_size=n, max_size=n))
        y = values if kind == "list" else np.array(values + [None], dtype=object)[:n]
    return Call((y, classes), {"n": n if draw(st.booleans()) else None})


_bad_declared = st.sampled_from([
    Call((np.zeros(3), (0, 0))),               # not two distinct labels
    Call((np.zeros(3), (1, True))),            # equal: 1 == True
    Call((np.zeros(3), (0, float("nan")))),    # NaN never matches
    Call((np.zeros(3), (0, 1, 2))),            # not a pair
    Call((np.zeros(3), "ab")),                 # a str is not a pair
    Call((np.zeros((2, 2)), (0, 1))),          # not 1-d
    Call((np.zeros(3), (0, 1)), {"n": 4}),     # one label per row
    Call((np.zeros(3), ("no", "yes"))),        # a float y can never hold 'yes' (from the dtype)
    Call((None, (0, 1))),                      # no y
])

PAIRS = {
    "labels.declared_pm1": Pair(reference.labels.declared_pm1, fast.labels.declared_pm1, _declared(),
                                bad_inputs=_bad_declared,
                                note="exact: int8 labels compared exactly (one vectorised comparison vs a loop)"),
    "labels.to_pm1": Pair(reference.labels.to_pm1, fast.labels.to_pm1, _two_class(), bad_inputs=_bad,
                          note="exact: labels and classes compared exactly"),
}
