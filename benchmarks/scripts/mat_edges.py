#!/usr/bin/env python3
"""Writes the graph of a DeepWalk/node2vec .mat file as a weighted edge list.

Usage: mat_edges.py FILE.mat[.gz] EDGES.tsv

Reads the sparse `network` variable with scipy (Debian: python3-scipy) and
writes one line "u<TAB>v<TAB>weight" per undirected edge u < v (the upper
triangle; self-loops dropped, as `wys-sparse -graph FILE.mat.gz` drops
them), ids 0..N-1 as the .mat rows, the order benchmarks/gensim/deepwalk.py
reads (with --weighted for the third column). It prints N and the edge
count. The matrix must be symmetric.
"""
import gzip
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    try:
        import scipy.io
        import scipy.sparse as sp
    except ImportError as e:
        sys.exit("mat_edges.py: %s (Debian: apt-get install python3-scipy)" % e)
    src, dst = sys.argv[1], sys.argv[2]
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rb") as f:
        net = sp.csr_matrix(scipy.io.loadmat(f, variable_names=["network"])["network"])
    if abs(net - net.T).max() != 0:
        sys.exit("mat_edges.py: %s: network is not symmetric; this writes undirected edges" % src)
    up = sp.triu(net, 1).tocoo()
    with open(dst, "w") as f:
        for u, v, w in zip(up.row, up.col, up.data):
            f.write("%d\t%d\t%r\n" % (u, v, float(w)))
    print("%s: %d nodes, %d edges" % (dst, net.shape[0], up.nnz))


if __name__ == "__main__":
    try:
        main()
    except OSError as e:  # a missing or unreadable input, an unwritable output
        sys.exit("%s: %s" % ("mat_edges.py", e))
