"""Turns the results files of the training examples into the markdown tables of
docs/python.md and the plots beside them.

    python3 report_training.py [--dir docs/training]      (needs matplotlib for the PNGs)

Files read (those present): digits.json, chargpt.json and its ablations
(chargpt-loss-compressed.json, chargpt-softmax-fp32.json, chargpt-gelu4.json), chargpt-ddp.json,
chargpt-budget*.json, and timing/chargpt.json (a short run of every setting alone on the
machine, for the char GPT's time and step peak per step; without it both come from the
training runs).
"""
import argparse
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MiB = float(1 << 20)


def smooth(v, w):
    v = np.asarray(v, dtype=float)
    if len(v) < w:
        return np.arange(len(v)), v
    k = np.ones(w) / w
    return np.arange(w - 1, len(v)), np.convolve(v, k, mode="valid")


def spread(values, fmt):
    """mean (min-max) of a setting's seeds, or the one value."""
    v = np.asarray(values, dtype=float)
    if len(v) == 1:
        return fmt % v[0]
    return (fmt + " (" + fmt + "-" + fmt + ")") % (v.mean(), v.min(), v.max())


def code_width(runs):
    widths = runs[0].get("elements_per_width")
    if not widths:
        return "32"
    total = np.sum([r["elements_per_width"] for r in runs], axis=0)
    return "%.2f" % (sum(b * n for b, n in enumerate(total)) / total.sum())


def mib(nbytes):
    return "%.2f" % (nbytes / MiB) if nbytes else "-"


def same_seeds(single, setting, runs):
    """The single-process runs of `setting` with the seeds of `runs`."""
    seeds = {r["seed"] for r in runs}
    return [r for r in single["runs"].get(setting, []) if r["seed"] in seeds]


def median_of(runs, key):
    v = [r[key] for r in runs if r.get(key) is not None]
    return float(np.median(v)) if v else None


def timing_cells(setting, runs, timing, fp32_ms):
    """ms/step (vs fp32), share in actq ops, adaptive refresh cost per step."""
    src = timing["runs"].get(setting, runs) if timing else runs
    ms = median_of(src, "ms_per_step")
    share = median_of(src, "actq_op_share")
    refresh = ""
    if "refresh_seconds" in runs[0]:  # amortized over the steps of the full run
        steps = len(runs[0]["train_loss"])
        per = np.mean([r["refresh_seconds"] / max(r["refreshes"], 1) for r in runs])
        refresh = "%.1f s each, %.0f ms/step" % (
            per, 1e3 * np.mean([r["refresh_seconds"] for r in runs]) / steps)
    return ["%.1f" % ms if ms else "-",
            "%.2fx" % (ms / fp32_ms) if ms and fp32_ms else "-",
            "%.0f%%" % (100 * share) if share else "-", refresh or "-"]


def metric(runs):
    if "test_accuracy" in runs[0]:
        return "test acc " + spread([100 * r["test_accuracy"] for r in runs], "%.1f%%")
    return "val loss " + spread([r["val_loss"] for r in runs], "%.3f")


