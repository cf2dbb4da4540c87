#!/usr/bin/python3
"""Prints what scipy.io.loadmat reads from the two real .mat files that
TestLoadMATReal checks (run from this directory; needs ../shared/datasets
beside the repository):  /usr/bin/python3 real_stats.py

Output with scipy 1.10.1 (the numbers in mat_test.go):
PPI/Homo_sapiens.mat.gz: N 3890 nnz 76584 weight 76584 self-loops 894 symmetric True edges 38739 labels 50 label-nnz 6640 unlabelled 0
POS/POS.mat.gz: N 4777 nnz 184812 weight 328685 self-loops 222 symmetric True edges 92517 labels 40 label-nnz 6770 unlabelled 0
"""
import gzip
import io
import os

import numpy as np
import scipy.io
import scipy.sparse as sp

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), *[".."] * 5, "shared", "datasets")

for rel in ["PPI/Homo_sapiens.mat.gz", "POS/POS.mat.gz"]:
    m = scipy.io.loadmat(io.BytesIO(gzip.open(os.path.join(ROOT, rel)).read()))
    a = sp.csr_matrix(m["network"])
    a.sum_duplicates()
    a.eliminate_zeros()
    g = sp.csr_matrix(m["group"])
    g.eliminate_zeros()
    loops = int((a.diagonal() != 0).sum())
    upper = sp.triu(a + a.T)  # an undirected edge per unordered pair
    print(f"{rel}: N {a.shape[0]} nnz {a.nnz} weight {a.sum():g} self-loops {loops} "
          f"symmetric {(a != a.T).nnz == 0} edges {upper.nnz} labels {g.shape[1]} label-nnz {g.nnz} "
          f"unlabelled {int((np.diff(g.indptr) == 0).sum())}")
