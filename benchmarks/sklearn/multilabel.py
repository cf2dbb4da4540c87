#!/usr/bin/env python3
"""Multi-label node classification with scikit-learn, the oracle of the Go
classifier (pipeline/eval.MultiLabel).

Usage: multilabel.py DIR [--C 1] [--max-iter 1000] [--tol 1e-6]

DIR holds the .npy files that eval.ExportMultiLabel writes: the features
x.npy, the label indicator matrix y.npy, shape.npy = [n, f, labels], and
the splits (rows.npy: each split's training rows then its test rows;
ntrain.npy; ratio.npy). For every split the script fits
OneVsRestClassifier(LogisticRegression(C=C)) (lbfgs, intercept not
penalised) on the training rows and predicts for each test row the k labels
of highest predict_proba, k its true number of labels (the TopKRanker of
DeepWalk's example_graphs/scoring.py), then scores
f1_score(average='micro'|'macro') on the indicator matrices of all labels.
It prints one JSON object: the scikit-learn version and, per split, its
ratio, micro and macro F1.

The default --max-iter and --tol are tighter than scikit-learn's defaults
(100, 1e-4) so that both sides reach the optimum and the comparison checks
the objective, not where two L-BFGS codes stop.
"""
import argparse
import json
import sys
import warnings


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--max-iter", type=int, default=1000)
    ap.add_argument("--tol", type=float, default=1e-6)
    a = ap.parse_args()
    try:
        import numpy as np
        import sklearn
        from sklearn.linear_model import LogisticRegression
        from sklearn.metrics import f1_score
        from sklearn.multiclass import OneVsRestClassifier
    except ImportError as e:
        sys.exit("multilabel.py: %s (Debian: apt-get install python3-sklearn)" % e)
    warnings.simplefilter("ignore")  # undefined F1 of absent labels counts 0, as in the Go code

    load = lambda name: np.load("%s/%s" % (a.dir, name))
    n, f, labels = (int(v) for v in load("shape.npy"))
    x = load("x.npy").reshape(n, f)
    y = load("y.npy").reshape(n, labels)
    rows, ntrain, ratio = load("rows.npy"), load("ntrain.npy"), load("ratio.npy")
    size = len(rows) // len(ntrain)
    out = {"sklearn": sklearn.__version__, "C": a.C, "splits": []}
    for s in range(len(ntrain)):
        r = rows[s * size:(s + 1) * size]
        train, test = r[:ntrain[s]], r[ntrain[s]:]
        clf = OneVsRestClassifier(LogisticRegression(C=a.C, max_iter=a.max_iter, tol=a.tol))
        clf.fit(x[train], y[train])
        proba = clf.predict_proba(x[test])
        pred = np.zeros((len(test), labels), dtype=np.uint8)
        for i, k in enumerate(y[test].sum(axis=1).astype(int)):
            pred[i, np.argsort(proba[i])[len(proba[i]) - k:]] = 1
        out["splits"].append({"ratio": float(ratio[s]),
                              "micro": f1_score(y[test], pred, average="micro"),
                              "macro": f1_score(y[test], pred, average="macro")})
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    try:
        main()
    except OSError as e:  # a missing or unreadable input, an unwritable output
        sys.exit("%s: %s" % ("multilabel.py", e))