def table(results, timing):
    head = ["| task | setting | seeds | result | bytes held for backward per step | fp32's / held "
            "| bits per fp32 activation element, all-in | code width | step peak, "
            "allocator (MiB) | fp32's peak / peak | ms per step | time / fp32's "
            "| in actq ops | adaptive refresh |",
            "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    body = []
    for name, d in results.items():
        # the fp32 reference of a task is its own fp32 run, else the plain char GPT's
        ref = d if "fp32" in d["runs"] else results["char GPT"]
        base = ref["runs"]["fp32"][0]["saved_bytes_per_step"]
        # The char GPT's fp32 peak and times from the timing run where there is one
        # (for the GPT's own settings their peaks too)
        fp32 = (timing if timing and ref is results.get("char GPT") else ref)["runs"]["fp32"]
        base_peak = median_of(fp32, "step_peak_bytes")
        tim = timing if name == "char GPT" else None
        fp32_ms = median_of((tim or ref)["runs"]["fp32"], "ms_per_step")
        for setting, runs in d["runs"].items():
            held = runs[0]["saved_bytes_per_step"]
            peak = median_of(tim["runs"].get(setting, runs) if tim else runs,
                             "step_peak_bytes")
            cells = [name, setting, str(len(runs)), metric(runs), format(held, ","),
                     "%.1fx" % (base / held), "%.2f" % (32 * held / base), code_width(runs),
                     mib(peak), "%.2fx" % (base_peak / peak) if peak and base_peak else "-"]
            # Times only where fp32 ran in the same conditions: the task's own runs, or
            # the char GPT's timing file (the ablations ran beside other jobs).
            timed = "fp32" in d["runs"] or tim is not None
            cells += (timing_cells(setting, runs, tim, fp32_ms) if timed else ["-"] * 4)
            body.append("| " + " | ".join(cells) + " |")
    return "\n".join(head + body)


def delta_table(results):
    """Each char GPT setting's validation loss minus fp32's, seed by seed (same seed, same
    initial weights and batches): the paired difference the claims are about."""
    fp32 = {r.get("seed"): r["val_loss"] for r in results["char GPT"]["runs"]["fp32"]}
    out = ["| run | setting | val loss - fp32, per seed | mean |", "|---|---|---|---:|"]
    for name, d in results.items():
        if not name.startswith("char GPT"):
            continue
        for setting, runs in d["runs"].items():
            dv = [r["val_loss"] - fp32[r["seed"]] for r in runs
                  if setting != "fp32" and r.get("seed") in fp32]
            if dv:
                out.append("| %s | %s | %s | %+.3f |" % (
                    name, setting, ", ".join("%+.3f" % v for v in dv), np.mean(dv)))
    return "\n".join(out)


def ddp_table(ddp, single):
    out = ["| setting | processes | val loss | single process, same seeds | bytes held per "
           "step, per rank |",
           "|---|---:|---|---|---:|"]
    for setting, runs in ddp["runs"].items():
        ref = same_seeds(single, setting, runs)
        out.append("| %s | %d | %s | %s | %s |" % (
            setting, runs[0]["world_size"], spread([r["val_loss"] for r in runs], "%.3f"),
            spread([r["val_loss"] for r in ref], "%.3f") if ref else "-",
            format(runs[0]["saved_bytes_per_step"], ",")))
    return "\n".join(out)


def budget_table(budgets):
    out = ["| model | setting | largest batch within the budget | vs fp32 | its step peak (MiB) "
           "| bytes held for backward at that batch | share of the peak |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for b in budgets:
        model = "char GPT, %d layers, %.0f MiB" % (b["config"]["layers"],
                                                  b["budget_bytes"] / MiB)
        for setting, r in b["settings"].items():
            out.append("| %s | %s | %d | %.2fx | %s | %s | %.0f%% |" % (
                model, setting, r["largest_batch"], r["vs_fp32"] or 0,
                mib(r["step_peak_bytes"]), format(r["saved_bytes_per_step"], ","),
                100 * r["saved_bytes_per_step"] / r["step_peak_bytes"]))
    return "\n".join(out)


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def val_band(ax, runs, label, style="o-", **kw):
    """Mean validation curve over the seeds, the band between min and max."""
    steps = [s for s, _ in runs[0]["val_curve"]]
    v = np.array([[l for _, l in r["val_curve"]] for r in runs])
    line, = ax.plot(steps, v.mean(0), style, ms=3, label=label, **kw)
    if len(runs) > 1:
        ax.fill_between(steps, v.min(0), v.max(0), color=line.get_color(), alpha=0.15)
    return line


def plot_digits(d, path):
    plt = _plt()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4))
    for setting, runs in d["runs"].items():
        x, y = smooth(runs[0]["train_loss"], 25)
        ax.plot(x, y, lw=1, alpha=0.7, label="%s train" % setting)
    ax.set_yscale("log")
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy (train: mean of 25 steps)")
    ax.set_title("digits CNN: training loss (seed 0)")
    ax.legend(fontsize=7)
    bars(bx, d, "digits CNN")
    save(fig, path)


