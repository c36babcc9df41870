"""The largest batch of the char GPT whose training step fits a memory budget, per setting:
ActNN's headline (larger batches in the same memory), measured rather than counted.

A batch fits when the peak of its training step, read from the allocator's records
(stepmeter: every allocation and free above what was live when the step began:
saved activations, the forward's and backward's temporaries, the gradients) is at most
the budget. The weights, the batch and the optimizer's state are live before the step and
not part of it; they are the same in every setting. Each batch size runs 3 steps of
train_chargpt.train (the peak of steps 1 and 2, after the optimizer's state exists); the
search doubles the batch until a step no longer fits, then bisects.

    python3 batch_budget.py [--budget-mib 64]     # -> docs/training/chargpt-budget.json
    python3 batch_budget.py --layers 8            # -> docs/training/chargpt-budget-L8.json
    python3 batch_budget.py --quick --out DIR     # seconds: the CI smoke test
"""
import argparse
import os

import common
import train_chargpt


def step_peak(setting, a, batch, data, vocab):
    """(peak bytes of a training step, bytes the hooks counted) at this batch size."""
    train_w, val_w = data
    r = train_chargpt.train(setting, argparse.Namespace(**{
        **vars(a), "batch": batch, "steps": 3, "val_batches": 0}), train_w, val_w, vocab)
    return r["step_peak_bytes"], r["saved_bytes_per_step"]


def largest_batch(setting, a, budget, data, vocab, limit):
    """The largest batch <= limit whose step peak is within budget, and every batch size
    measured: {batch: (peak, saved)}."""
    seen = {}

    def fits(b):
        if b not in seen:
            seen[b] = step_peak(setting, a, b, data, vocab)
            print("  %-18s batch %5d  step peak %11d B  saved %11d B  %s"
                  % (setting, b, seen[b][0], seen[b][1],
                     "fits" if seen[b][0] <= budget else "over"), flush=True)
        return seen[b][0] <= budget

    lo, hi = 0, 1  # fits(lo) (0: nothing), not known for hi
    while hi <= limit and fits(hi):
        lo, hi = hi, hi * 2
    hi = min(hi, limit + 1)  # the first batch known not to fit, or past the limit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo, seen


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    train_chargpt.add_model_arguments(ap)
    ap.add_argument("--budget-mib", type=float, default=64.0,
                    help="the memory a training step may allocate, MiB")
    ap.add_argument("--settings", default="fp32,2-bit,3-bit,4-bit")
    ap.add_argument("--quick", action="store_true", help="a small budget: a smoke test")
    a = ap.parse_args()
    if a.quick:
        a.budget_mib, a.chars = 4.0, 100_000
    common.setup_threads(a.threads)
    train_w, val_w, chars, source = train_chargpt.windows(a)
    budget = int(a.budget_mib * (1 << 20))
    results = {}
    for setting in a.settings.split(","):
        batch, seen = largest_batch(setting, a, budget, (train_w, val_w), len(chars),
                                    len(train_w))
        results[setting] = {"largest_batch": batch,
                            "step_peak_bytes": seen[batch][0] if batch else None,
                            "saved_bytes_per_step": seen[batch][1] if batch else None,
                            "measured": {str(b): {"step_peak_bytes": p, "saved_bytes": s}
                                         for b, (p, s) in sorted(seen.items())}}
        print("%-18s largest batch within %.0f MiB: %d" % (setting, a.budget_mib, batch),
              flush=True)
    base = results.get("fp32", {}).get("largest_batch")
    for r in results.values():
        r["vs_fp32"] = round(r["largest_batch"] / base, 2) if base else None
    name = "chargpt-budget"
    name += "" if a.layers == ap.get_default("layers") else "-L%d" % a.layers
    name += ".json" if a.device == "cpu" else "-%s.json" % a.device
    common.write_results(os.path.join(a.out, name),
                         {"task": "char GPT, largest batch within a memory budget",
                          "budget_bytes": budget, "corpus": source,
                          "config": {k: v for k, v in vars(a).items() if k != "out"},
                          "environment": common.environment(a.device),
                          "settings": results})


if __name__ == "__main__":
    main()
