"""scikit-learn's handwritten digits and the stratified 80/20 split train_digits.py uses,
from scikit-learn or from a file this module exported where scikit-learn is installed
(for machines without it; the split is stored, so the file gives the same split).

    python3 digits_data.py OUT.npz [--seeds N]     (needs scikit-learn)
"""
import argparse

import numpy as np


def _split(target, seed):
    """(train indices, test indices) in the order train_test_split returns the samples."""
    from sklearn.model_selection import train_test_split
    return train_test_split(np.arange(len(target)), test_size=0.2, random_state=seed,
                            stratify=target)


def export(path, seeds):
    from sklearn.datasets import load_digits
    d = load_digits()
    fields = {"images": d.images.astype(np.uint8), "target": d.target.astype(np.int64)}
    for s in range(seeds):
        fields["train_seed%d" % s], fields["test_seed%d" % s] = _split(d.target, s)
    np.savez_compressed(path, **fields)


def load(seed, path=None):
    """(x_train, y_train, x_test, y_test): images N x 1 x 8 x 8 float32 in [0, 1]."""
    if path is None:
        from sklearn.datasets import load_digits
        d = load_digits()
        images, target = d.images, d.target
        train, test = _split(target, seed)
    else:
        with np.load(path) as f:
            if "train_seed%d" % seed not in f:
                raise SystemExit("%s holds no split for seed %d (export more --seeds)"
                                 % (path, seed))
            images, target = f["images"], f["target"]
            train, test = f["train_seed%d" % seed], f["test_seed%d" % seed]
    x = (images / 16.0).astype(np.float32)[:, None]
    return x[train], target[train], x[test], target[test]


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--seeds", type=int, default=5)
    a = ap.parse_args()
    export(a.out, a.seeds)
