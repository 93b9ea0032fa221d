"""One helper for the tests that check reference and fast refuse bad input alike (same exception type, same
message): imported by the module test files (tests/test_<module>.py) that compare the two packages."""
import pytest


def raises_same(ref_call, fast_call):
    """``ref_call`` raises TypeError or ValueError, and ``fast_call`` the same type with the same message."""
    with pytest.raises((TypeError, ValueError)) as ref_error:
        ref_call()
    with pytest.raises(type(ref_error.value)) as fast_error:
        fast_call()
    assert str(fast_error.value) == str(ref_error.value)