def val_axes(ax, title, fontsize):
    ax.set_xlabel("step")
    ax.set_ylabel("validation cross-entropy")
    ax.set_ylim(top=2.2)
    ax.set_title(title, fontsize=fontsize)
    ax.legend(fontsize=7)


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print("wrote", path)


def bars(bx, d, name, peaks=None):
    """Held bytes and step peaks per setting; the peaks from `peaks` (the timing run)
    where it has the setting."""
    names = list(d["runs"])
    held = [d["runs"][s][0]["saved_bytes_per_step"] / 1024 for s in names]
    src = lambda s: (peaks or d)["runs"].get(s, d["runs"][s])
    peak = [(median_of(src(s), "step_peak_bytes") or 0) / 1024 for s in names]
    x = np.arange(len(names))
    b1 = bx.bar(x - 0.2, held, 0.4, color="gray", label="held for backward (hooks' count)")
    b2 = bx.bar(x + 0.2, peak, 0.4, color="tab:blue", label="step peak (allocator)")
    bx.bar_label(b1, ["%.0f" % h for h in held], fontsize=6)
    bx.bar_label(b2, ["%.0f" % h for h in peak], fontsize=6)
    bx.set_xticks(x, names, rotation=30, ha="right", fontsize=7)
    bx.set_ylabel("KiB per training step")
    bx.set_title("%s: memory per step (measured)" % name)
    bx.legend(fontsize=7)


def plot_chargpt(d, path, timing=None):
    plt = _plt()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.5))
    for setting, runs in d["runs"].items():
        val_band(ax, runs, "%s (%d seeds)" % (setting, len(runs)))
    val_axes(ax, "char GPT: validation loss (mean; band: min-max over seeds)", 10)
    bars(bx, d, "char GPT", timing)
    save(fig, path)


def plot_ddp(ddp, single, path):
    """DDP's validation curves (dashed) over the single process's (solid), per setting."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for setting, runs in ddp["runs"].items():
        ref = same_seeds(single, setting, runs)
        line = val_band(ax, ref, "%s, 1 process" % setting) if ref else None
        val_band(ax, runs, "%s, DDP %d processes" % (setting, runs[0]["world_size"]), "x--",
                 **({"color": line.get_color()} if line else {}))
    val_axes(ax, "char GPT under DistributedDataParallel (gloo): mean, min-max band", 9)
    save(fig, path)


def load(path):
    if not os.path.exists(path):
        return None
    with open(path) as fh:
        return json.load(fh)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=os.path.join(HERE, "..", "..", "..", "docs", "training"))
    ap.add_argument("--no-plot", action="store_true")
    a = ap.parse_args()
    results = {}
    for name, f in (("digits CNN", "digits.json"), ("char GPT", "chargpt.json"),
                    ("char GPT, loss head compressed too", "chargpt-loss-compressed.json"),
                    ("char GPT, attention softmax kept fp32", "chargpt-softmax-fp32.json"),
                    ("char GPT, GELU codes at 4 bits", "chargpt-gelu4.json")):
        d = load(os.path.join(a.dir, f))
        if d:
            results[name] = d
    timing = load(os.path.join(a.dir, "timing", "chargpt.json"))
    ddp = load(os.path.join(a.dir, "chargpt-ddp.json"))
    budgets = sorted((b for b in (load(os.path.join(a.dir, f)) for f in os.listdir(a.dir)
                                  if f.startswith("chargpt-budget") and f.endswith(".json"))
                      if b), key=lambda b: b["config"]["layers"])
    print(table(results, timing))
    if "char GPT" in results:
        print()
        print(delta_table(results))
    if ddp and "char GPT" in results:
        print()
        print(ddp_table(ddp, results["char GPT"]))
    if budgets:
        print()
        print(budget_table(budgets))
    if not a.no_plot:
        if "digits CNN" in results:
            plot_digits(results["digits CNN"], os.path.join(a.dir, "digits.png"))
        if "char GPT" in results:
            plot_chargpt(results["char GPT"], os.path.join(a.dir, "chargpt.png"), timing)
            if ddp:
                plot_ddp(ddp, results["char GPT"], os.path.join(a.dir, "chargpt-ddp.png"))


if __name__ == "__main__":
    main()
