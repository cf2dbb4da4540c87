#!/usr/bin/env python3
"""The independent check of `wys-sparse eval` on another tool's file.

Usage: eval_check.py OUTDIR

Draws a small planted-partition graph (60 nodes in 3 communities, numpy
seed 7), holds out test edges (each node keeps a training edge) and samples
as many non-edges, and writes them as a split directory OUTDIR/split
(train.txt.npy, test.txt.npy, train.neg.txt.npy, test.neg.txt.npy, int32,
and index.tsv naming node row i "n<1000+7i>", so that ids are matched by
name, not by row). It trains gensim Word2Vec (skip-gram, d = 8) on uniform
random walks of the training graph, writes OUTDIR/gensim.txt with
KeyedVectors.save_word2vec_format (text; rows in gensim's frequency order,
not the split's), reads it back as any user would, and scores the split's
pairs with scikit-learn's roc_auc_score and average_precision_score on
Y_u·Y_v and on the cosine, computed in float64 from the float32 vectors of
the file, and the test pairs' Hits@k by the Open Graph Benchmark's rule
(the share of positives scoring above the k-th best negative; 1 when there
are fewer than k negatives). It also writes the training graph as the
edge list OUTDIR/train.edges.txt (names, not rows) and scores its
reconstruction: for each node, every other node ranked by the same scores
with the node's training neighbours as positives, scikit-learn's
average_precision_score per node (MAP: their mean over nodes with
neighbours) and precision@k over all ranked pairs at once (pairs tied with
the k-th score counted by the share of edges among them). The numbers go
to OUTDIR/expected.json, with node2vec's link prediction protocol on the
split under "edge_classifier": for each binary operator (average,
hadamard, l1, l2) of the two node vectors, scikit-learn's
LogisticRegression (C = 1; the newton-cholesky solver at tol 1e-10, which
reaches the exact optimum: lbfgs stops on its relative function tolerance
first, and on the average operator's flat objective that moves one test
pair) on the training
edges and non-edges, its decision function on the test pairs scored by
roc_auc_score and average_precision_score. For node classification it
writes a Planetoid-style dataset OUTDIR/planetoid.{edges,labels,split}.tsv:
the training graph, each node's community as its class except a seeded
third of the nodes, which get a uniform class of four (so that no rule is
always right), even rows for training, every sixth odd row for
validation, the rest for testing; under "classify_logreg" go, for C = 1
and 0.1, the test accuracy and Macro-F1 (f1_score over the four classes)
of scikit-learn's OneVsRestClassifier(LogisticRegression) fitted on the
training rows' vectors, each test row predicted as the class of highest
decision function (numpy's argmax: ties to the smaller class). All go
to OUTDIR/expected.json with the versions that produced them; the Go test
TestEvalMatchesSklearn in cmd/wys-sparse compares `wys-sparse eval` with
them. Needs Debian's python3-gensim and python3-sklearn (/usr/bin/python3).
"""
import json
import os
import sys

if sys.argv[1:] in (["-h"], ["--help"]):
    print(__doc__.strip())
    sys.exit(0)
if len(sys.argv) != 2:
    sys.stderr.write("usage: eval_check.py OUTDIR (--help says more)\n")
    sys.exit(2)
try:
    import gensim  # noqa: E402
    import numpy as np  # noqa: E402
    import sklearn  # noqa: E402
    from gensim.models import KeyedVectors, Word2Vec  # noqa: E402
    from sklearn.linear_model import LogisticRegression  # noqa: E402
    from sklearn.metrics import accuracy_score, average_precision_score, f1_score, roc_auc_score  # noqa: E402
    from sklearn.multiclass import OneVsRestClassifier  # noqa: E402
except ImportError as e:
    sys.exit("eval_check.py: %s (Debian: apt-get install python3-gensim python3-sklearn)" % e)

N, BLOCKS, P_IN, P_OUT, DIM = 60, 3, 0.3, 0.02, 8


def graph(rng):
    block = np.arange(N) * BLOCKS // N
    edges = []
    for u in range(N):
        for v in range(u + 1, N):
            if rng.random() < (P_IN if block[u] == block[v] else P_OUT):
                edges.append((u, v))
    return edges


