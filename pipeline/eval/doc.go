// Package eval scores embeddings beyond the link-prediction AUC: node
// classification, node clustering (KMeans, Cluster), graph reconstruction,
// and link prediction by ranking (Rank) and by node2vec's edge classifier.
//
// Classify applies the smooth kNN rule of the Watch Your Step paper to
// single-label (Planetoid) splits, choosing the pair score and α on the
// validation nodes and reporting test accuracy; ClassifyLogReg scores the
// same split by a one-vs-rest logistic regression on the train nodes
// (accuracy and Macro-F1).
//
// MultiLabel runs the multi-label protocol of DeepWalk and node2vec:
// random splits at training ratios 10%…90% (MultiLabelSplits), one-vs-rest
// L2-regularised logistic regression per label (scikit-learn's
// LogisticRegression objective, fitted by gonum's L-BFGS in parallel over
// labels, the same result for any worker count), the top-k rule, and
// Micro- and Macro-F1 as scikit-learn defines them. Features builds its
// input from our embeddings; any dense row-major matrix will do.
// ExportMultiLabel writes the same inputs for the scikit-learn oracle,
// benchmarks/sklearn/multilabel.py.
//
// Cluster clusters the labelled nodes by k-means (the best of several
// k-means++ seedings) and scores the clusters against the labels: NMI,
// ARI and accuracy under the best one-to-one matching.
//
// Reconstruction scores graph reconstruction as SDNE, HOPE and the GEM
// benchmark do: for each node (every node of a small graph, a seeded sample
// of a large one) every other node is ranked by the embedding's score; the
// node's arcs give its average precision (MAP is their mean), and
// precision@k ranks the pairs of all those nodes together.
//
// EdgeClassifier runs node2vec's link prediction protocol: a logistic
// regression on a binary operator (average, Hadamard, weighted L1 or L2)
// of the two node vectors, fitted on a split's training pairs, ranks its
// test pairs. Rank ranks each test edge's tail and head against random or
// all candidate nodes, as PyTorch-BigGraph does: MRR, Hits@k and the mean
// rank. Link prediction by the embedding's own score is computed by the
// core (pipeline.PairAUC).
package eval
