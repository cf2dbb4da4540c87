#!/usr/bin/env python3
"""The independent check of `wys-sparse eval -mrr all`.

Usage: rank_check.py DIR

Reads the files eval_check.py wrote to DIR (gensim.txt, a word2vec text
file, and split/, whose index.tsv names row i) without redrawing them, and
ranks each test pair (u, v) of split/test.txt.npy twice with numpy, in
float64 from the file's float32 vectors: the score of (u, v) against the
score of (u, w), and against (w, v), for every node w other than u and v.
A rank is 1 + the nodes scoring above + half of those tied (OGB's MRR
counts ties so). For the dot product and the cosine it writes the mean
reciprocal rank, the mean rank and Hits@1/10/50 (the share of ranks of at
most k) over both sides of every pair to DIR/rank.json; the Go test
TestEvalRankMatchesNumpy in cmd/wys-sparse compares `wys-sparse eval -mrr
all` with them. Needs numpy and gensim (Debian's python3-gensim).
"""
import json
import os
import sys

if sys.argv[1:] in (["-h"], ["--help"]):
    print(__doc__.strip())
    sys.exit(0)
if len(sys.argv) != 2:
    sys.stderr.write("usage: rank_check.py DIR (--help says more)\n")
    sys.exit(2)
try:
    import numpy as np  # noqa: E402
    from gensim.models import KeyedVectors  # noqa: E402
except ImportError as e:
    sys.exit("rank_check.py: %s (Debian: apt-get install python3-gensim)" % e)


def ranks(s, pos, exclude):
    """Rank s[pos] among s[w] for w not in exclude (the pair's two nodes)."""
    others = np.delete(s, list(set(exclude)))
    return 1 + np.sum(others > s[pos]) + 0.5 * np.sum(others == s[pos])


def main():
    d = sys.argv[1]
    kv = KeyedVectors.load_word2vec_format(os.path.join(d, "gensim.txt"), binary=False)
    names = {}
    with open(os.path.join(d, "split", "index.tsv")) as f:
        for line in f:
            if line.startswith("#"):
                continue
            name, row = line.split()
            names[int(row)] = name
    n = len(names)
    y = np.array([kv[names[i]] for i in range(n)], dtype=np.float64)
    test = np.load(os.path.join(d, "split", "test.txt.npy"))
    out = {"produced_by": "benchmarks/scripts/rank_check.py", "numpy": np.__version__, "pairs": int(len(test))}
    for score in ("dot", "cosine"):
        x = y / np.linalg.norm(y, axis=1, keepdims=True) if score == "cosine" else y
        s = x @ x.T
        rk = []
        for u, v in test:
            rk.append(ranks(s[u], v, (u, v)))     # tails w of u
            rk.append(ranks(s[:, v], u, (u, v)))  # heads w of v
        rk = np.array(rk, dtype=np.float64)
        out[score] = {"mrr": float(np.mean(1 / rk)), "mean_rank": float(np.mean(rk)),
                      "hits": {str(k): float(np.mean(rk <= k)) for k in (1, 10, 50)}}
    with open(os.path.join(d, "rank.json"), "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
