import numpy as np

from fast.labels import to_pm1


def test_to_pm1_maps_larger_class_to_plus_one_and_round_trips():
    y = np.array(["b", "a", "b", "a"])
    labels, classes = to_pm1(y)
    assert labels.tolist() == [1, -1, 1, -1] and classes.tolist() == ["a", "b"]
    assert np.array_equal(classes[(labels + 1) // 2], y)
    labels, classes = to_pm1(y, positive="a")
    assert labels.tolist() == [-1, 1, -1, 1] and classes.tolist() == ["b", "a"]