def split(edges, rng):
    order = rng.permutation(len(edges))
    deg = np.zeros(N, dtype=int)
    for u, v in edges:
        deg[u] += 1
        deg[v] += 1
    test, train = [], []
    for i in order:
        u, v = edges[i]
        if len(test) < 0.3 * len(edges) and deg[u] > 1 and deg[v] > 1:
            test.append((u, v))
            deg[u] -= 1
            deg[v] -= 1
        else:
            train.append((u, v))
    known = set(edges)
    negs = set()
    while len(negs) < len(train) + len(test):
        u, v = sorted(rng.choice(N, 2, replace=False))
        if (u, v) not in known:
            negs.add((int(u), int(v)))
    negs = sorted(negs)
    rng.shuffle(negs)
    return train, test, negs[: len(train)], negs[len(train):]


def walks(train, rng):
    adj = [[] for _ in range(N)]
    for u, v in train:
        adj[u].append(v)
        adj[v].append(u)
    out = []
    for _ in range(10):
        for s in rng.permutation(N):
            w = [int(s)]
            for _ in range(19):
                w.append(int(rng.choice(adj[w[-1]])))
            out.append([name(x) for x in w])
    return out


def name(row):
    return "n%d" % (1000 + 7 * row)


def scores(kv, pairs, cosine):
    def score(u, v):
        a = kv[name(u)].astype(np.float64)
        b = kv[name(v)].astype(np.float64)
        s = float(np.dot(a, b))
        return s / (np.linalg.norm(a) * np.linalg.norm(b)) if cosine else s

    return np.array([score(u, v) for u, v in pairs])


def metrics(kv, pos, neg, cosine):
    p, n = scores(kv, pos, cosine), scores(kv, neg, cosine)
    y, s = np.r_[np.ones(len(p)), np.zeros(len(n))], np.r_[p, n]
    return roc_auc_score(y, s), average_precision_score(y, s), p, n


def hits(p, n, k):
    if len(n) < k:
        return 1.0
    return float(np.mean(p > np.sort(n)[-k]))


def reconstruction(kv, train, cosine):
    """MAP and precision@k of the training graph's reconstruction."""
    adj = np.zeros((N, N), dtype=bool)
    for u, v in train:
        adj[u, v] = adj[v, u] = True
    y = np.array([kv[name(i)] for i in range(N)], dtype=np.float64)
    if cosine:
        y /= np.linalg.norm(y, axis=1, keepdims=True)
    s = y @ y.T
    off = ~np.eye(N, dtype=bool)
    aps = [average_precision_score(adj[v][off[v]], s[v][off[v]]) for v in range(N) if adj[v].any()]
    scores, arcs = s[off], adj[off]
    prec = {}
    for k in (10, 100, 1000):
        kth = np.sort(scores)[-k]
        above, at = scores > kth, scores == kth
        hits = arcs[above].sum() + (k - above.sum()) * arcs[at].sum() / at.sum()
        prec[str(k)] = float(hits / k)
    return {"map": float(np.mean(aps)), "precision_at_k": prec}


OPERATORS = {
    "average": lambda a, b: (a + b) / 2,
    "hadamard": lambda a, b: a * b,
    "l1": lambda a, b: np.abs(a - b),
    "l2": lambda a, b: (a - b) ** 2,
}


def edge_classifier(kv, train, train_neg, test, test_neg):
    """node2vec's protocol: logistic regression on op(x_u, x_v)."""
    x = np.array([kv[name(i)] for i in range(N)], dtype=np.float64)

    def feats(pairs, op):
        p = np.asarray(pairs)
        return OPERATORS[op](x[p[:, 0]], x[p[:, 1]])

    out = {}
    for op in OPERATORS:
        xt = np.r_[feats(train, op), feats(train_neg, op)]
        yt = np.r_[np.ones(len(train)), np.zeros(len(train_neg))]
        clf = LogisticRegression(C=1.0, tol=1e-10, max_iter=100000, solver="newton-cholesky").fit(xt, yt)
        s = clf.decision_function(np.r_[feats(test, op), feats(test_neg, op)])
        y = np.r_[np.ones(len(test)), np.zeros(len(test_neg))]
        out[op] = {"test_auc": roc_auc_score(y, s), "test_ap": average_precision_score(y, s)}
    return out


