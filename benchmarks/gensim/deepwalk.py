#!/usr/bin/env python3
"""DeepWalk with gensim: random walks, skip-gram, embeddings after each epoch.

Usage: deepwalk.py EDGES N OUTDIR [--walks 10] [--length 80] [--dim 128]
       [--window 10] [--negative 5] [--epochs 5] [--workers 2] [--seed 1]
       [--weighted] [--p 1] [--q 1]

EDGES is a tab-separated edge list of the training graph (one undirected
edge per line, ids 0..N-1), as `go run ./benchmarks/cmd/large` writes it.
The walks are uniform first-order random walks (--walks per node of
--length nodes, every node a start --walks times), drawn with numpy and
written to OUTDIR/walks.txt so that gensim trains from a corpus file (its
fastest mode). With --weighted a step follows an edge with probability
proportional to its weight (the edge list's third column), and with --p
or --q other than 1 the walks are node2vec's second-order walks (return
parameter p, in-out parameter q), drawn exactly by rejection: propose a
next node x as the first-order walk would, accept it with probability
alpha/max(alpha) where alpha = 1/p if x is the previous node, 1 if x is
its neighbour and 1/q otherwise (node2vec's alias tables sample the same
distribution). Skip-gram with negative sampling, no subsampling, min_count
1, gensim's default linear learning-rate decay over --epochs.

After each epoch the script writes OUTDIR/y-E.npy (the input vectors Y,
row i = node i, float32) and OUTDIR/yc-E.npy (the output vectors Y' of
negative sampling), and prints one JSON line: the epoch, the wall-clock
seconds since the edge list was read (walks, vocabulary and training
included; reading the edges and writing the .npy files excluded, as the
Go side excludes loading the graph) and the two paths. The Go side
scores them with the project's AUC code. Rows of nodes that never occur in
a walk (isolated in the training graph) are zero.
"""
import argparse
import json
import os
import sys
import time


def read_csr(path, n, np, weighted=False):
    e = np.loadtxt(path, dtype=np.float64, ndmin=2)
    if weighted and e.shape[1] < 3:
        sys.exit("deepwalk.py: %s: --weighted needs a third column of edge weights" % path)
    a, b = e[:, 0].astype(np.int64), e[:, 1].astype(np.int64)
    w = e[:, 2] if weighted else np.ones(len(a))
    src = np.concatenate([a, b])
    dst = np.concatenate([b, a])
    w = np.concatenate([w, w])
    order = np.argsort(src, kind="stable")
    src, dst, w = src[order], dst[order], w[order]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(indptr, src + 1, 1)
    np.cumsum(indptr, out=indptr)
    return indptr, dst, w


class Walker:
    """First-order (weighted) and node2vec second-order steps, vectorized
    over all walkers."""

    def __init__(self, indptr, indices, weights, n, p, q, np):
        self.np, self.indptr, self.indices, self.n, self.p, self.q = np, indptr, indices, n, p, q
        self.cum = np.cumsum(weights)
        self.excl = np.concatenate([[0.0], self.cum])
        self.keys = np.sort(np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr)) * n + indices)

    def first(self, cur, rng):
        np = self.np
        lo, hi = self.indptr[cur], self.indptr[cur + 1]
        base, top = self.excl[lo], self.excl[hi]
        pos = np.searchsorted(self.cum, base + rng.random(len(cur)) * (top - base), side="right")
        return self.indices[np.clip(pos, lo, hi - 1)]

    def second(self, prev, cur, rng):
        np = self.np
        amax = max(1.0 / self.p, 1.0, 1.0 / self.q)
        nxt = np.empty_like(cur)
        pending = np.arange(len(cur))
        while len(pending):
            t, x = prev[pending], self.first(cur[pending], rng)
            k = t * self.n + x
            at = np.minimum(np.searchsorted(self.keys, k), len(self.keys) - 1)
            alpha = np.where(x == t, 1.0 / self.p, np.where(self.keys[at] == k, 1.0, 1.0 / self.q))
            ok = rng.random(len(pending)) * amax < alpha
            nxt[pending[ok]] = x[ok]
            pending = pending[~ok]
        return nxt


