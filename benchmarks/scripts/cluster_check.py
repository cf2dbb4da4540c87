#!/usr/bin/env python3
"""scikit-learn's clustering scores on seeded random labellings, the oracle
of package eval's NMI and ARI (TestClusterScoresSklearn).

usage: cluster_check.py OUT.json

Each case is two labellings of the same rows (class counts from 1 to 8,
rows from 1 to 300, some one class per row), with
normalized_mutual_info_score (arithmetic mean, the default) and
adjusted_rand_score.
"""
import json
import sys

if sys.argv[1:] in (["-h"], ["--help"]):
    print(__doc__.strip())
    sys.exit(0)
if len(sys.argv) != 2:
    sys.stderr.write("usage: cluster_check.py OUT.json (--help says more)\n")
    sys.exit(2)
try:
    import numpy as np  # noqa: E402
    import sklearn  # noqa: E402
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score  # noqa: E402
except ImportError as e:
    sys.exit("cluster_check.py: %s (Debian: apt-get install python3-sklearn)" % e)


def main():
    rng = np.random.default_rng(20261127)
    cases = []
    shapes = [(1, 1, 1), (5, 1, 1), (5, 1, 3), (6, 6, 6), (40, 3, 3), (40, 2, 7),
              (100, 5, 5), (300, 7, 4), (300, 8, 8), (57, 4, 1)]
    for n, ka, kb in shapes:
        for rep in range(3):
            a = rng.integers(0, ka, n)
            if rep == 2:
                # b agrees with a on most rows (a labelling close to the truth)
                b = np.where(rng.random(n) < 0.8, a % kb, rng.integers(0, kb, n))
            else:
                b = rng.integers(0, kb, n)
            if n == 6 and rep == 1:
                b = np.arange(n)  # every row its own cluster
            # sparse, non-contiguous label values
            a = a * 3 + 10
            b = b * 5 - 2
            cases.append({
                "a": a.tolist(), "b": b.tolist(),
                "nmi": float(normalized_mutual_info_score(a, b)),
                "ari": float(adjusted_rand_score(a, b)),
            })
    json.dump({"sklearn": sklearn.__version__, "cases": cases}, open(sys.argv[1], "w"))


if __name__ == "__main__":
    main()