def planetoid(kv, train, rng, out):
    """Planetoid-style classes and split, and the one-vs-rest scores."""
    classes = np.arange(N) * BLOCKS // N
    noisy = rng.random(N) < 1 / 3
    classes[noisy] = rng.integers(0, BLOCKS + 1, noisy.sum())
    rows = np.arange(N)
    tr, va = rows[rows % 2 == 0], rows[rows % 6 == 1]
    te = rows[(rows % 2 == 1) & (rows % 6 != 1)]
    with open(os.path.join(out, "planetoid.edges.tsv"), "w") as f:
        f.write("# the training edges of split/, by name\n")
        for u, v in train:
            f.write("%s\t%s\n" % (name(u), name(v)))
    with open(os.path.join(out, "planetoid.labels.tsv"), "w") as f:
        f.write("# node\tclass\n")
        for i in rows:
            f.write("%s\t%d\n" % (name(i), classes[i]))
    with open(os.path.join(out, "planetoid.split.tsv"), "w") as f:
        f.write("# node\tset\n")
        for i in rows:
            f.write("%s\t%s\n" % (name(i), "train" if i in tr else "val" if i in va else "test"))
    x = np.array([kv[name(i)] for i in range(N)], dtype=np.float64)
    res = {}
    for c in (1.0, 0.1):
        clf = OneVsRestClassifier(LogisticRegression(C=c, tol=1e-10, max_iter=100000, solver="newton-cholesky"))
        clf.fit(x[tr], classes[tr])
        pred = clf.classes_[np.argmax(clf.decision_function(x[te]), axis=1)]
        res["%g" % c] = {"test_accuracy": accuracy_score(classes[te], pred),
                         "test_macro_f1": f1_score(classes[te], pred, labels=range(BLOCKS + 1), average="macro", zero_division=0)}
    return res


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(7)
    train, test, train_neg, test_neg = split(graph(rng), rng)
    os.makedirs(os.path.join(out, "split"), exist_ok=True)
    for fname, pairs in [("train.txt.npy", train), ("test.txt.npy", test),
                         ("train.neg.txt.npy", train_neg), ("test.neg.txt.npy", test_neg)]:
        np.save(os.path.join(out, "split", fname), np.asarray(pairs, dtype=np.int32))
    with open(os.path.join(out, "split", "index.tsv"), "w") as f:
        f.write("# original_id\tnode\n")
        for i in range(N):
            f.write("%s\t%d\n" % (name(i), i))
    with open(os.path.join(out, "train.edges.txt"), "w") as f:
        f.write("# the training edges of split/, by name\n")
        for u, v in train:
            f.write("%s %s\n" % (name(u), name(v)))
    model = Word2Vec(walks(train, rng), vector_size=DIM, window=5, min_count=1, sg=1,
                     negative=5, workers=1, seed=1, epochs=5)
    path = os.path.join(out, "gensim.txt")
    model.wv.save_word2vec_format(path, binary=False)
    kv = KeyedVectors.load_word2vec_format(path, binary=False)
    expected = {
        "produced_by": "benchmarks/scripts/eval_check.py",
        "versions": {"gensim": gensim.__version__, "sklearn": sklearn.__version__, "numpy": np.__version__},
    }
    for score, cosine in [("dot", False), ("cosine", True)]:
        train_auc, train_ap, _, _ = metrics(kv, train, train_neg, cosine)
        test_auc, test_ap, p, n = metrics(kv, test, test_neg, cosine)
        expected[score] = {"train_auc": train_auc, "test_auc": test_auc, "train_ap": train_ap, "test_ap": test_ap,
                           "test_hits": {str(k): hits(p, n, k) for k in (20, 50, 100)},
                           "reconstruction": reconstruction(kv, train, cosine)}
    expected["edge_classifier"] = edge_classifier(kv, train, train_neg, test, test_neg)
    expected["classify_logreg"] = planetoid(kv, train, rng, out)
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=2)
        f.write("\n")
    print(json.dumps(expected))


if __name__ == "__main__":
    main()
