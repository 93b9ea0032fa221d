import numpy as np

from fast.labels import to_pm1
import pytest


def test_to_pm1_maps_larger_class_to_plus_one_and_round_trips():
    y = np.array(["b", "a", "b", "a"])
    labels, classes = to_pm1(y)
    assert labels.tolist() == [1, -1, 1, -1] and classes.tolist() == ["a", "b"]
    assert np.array_equal(classes[(labels + 1) // 2], y)
    labels, classes = to_pm1(y, positive="a")
    assert labels.tolist() == [-1, 1, -1, 1] and classes.tolist() == ["b", "a"]


@pytest.mark.parametrize("y", [
    np.array([3, 7, 7, 3, 3]), np.array([7.5, -1.0, 7.5]), np.array([True, False, False]),
    np.array([0, 1, 1], dtype=np.uint8), np.array([-5, 2**62], dtype=np.int64), np.array([0.0, -0.0, 1.0]),
    np.array([1, 2, 3]), np.array([4, 4, 4]), np.array(["no", "yes", "no"]),
    np.array([np.inf, -np.inf, np.inf]), [0, 1, 1, 0],
])
@pytest.mark.parametrize("positive", [None, "first", "second", 99])
def test_to_pm1_matches_reference(y, positive):
    import fast.labels as F
    import reference.labels as R

    values = sorted(set(np.asarray(y).tolist()), key=str)
    chosen = {None: None, "first": values[0], "second": values[-1], 99: 99}[positive]
    try:
        want = R.to_pm1(y, positive=chosen)
    except ValueError as error:
        with pytest.raises(ValueError) as fast_error:
            F.to_pm1(y, positive=chosen)
        assert str(fast_error.value) == str(error)
        return
    got = F.to_pm1(y, positive=chosen)
    assert got[0].dtype == np.int8 and np.array_equal(got[0], want[0])
    assert got[1].tolist() == want[1].tolist()
    unique = np.unique(np.asarray(y))  # classes keep y's dtype, as before (np.unique's scalars)
    pos = unique[1] if chosen is None else chosen
    assert got[1].dtype == np.array([unique[0] if pos == unique[1] else unique[1], pos]).dtype
