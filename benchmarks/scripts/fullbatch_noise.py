#!/usr/bin/env python3
"""Which sampling noise holds the minibatch trainer below the dense reference.

Usage: fullbatch_noise.py SPLITDIR QJSON D STEPS POS NEG [LR [OPTIONS]]

Trains L and R (N x D/2 each) on the code formulation's objective at the
fixed Q of QJSON (the "Q" list that `wys-sparse -trainer dense -q-out`
writes), with C = len(Q) powers of T = D^-1 A of the split's training
graph (SPLITDIR as `wys-sparse -split` reads it, the files maybe .gz), by
full-batch Adam steps (numpy, float32, learning rate LR, 0.01 by default)
from the log-SVD start (`wys-sparse -start log-svd`: the rank-D/2 SVD of
log max(80·N·deg(v)·E_vu, 1), here from a randomized SVD with 4 power
iterations, numpy seed 1), and prints the test ROC-AUC of L_u·R_v
(scikit-learn) every 10 steps.

Each step's gradient is the exact one, except that POS > 0 replaces its
positive part by POS pairs per row drawn from the row's E[D] weights and
NEG > 0 its negative part by NEG uniform columns per row, each reweighted
to stay unbiased, as the sparse trainer's walks and negative pairs are;
with exact1, the positive part of the first power (a row's neighbours)
stays exact and the POS pairs are drawn from the other powers' weights. OPTIONS is a
comma-separated list of exact1, anneal, snr and cv; with anneal the learning
rate falls linearly from LR to LR/100 over the STEPS steps; with snr it
prints, before the first step and after the last, the noise energy of the
positive part sampled at 64, 512 and 4096 pairs per row over the energy
of the exact gradient (both parts), for L and R; with cv the sampled
positive part −E·(1 − σ) is written −E + E·σ, the −E part taken exactly
(a sparse series times L or R, in a sparse trainer) and only E·σ sampled.
Comparing POS, NEG = 0, 0 with either sampled separates the noise of the
two parts. The dense N x N arrays limit it to small graphs (ego-Facebook:
about 1 GB). It does not learn q: Q is the dense run's, so that only the
fit of L and R is compared.
"""
import gzip
import json
import os
import sys

import numpy as np
from sklearn.metrics import roc_auc_score


def load(d, name):
    p = os.path.join(d, name)
    if os.path.exists(p):
        return np.load(p)
    return np.load(gzip.open(p + ".gz"))


