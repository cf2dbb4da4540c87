#!/usr/bin/env python3
"""Checks deepwalk.py's weighted and node2vec walk steps against their exact
transition probabilities.

Usage: walks_check.py

On a random weighted graph of 8 nodes, for every arc (t, v) it draws
200,000 node2vec steps from v with previous node t (p = 0.5, q = 3) and
200,000 weighted first-order steps from v, and compares the frequencies
with the exact distributions, A_vx·alpha(t, x) / sum and A_vx / deg(v),
written out here from the definitions: every node that cannot be reached
must never be drawn, and the largest standardised difference over all
(t, v, x) must stay below 4.5 (about 400 comparisons; 3 or so by chance).
It exits non-zero otherwise. Needs numpy only.
"""
import os
import sys
import tempfile

if sys.argv[1:] in (["-h"], ["--help"]):
    print(__doc__.strip())
    sys.exit(0)
if len(sys.argv) != 1:
    sys.stderr.write("usage: walks_check.py (--help says more)\n")
    sys.exit(2)
try:
    import numpy as np  # noqa: E402
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import deepwalk  # noqa: E402
except ImportError as e:
    sys.exit("walks_check.py: %s (Debian: apt-get install python3-numpy)" % e)


def main():
    rng = np.random.default_rng(0)
    n, p, q, m = 8, 0.5, 3.0, 200000
    edges = {}
    while len(edges) < 14:
        a, b = rng.integers(0, n, 2)
        if a != b:
            edges[(min(a, b), max(a, b))] = int(rng.integers(1, 5))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "g.tsv")
        with open(path, "w") as f:
            for (a, b), w in edges.items():
                f.write("%d\t%d\t%d\n" % (a, b, w))
        indptr, ind, w = deepwalk.read_csr(path, n, np, True)
    A = np.zeros((n, n))
    for (a, b), x in edges.items():
        A[a, b] = A[b, a] = x
    walker = deepwalk.Walker(indptr, ind, w, n, p, q, np)
    worst = 0.0
    for t in range(n):
        for v in range(n):
            if A[t, v] == 0:
                continue
            alpha = np.array([1 / p if x == t else (1.0 if A[t, x] > 0 else 1 / q) for x in range(n)])
            for exact, got in (
                (A[v] * alpha, walker.second(np.full(m, t), np.full(m, v), rng)),
                (A[v].copy(), walker.first(np.full(m, v), rng)),
            ):
                exact /= exact.sum()
                freq = np.bincount(got, minlength=n) / m
                if np.any(freq[exact == 0] > 0):
                    sys.exit("walks_check: step from %d (previous %d) reached a node it cannot" % (v, t))
                sure = exact == 1
                if np.any(freq[sure] != 1):
                    sys.exit("walks_check: step from %d (previous %d) left its only choice" % (v, t))
                ok = (exact > 0) & ~sure
                if ok.any():
                    z = np.abs(freq - exact)[ok] / np.sqrt(exact * (1 - exact) / m)[ok]
                    worst = max(worst, z.max())
    print("largest standardised difference %.2f (limit 4.5)" % worst)
    if worst > 4.5:
        sys.exit(1)


if __name__ == "__main__":
    main()
