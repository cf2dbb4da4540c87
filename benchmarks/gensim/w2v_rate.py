#!/usr/bin/env python3
"""Measure gensim word2vec's skip-gram training rate in positive pairs/s.

Usage: w2v_rate.py EDGES WORKERS [--walks 10] [--length 40] [--dim 128]
       [--window 10] [--negative 5] [--seed 1]

EDGES is a tab-separated edge list (one undirected edge per line, ids
0..N-1), as written by `go run ./benchmarks/cmd/kernels`. The script
draws DeepWalk random walks (uniform first-order, --walks per node of
--length nodes) and trains skip-gram with negative sampling for one epoch
(no subsampling, min_count 1, so every window pair is trained). It prints
one JSON line: tokens, the expected number of positive (centre, context)
pairs under gensim's uniformly shrunk window, the training seconds
(train() only, not walks or vocabulary) and pairs per second.
"""
import argparse
import json
import random
import sys
import time


def expected_pairs(length, window):
    # gensim draws b uniformly in 1..window per centre word and trains the
    # contexts at distance <= b on both sides, inside the sentence.
    total = 0.0
    for i in range(length):
        for b in range(1, window + 1):
            total += min(i, b) + min(length - 1 - i, b)
    return total / window


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("edges")
    ap.add_argument("workers", type=int)
    ap.add_argument("--walks", type=int, default=10)
    ap.add_argument("--length", type=int, default=40)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--window", type=int, default=10)
    ap.add_argument("--negative", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    try:
        import gensim
        from gensim.models import Word2Vec
    except ImportError:
        sys.exit("w2v_rate.py: gensim is not installed (Debian: apt-get install python3-gensim)")

    adj = {}
    with open(a.edges) as f:
        for line in f:
            u, v = line.split()
            adj.setdefault(u, []).append(v)
            adj.setdefault(v, []).append(u)
    rng = random.Random(a.seed)
    nodes = sorted(adj)
    walks = []
    for _ in range(a.walks):
        for s in nodes:
            w = [s]
            while len(w) < a.length:
                w.append(rng.choice(adj[w[-1]]))
            walks.append(w)
    tokens = len(walks) * a.length
    model = Word2Vec(vector_size=a.dim, window=a.window, sg=1, hs=0, negative=a.negative,
                     min_count=1, sample=0, workers=a.workers, seed=a.seed)
    model.build_vocab(walks)
    t = time.perf_counter()
    model.train(walks, total_examples=len(walks), epochs=1)
    sec = time.perf_counter() - t
    pairs = len(walks) * expected_pairs(a.length, a.window)
    print(json.dumps({"gensim": gensim.__version__, "workers": a.workers, "negative": a.negative,
                      "dim": a.dim, "tokens": tokens, "pairs": pairs, "seconds": sec,
                      "pairs_per_s": pairs / sec}))


if __name__ == "__main__":
    try:
        main()
    except OSError as e:  # a missing or unreadable input, an unwritable output
        sys.exit("%s: %s" % ("w2v_rate.py", e))
