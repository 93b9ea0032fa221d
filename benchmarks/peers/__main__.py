"""``python -m benchmarks.peers``: see :mod:`benchmarks.peers`."""

import sys

from benchmarks.peers import main

if __name__ == "__main__":
    sys.exit(0 if main() is not None else 1)
