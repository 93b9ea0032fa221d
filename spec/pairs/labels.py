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

PAIRS = {
    "labels.to_pm1": Pair(reference.labels.to_pm1, fast.labels.to_pm1, _two_class(), bad_inputs=_bad,
                          note="exact: labels and classes compared exactly"),
}
