# gbm_train.py — gradient-boosted trees on libgomp, a peer program for libandgate-preload.so
# (docs/results.md, twenty-eighth part). XGBoost (Debian's python3-xgboost) and LightGBM (pip) run each
# boosting round as many short `parallel for` regions of a libgomp that Python opens with RTLD_LOCAL
# (outside the global scope). One synthetic data set, deterministic settings, 300 rounds by default.
#   apt-get install -y python3-xgboost;     /usr/bin/python3 scripts/peer/gbm_train.py xgb [THREADS=2 [ROUNDS=300]]
#   python3 -m venv V && V/bin/pip install lightgbm==4.7.0;  V/bin/python scripts/peer/gbm_train.py lgb ...
# prints the training time (the train call only) and the predictions' SHA-256, rounded to 1e-9 (sha9)
# and raw (sharaw), with the last round's training log loss: neither depends on the thread count.
import hashlib
import sys
import time

import numpy as np


def data(n=20000, d=50, seed=20261203):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)).astype(np.float32)
    w = rng.standard_normal(d)
    logit = X @ w * 0.3 + np.sin(2 * X[:, 0]) * 1.5 + X[:, 1] * X[:, 2] - 0.5 * np.abs(X[:, 3])
    y = (logit + rng.standard_normal(n) * 0.5 > 0).astype(np.float32)
    return X, y


def xgb_run(X, y, nt, rounds):
    import xgboost as xgb
    dtrain = xgb.DMatrix(X, label=y, nthread=nt)
    params = dict(tree_method="hist", objective="binary:logistic", max_depth=6, eta=0.1, max_bin=256,
                  subsample=1.0, colsample_bytree=1.0, seed=0, nthread=nt, eval_metric="logloss")
    res = {}
    t0 = time.perf_counter()
    bst = xgb.train(params, dtrain, num_boost_round=rounds, evals=[(dtrain, "train")], evals_result=res,
                    verbose_eval=False)
    secs = time.perf_counter() - t0
    return secs, bst.predict(dtrain), res["train"]["logloss"][-1]


def lgb_run(X, y, nt, rounds):
    import lightgbm as lgb
    params = dict(objective="binary", num_leaves=63, learning_rate=0.05, max_bin=255, min_data_in_leaf=20,
                  deterministic=True, force_row_wise=True, seed=0, num_threads=nt, verbose=-1,
                  metric="binary_logloss")
    dtrain = lgb.Dataset(X, label=y, params=params, free_raw_data=False)
    dtrain.construct()
    res = {}
    t0 = time.perf_counter()
    bst = lgb.train(params, dtrain, num_boost_round=rounds, valid_sets=[dtrain], valid_names=["train"],
                    callbacks=[lgb.record_evaluation(res)])
    secs = time.perf_counter() - t0
    return secs, bst.predict(X, num_threads=nt), res["train"]["binary_logloss"][-1]


def main():
    runs = {"xgb": xgb_run, "lgb": lgb_run}
    if len(sys.argv) < 2 or sys.argv[1] not in runs or len(sys.argv) > 4:
        print("usage: gbm_train.py xgb|lgb [THREADS [ROUNDS]]", file=sys.stderr)
        sys.exit(2)
    nt = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    X, y = data()
    secs, p, loss = runs[sys.argv[1]](X, y, nt, rounds)
    p = np.asarray(p, dtype=np.float64)
    sha9 = hashlib.sha256(np.round(p * 1e9).astype(np.int64).tobytes()).hexdigest()[:16]
    sharaw = hashlib.sha256(p.tobytes()).hexdigest()[:16]
    print(f"{sys.argv[1]} threads={nt} rounds={rounds} train_s={secs:.4f} sha9={sha9} sharaw={sharaw} "
          f"logloss={loss:.12f}")


if __name__ == "__main__":
    main()
