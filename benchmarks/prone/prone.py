#!/usr/bin/env python3
"""ProNE embeddings (Zhang et al., IJCAI 2019) as its authors' code computes
them (THUDM/ProNE, proNE.py, transcribed with their defaults: α = 0.75,
10 Chebyshev terms, μ = 0.2, θ = 0.5), on a released split's training
graph: the cross-check of `wys-sparse -method prone`, scored by the same
evaluator (`wys-sparse eval -emb OUT.npy -split DIR`).

Usage: prone.py SPLITDIR OUT.npy [--dim k] [--seed s] [--exact]

It reads SPLITDIR/train.txt.npy.gz (the training pairs), makes the graph
undirected with unit weights and no self-loops, and writes the k-column
embedding to OUT.npy with its rows' original ids in OUT.ids.txt (from
SPLITDIR/index.tsv.gz). The sparse factorization uses scikit-learn's
randomized_svd with 5 power iterations as the authors do (--seed its
random_state), or a dense exact SVD with --exact, which is what
`wys-sparse -method prone` converges to (its -dim d gives k = d/2).
"""
import argparse
import gzip
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("split")
    ap.add_argument("out")
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--exact", action="store_true")
    a = ap.parse_args()
    try:
        import numpy as np
        import scipy.sparse as sp
        from scipy import linalg
        from scipy.special import iv
        from sklearn import preprocessing
        from sklearn.utils.extmath import randomized_svd
    except ImportError as e:
        sys.exit("prone.py: %s (Debian: apt-get install python3-scipy python3-sklearn)" % e)

    train = np.load(gzip.open(a.split + "/train.txt.npy.gz"))
    index = {}
    for line in gzip.open(a.split + "/index.tsv.gz", "rt"):
        if not line.startswith("#"):
            orig, node = line.rstrip("\n").split("\t")
            index[int(node)] = orig
    n = max(index) + 1
    keep = train[:, 0] != train[:, 1]
    u, v = train[keep, 0], train[keep, 1]
    A = sp.csr_matrix((np.ones(2 * len(u)), (np.r_[u, v], np.r_[v, u])), shape=(n, n))
    A.data[:] = 1  # duplicates summed by the constructor: unit weights
    k = a.dim

    # Sparse matrix factorization (pre_factorization).
    C1 = preprocessing.normalize(A, "l1")
    neg = np.array(C1.sum(axis=0))[0] ** 0.75
    neg = neg / neg.sum()
    neg = A.dot(sp.diags(neg, format="csr"))
    C1.data[C1.data <= 0] = 1
    neg.data[neg.data <= 0] = 1
    C1.data = np.log(C1.data)
    neg.data = np.log(neg.data)
    F = C1 - neg
    if a.exact:
        U, S, _ = linalg.svd(F.toarray())
        U, S = U[:, :k], S[:k]
    else:
        U, S, _ = randomized_svd(sp.csc_matrix(F), n_components=k, n_iter=5, random_state=a.seed)
    emb = preprocessing.normalize(U * np.sqrt(S), "l2")

    # Spectral propagation (chebyshev_gaussian).
    order, mu, s = 10, 0.2, 0.5
    At = sp.eye(n) + A
    DA = preprocessing.normalize(At, norm="l1")
    M = sp.eye(n) - DA - mu * sp.eye(n)
    Lx0 = emb
    Lx1 = 0.5 * M.dot(M.dot(emb)) - emb
    conv = iv(0, s) * Lx0 - 2 * iv(1, s) * Lx1
    for i in range(2, order):
        Lx2 = (M.dot(M.dot(Lx1)) - 2 * Lx1) - Lx0
        conv += (2 if i % 2 == 0 else -2) * iv(i, s) * Lx2
        Lx0, Lx1 = Lx1, Lx2
    mm = At.dot(emb - conv)
    U, S, _ = linalg.svd(mm, full_matrices=False)
    emb = preprocessing.normalize(U[:, :k] * np.sqrt(S[:k]), "l2")

    np.save(a.out, np.ascontiguousarray(emb, dtype=np.float32))
    base = a.out[:-4] if a.out.endswith(".npy") else a.out
    with open(base + ".ids.txt", "w") as f:
        for i in range(n):
            f.write(index[i] + "\n")


if __name__ == "__main__":
    try:
        main()
    except OSError as e:  # a missing or unreadable input, an unwritable output
        sys.exit("%s: %s" % ("prone.py", e))
