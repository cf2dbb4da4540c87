#!/usr/bin/env python3
"""DeepWalk with gensim: random walks, skip-gram, embeddings after each epoch.

Usage: deepwalk.py EDGES N OUTDIR [--walks 10] [--length 80] [--dim 128]
       [--window 10] [--negative 5] [--epochs 5] [--workers 2] [--seed 1]

EDGES is a tab-separated edge list of the training graph (one undirected
edge per line, ids 0..N-1), as `go run ./benchmarks/cmd/large` writes it.
The walks are uniform first-order random walks (--walks per node of
--length nodes, every node a start --walks times), drawn with numpy and
written to OUTDIR/walks.txt so that gensim trains from a corpus file (its
fastest mode). Skip-gram with negative sampling, no subsampling, min_count
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


def read_csr(path, n, np):
    e = np.loadtxt(path, dtype=np.int64, ndmin=2)
    src = np.concatenate([e[:, 0], e[:, 1]])
    dst = np.concatenate([e[:, 1], e[:, 0]])
    order = np.argsort(src, kind="stable")
    src, dst = src[order], dst[order]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(indptr, src + 1, 1)
    np.cumsum(indptr, out=indptr)
    return indptr, dst


def write_walks(path, indptr, indices, n, walks, length, seed, np):
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
                d = deg[cur]
                off = (rng.random(len(cur)) * d).astype(np.int64)
                cur = indices[indptr[cur] + off]
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
    a = ap.parse_args()
    try:
        import numpy as np
        import gensim
        from gensim.models import Word2Vec
        from gensim.models.callbacks import CallbackAny2Vec
    except ImportError as e:
        sys.exit("deepwalk.py: %s (Debian: apt-get install python3-gensim)" % e)

    indptr, indices = read_csr(a.edges, a.n, np)
    start = time.perf_counter()
    corpus = os.path.join(a.outdir, "walks.txt")
    write_walks(corpus, indptr, indices, a.n, a.walks, a.length, a.seed, np)
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
    main()
