"""scikit-learn checks that a classifier with a DECLARED label set cannot pass, by design (issue 25, item 1).

A private fit takes its label set as public input (``classes=(negative, positive)``): y == classes[1] is +1 and every
other value -1, and no exception, warning or message may depend on which labels occur (one record's label would
otherwise decide whether the fit fails).  The checks below assert the opposite (an error on labels the fit never
reads), so they are waived with the reason; every other check still runs.
"""

#: the checks whose expectation contradicts a declared label set, with the reason
DECLARED_LABEL_WAIVERS = {
    "check_classifiers_classes": (
        "the label set is declared (classes=(0, 1)): the check fits string labels ('one', 'two'), which a declared "
        "numeric pair cannot hold (refused from y's dtype alone)"),
    "check_classifiers_regression_target": (
        "a private fit never reads which labels occur, so it cannot refuse a continuous target: every value but "
        "classes[1] is the negative class"),
    "check_supervised_y_no_nan": (
        "a NaN / inf label is in the documented negative bucket instead of an error (one record's label must not "
        "decide whether the fit fails)"),
    "check_classifier_not_supporting_multiclass": (
        "a third label value is in the negative bucket instead of a 'multiclass' error, which would reveal that the "
        "value occurs"),
}

#: with OS-entropy noise (not the test-only seed) only
ONE_LABEL_WAIVER = {
    "check_classifiers_one_label": (
        "one class present is a valid private fit (refusing it would reveal that the other class is absent); which "
        "class the noisy model then predicts depends on the noise"),
}
