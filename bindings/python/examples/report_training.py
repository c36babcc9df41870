"""Turns the results files of train_digits.py and train_chargpt.py into the markdown table
of docs/python.md and one PNG per task (loss curves and held bytes).

    python3 report_training.py [--dir docs/training]      (needs matplotlib for the PNGs)
"""
import argparse
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def smooth(v, w):
    v = np.asarray(v, dtype=float)
    if len(v) < w:
        return np.arange(len(v)), v
    k = np.ones(w) / w
    return np.arange(w - 1, len(v)), np.convolve(v, k, mode="valid")


def rows(task, d, base):
    out = []
    for setting, runs in d["runs"].items():
        held = runs[0]["saved_bytes_per_step"]
        if "test_accuracy" in runs[0]:
            acc = np.array([r["test_accuracy"] for r in runs]) * 100
            metric = "test acc %.1f%% (%s)" % (acc.mean(), ", ".join("%.1f" % a for a in acc))
        else:
            metric = "val loss %.3f" % runs[0]["val_loss"]
        widths = runs[0].get("elements_per_width")
        avg = ("%.2f" % (sum(b * n for b, n in enumerate(widths)) / sum(widths))
               if widths else "32")
        secs = np.mean([r["seconds"] for r in runs])
        out.append("| %s | %s | %s | %s | %.1fx | %.2f | %s | %.0f |"
                   % (task, setting, metric, format(held, ","), base / held,
                      32 * held / base, avg, secs))
    return out


def table(results):
    head = ["| task | setting | result | bytes held for backward per step | vs fp32 "
            "| bits per fp32 activation element, all-in | code width of compressed elements "
            "| training seconds (shared machine) |",
            "|---|---|---|---:|---:|---:|---:|---:|"]
    body = []
    for name, d in results.items():
        # the fp32 reference of a task is its own fp32 run, else the plain char GPT's
        ref = d if "fp32" in d["runs"] else results["char GPT"]
        body += rows(name, d, ref["runs"]["fp32"][0]["saved_bytes_per_step"])
    return "\n".join(head + body)


def plot(name, d, path, extra=None):
    """Loss curves and held bytes of one task; `extra` (the loss-head-compressed char GPT
    runs) adds dashed validation curves."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4))
    for setting, runs in d["runs"].items():
        r = runs[0]
        x, y = smooth(r["train_loss"], 25)
        line, = ax.plot(x, y, lw=1, alpha=0.6, label="%s train" % setting)
        if "val_curve" in r:
            vs, vl = zip(*r["val_curve"])
            ax.plot(vs, vl, "o-", ms=3, color=line.get_color(), label="%s val" % setting)
    for setting, runs in (extra or {}).get("runs", {}).items():
        vs, vl = zip(*runs[0]["val_curve"])
        ax.plot(vs, vl, "x--", ms=3, label="%s val, loss head compressed too" % setting)
    ax.set_yscale("log")
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy (train: mean of 25 steps)")
    ax.set_title("%s: loss (seed 0)" % name)
    ax.legend(fontsize=7)
    names = list(d["runs"])
    held = [d["runs"][s][0]["saved_bytes_per_step"] / 1024 for s in names]
    bars = bx.bar(names, held, color="gray")
    bx.bar_label(bars, ["%.0f KiB" % h for h in held], fontsize=8)
    bx.set_ylabel("KiB held for backward per step")
    bx.set_title("%s: saved-tensor bytes (measured)" % name)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print("wrote", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=os.path.join(HERE, "..", "..", "..", "docs", "training"))
    ap.add_argument("--no-plot", action="store_true")
    a = ap.parse_args()
    results = {}
    for name, f in (("digits CNN", "digits.json"), ("char GPT", "chargpt.json"),
                    ("char GPT, loss head compressed too", "chargpt-loss-compressed.json"),
                    ("char GPT, attention softmax kept fp32", "chargpt-softmax-fp32.json")):
        p = os.path.join(a.dir, f)
        if os.path.exists(p):
            with open(p) as fh:
                results[name] = json.load(fh)
    print(table(results))
    if not a.no_plot:
        for name, stem in (("digits CNN", "digits"), ("char GPT", "chargpt")):
            if name in results:
                plot(name, results[name], os.path.join(a.dir, stem + ".png"),
                     results.get("char GPT, loss head compressed too")
                     if stem == "chargpt" else None)


if __name__ == "__main__":
    main()
