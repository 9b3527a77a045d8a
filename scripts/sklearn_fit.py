#!/usr/bin/env python3
"""Python's OpenMP under libandgate-preload.so: fit scikit-learn, LightGBM and xgboost models whose
extension modules bring their own OpenMP runtime, opened with dlopen(RTLD_LOCAL) (docs/preload.md,
"Runtimes outside the global scope"; docs/results.md, twentieth part).

    python3 scripts/sklearn_fit.py WHAT...    WHAT: hgb, km, lgb, xgb (run in that order)

prints one line per model: `WHAT fit_s SECONDS checksum X` — the fit's own time, and a sum of its results
(predicted probabilities; KMeans' inertia and iterations) that must not change under the shim. Needs
`pip install scikit-learn` (and lightgbm, xgboost-cpu for lgb and xgb); not part of `make test`.
Compare with and without the shim, e.g.
    OMP_NUM_THREADS=4 LD_PRELOAD=build/lib/libandgate-preload.so python3 scripts/sklearn_fit.py hgb km
"""
import sys
import time


def classification():
    from sklearn.datasets import make_classification
    return make_classification(n_samples=20000, n_features=20, random_state=0)


def fit(model, X, y=None):
    """the model fitted, and the seconds its fit took"""
    t = time.perf_counter()
    model.fit(X, y)
    return model, time.perf_counter() - t


def hgb():
    from sklearn.ensemble import HistGradientBoostingClassifier
    X, y = classification()
    clf, s = fit(HistGradientBoostingClassifier(max_iter=100, random_state=0, early_stopping=False), X, y)
    return s, "%.10f" % clf.predict_proba(X)[:, 1].sum()


def km():
    from sklearn.cluster import KMeans
    from sklearn.datasets import make_blobs
    X, _ = make_blobs(n_samples=100000, centers=30, n_features=10, cluster_std=4.0, random_state=0)
    model, s = fit(KMeans(n_clusters=30, n_init=3, random_state=0, algorithm="lloyd", tol=1e-6, max_iter=100), X)
    return s, "%.6f iters %d" % (model.inertia_, model.n_iter_)


def lgb():
    import lightgbm
    X, y = classification()
    clf, s = fit(lightgbm.LGBMClassifier(n_estimators=50, random_state=0, verbose=-1, deterministic=True,
                                         force_row_wise=True), X, y)
    return s, "%.8f" % clf.predict_proba(X)[:, 1].sum()


def xgb():
    import xgboost
    X, y = classification()
    clf, s = fit(xgboost.XGBClassifier(n_estimators=50, random_state=0, tree_method="hist"), X, y)
    return s, "%.8f" % clf.predict_proba(X)[:, 1].sum()


MODELS = {"hgb": hgb, "km": km, "lgb": lgb, "xgb": xgb}


def main(argv):
    if not argv or any(w not in MODELS for w in argv):
        sys.stderr.write("usage: sklearn_fit.py {hgb,km,lgb,xgb}...\n")
        return 2
    for what in argv:
        seconds, checksum = MODELS[what]()
        print("%s fit_s %.4f checksum %s" % (what, seconds, checksum), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