def write_walks(path, indptr, indices, n, walks, length, seed, np, walker=None):
    rng = np.random.default_rng(seed)
    deg = indptr[1:] - indptr[:-1]
    names = np.array([str(i) for i in range(n)], dtype=object)
    with open(path, "w") as f:
        for _ in range(walks):
            cur = rng.permutation(n)
            cur = cur[deg[cur] > 0]
            rows = np.empty((len(cur), length), dtype=np.int64)
            rows[:, 0] = cur
            for s in range(1, length):
                if walker is None:
                    d = deg[cur]
                    off = (rng.random(len(cur)) * d).astype(np.int64)
                    cur = indices[indptr[cur] + off]
                elif s == 1:
                    cur = walker.first(cur, rng)
                else:
                    cur = walker.second(rows[:, s - 2], cur, rng)
                rows[:, s] = cur
            f.write("\n".join(" ".join(names[r]) for r in rows))
            f.write("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("edges")
    ap.add_argument("n", type=int)
    ap.add_argument("outdir")
    ap.add_argument("--walks", type=int, default=10)
    ap.add_argument("--length", type=int, default=80)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--window", type=int, default=10)
    ap.add_argument("--negative", type=int, default=5)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--weighted", action="store_true", help="walk by the edge weights (third column)")
    ap.add_argument("--p", type=float, default=1.0, help="node2vec return parameter")
    ap.add_argument("--q", type=float, default=1.0, help="node2vec in-out parameter")
    a = ap.parse_args()
    if a.p <= 0 or a.q <= 0:
        sys.exit("deepwalk.py: --p and --q must be positive")
    try:
        import numpy as np
        import gensim
        from gensim.models import Word2Vec
        from gensim.models.callbacks import CallbackAny2Vec
    except ImportError as e:
        sys.exit("deepwalk.py: %s (Debian: apt-get install python3-gensim)" % e)

    indptr, indices, weights = read_csr(a.edges, a.n, np, a.weighted)
    start = time.perf_counter()
    corpus = os.path.join(a.outdir, "walks.txt")
    walker = None
    if a.weighted or a.p != 1 or a.q != 1:
        walker = Walker(indptr, indices, weights, a.n, a.p, a.q, np)
    write_walks(corpus, indptr, indices, a.n, a.walks, a.length, a.seed, np, walker)
    walk_seconds = time.perf_counter() - start
    print(json.dumps({"gensim": gensim.__version__, "walks_seconds": walk_seconds}), flush=True)

    class Saver(CallbackAny2Vec):
        def __init__(self):
            self.epoch = 0
            self.excluded = 0.0

        def on_epoch_end(self, model):
            t0 = time.perf_counter()
            self.epoch += 1
            y = np.zeros((a.n, a.dim), dtype=np.float32)
            yc = np.zeros((a.n, a.dim), dtype=np.float32)
            ids = np.array([int(k) for k in model.wv.index_to_key], dtype=np.int64)
            y[ids] = model.wv.vectors
            yc[ids] = model.syn1neg
            py = os.path.join(a.outdir, "y-%d.npy" % self.epoch)
            pyc = os.path.join(a.outdir, "yc-%d.npy" % self.epoch)
            np.save(py, y)
            np.save(pyc, yc)
            elapsed = t0 - start - self.excluded
            self.excluded += time.perf_counter() - t0
            print(json.dumps({"epoch": self.epoch, "elapsed": elapsed, "y": py, "yc": pyc}), flush=True)

    model = Word2Vec(vector_size=a.dim, window=a.window, sg=1, hs=0, negative=a.negative,
                     min_count=1, sample=0, workers=a.workers, seed=a.seed)
    model.build_vocab(corpus_file=corpus)
    model.train(corpus_file=corpus, total_examples=model.corpus_count,
                total_words=model.corpus_total_words, epochs=a.epochs, callbacks=[Saver()])


if __name__ == "__main__":
    try:
        main()
    except OSError as e:  # a missing or unreadable input, an unwritable output
        sys.exit("%s: %s" % ("deepwalk.py", e))