def main():
    split, qjson, dim, steps, npos, nneg = sys.argv[1:7]
    lr = float(sys.argv[7]) if len(sys.argv) > 7 else 0.01
    opts = sys.argv[8].split(",") if len(sys.argv) > 8 else []
    exact1, anneal, snr, cv = "exact1" in opts, "anneal" in opts, "snr" in opts, "cv" in opts
    dim, steps, npos, nneg = int(dim), int(steps), int(npos), int(nneg)
    r = dim // 2
    tr, te, ten = load(split, "train.txt.npy"), load(split, "test.txt.npy"), load(split, "test.neg.txt.npy")
    n = int(max(tr.max(), te.max(), ten.max())) + 1
    a = np.zeros((n, n), np.float32)
    a[tr[:, 0], tr[:, 1]] = 1
    a[tr[:, 1], tr[:, 0]] = 1
    deg = a.sum(1)
    t = a / np.maximum(deg, 1)[:, None]
    q = np.array(json.load(open(qjson))["Q"])
    p, e = np.eye(n, dtype=np.float32), np.zeros((n, n), np.float32)
    w = (80 * n * deg)[:, None].astype(np.float32)
    fixed = np.zeros((n, n), np.float32)  # the positive weights kept exact
    for k, qk in enumerate(q):
        p = p @ t
        e += np.float32(qk) * p
        if k == 0 and exact1:
            fixed = w * np.float32(qk) * p
    pos = w * e      # positive weight of (v, u)
    neg = 1 - a      # negative weight
    drawn = pos - fixed
    del p, e, t

    def auc(l, rr):
        s = np.r_[np.einsum("ij,ij->i", l[te[:, 0]], rr[te[:, 1]]), np.einsum("ij,ij->i", l[ten[:, 0]], rr[ten[:, 1]])]
        return roc_auc_score(np.r_[np.ones(len(te)), np.zeros(len(ten))], s)

    rng = np.random.default_rng(1)
    m = np.log(np.maximum(pos, 1))
    y = m @ rng.standard_normal((n, r + 10)).astype(np.float32)
    for _ in range(4):
        y, _ = np.linalg.qr(y)
        y = m @ (m.T @ y)
    qm, _ = np.linalg.qr(y)
    u, sv, vt = np.linalg.svd(qm.T @ m, full_matrices=False)
    del m
    params = [((qm @ u[:, :r]) * np.sqrt(sv[:r])).astype(np.float32), (vt[:r].T * np.sqrt(sv[:r])).astype(np.float32)]
    mom = [np.zeros_like(x) for x in params]
    var = [np.zeros_like(x) for x in params]
    print("step 0: test AUC %.4f" % auc(*params))
    rowsum = drawn.sum(1)
    cum = np.cumsum(drawn / np.maximum(rowsum, 1e-30)[:, None], axis=1)

    def noise(step):
        # The sampled positive part's noise energy (3 draws) over the
        # exact gradient's, for L and R.
        sg = 1 / (1 + np.exp(-(params[0] @ params[1].T)))
        gt = (-pos * (1 - sg) + neg * sg) / n
        exact = [np.sum((gt @ params[1]) ** 2), np.sum((gt.T @ params[0]) ** 2)]
        for k in (64, 512, 4096):
            err = [0.0, 0.0]
            for _ in range(3):
                g = np.zeros((n, n), np.float32)
                for v in range(n):
                    cols = np.minimum(np.searchsorted(cum[v], rng.random(k)), n - 1)
                    np.add.at(g[v], cols, (rowsum[v] / k) * (sg[v, cols] if cv else -(1 - sg[v, cols])))
                # the error of the sampled part
                g = (g - drawn * sg) / n if cv else (g + drawn * (1 - sg)) / n
                err[0] += np.sum((g @ params[1]) ** 2) / 3
                err[1] += np.sum((g.T @ params[0]) ** 2) / 3
            print("step %d, %d positives per row: noise over exact gradient energy, L %.2f, R %.2f"
                  % (step, k, err[0] / exact[0], err[1] / exact[1]), flush=True)

    if snr:
        noise(0)
    for step in range(1, steps + 1):
        sg = 1 / (1 + np.exp(-(params[0] @ params[1].T)))
        if npos == 0:
            g = -pos * (1 - sg)
        else:
            g = -fixed * (1 - sg)
            if cv:
                g -= drawn  # exact; the sampled part is drawn·sg
            for v in range(n):
                cols = np.minimum(np.searchsorted(cum[v], rng.random(npos)), n - 1)
                np.add.at(g[v], cols, (rowsum[v] / npos) * (sg[v, cols] if cv else -(1 - sg[v, cols])))
        if nneg == 0:
            g += neg * sg
        else:
            rows = np.repeat(np.arange(n), nneg)
            cols = rng.integers(0, n, len(rows))
            np.add.at(g, (rows, cols), (n / nneg) * neg[rows, cols] * sg[rows, cols])
        g /= n
        grads = [g @ params[1], g.T @ params[0]]
        rate = lr * (1 - 0.99 * (step - 1) / max(steps - 1, 1)) if anneal else lr
        for i in range(2):
            mom[i] = 0.9 * mom[i] + 0.1 * grads[i]
            var[i] = 0.999 * var[i] + 0.001 * grads[i] ** 2
            params[i] -= rate * (mom[i] / (1 - 0.9 ** step)) / (np.sqrt(var[i] / (1 - 0.999 ** step)) + 1e-8)
        if step % 10 == 0:
            print("step %d: test AUC %.4f" % (step, auc(*params)), flush=True)
    if snr:
        noise(steps)


if __name__ == "__main__":
    main()
