#!/usr/bin/env python3
"""NetMF embeddings (Qiu et al., WSDM 2018, the small-T closed form), as a
reference point for the multi-label benchmarks: what an embedding of the
shifted PMI matrix that skip-gram with degree-based negatives factorizes
scores under the same evaluator (`wys-sparse eval -mat`).

Usage: netmf.py FILE.mat[.gz] OUT.npy [--window T] [--negative b]
                [--dim d] [--unweighted]

It reads the .mat file's `network` (scipy), drops self-loops, and computes
M = vol(G)/(b·T) · Σ_{r=1..T} (D⁻¹A)^r · D⁻¹, then the embedding
U_d·sqrt(Σ_d) of the truncated SVD of log(max(M, 1)), densely (graphs of a
few thousand nodes). Rows are the .mat rows 0..N-1, so OUT.npy needs no
ids file.
"""
import argparse
import gzip
import io
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mat")
    ap.add_argument("out")
    ap.add_argument("--window", type=int, default=1)
    ap.add_argument("--negative", type=float, default=1.0)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--unweighted", action="store_true")
    a = ap.parse_args()
    try:
        import numpy as np
        import scipy.io
    except ImportError as e:
        sys.exit("netmf.py: %s (Debian: apt-get install python3-scipy)" % e)
    raw = open(a.mat, "rb").read()
    if a.mat.endswith(".gz"):
        raw = gzip.decompress(raw)
    A = scipy.io.loadmat(io.BytesIO(raw))["network"].toarray().astype(np.float64)
    if a.unweighted:
        A = (A != 0).astype(np.float64)
    np.fill_diagonal(A, 0)
    d = A.sum(axis=1)
    if (d == 0).any():
        sys.exit("netmf.py: %s: %d isolated nodes; NetMF needs every degree positive" % (a.mat, int((d == 0).sum())))
    P = A / d[:, None]
    S, Pr = np.zeros_like(A), np.eye(len(A))
    for _ in range(a.window):
        Pr = Pr @ P
        S += Pr
    M = A.sum() / (a.negative * a.window) * S / d[None, :]
    U, s, _ = np.linalg.svd(np.log(np.maximum(M, 1)))
    np.save(a.out, (U[:, :a.dim] * np.sqrt(s[:a.dim])).astype(np.float32))


if __name__ == "__main__":
    try:
        main()
    except OSError as e:  # a missing or unreadable input, an unwritable output
        sys.exit("%s: %s" % ("netmf.py", e))
