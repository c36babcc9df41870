"""A small GPT-style character model on the Python standard library's own source files,
GACT-style: every floating tensor autograd saves is quantized by
actq.torch.compressed_saved_tensors, and the MLP's GELU saves few-bit codes.

The corpus is the .py files directly in the running interpreter's standard library
(sorted by name, concatenated), the last 10% held out for validation. Sequences are fixed
non-overlapping windows, so each has an identity across epochs: the mixed setting weights
each position by its ||dL/dlogits||^2 at the window's previous visit (ActNN's gradient-norm
factor). The adaptive settings give each saved tensor its own width (GACT's AutoPrecision,
re-measured every --refresh-every steps, outside the timed step; the time it takes is
reported apart). The loss head (cross-entropy, whose saved log-softmax feeds exp() in backward)
runs outside the compressed block unless --compress-loss (its log-softmax quantized) or
--loss-bits B (actq.torch.functional.cross_entropy: the probabilities at B bits, unbiased).

    python3 train_chargpt.py                     # full run -> docs/training/chargpt.json
    python3 train_chargpt.py --ddp 2 --settings fp32,2-bit   # -> chargpt-ddp.json
    python3 train_chargpt.py --quick --out DIR   # seconds: the CI smoke test
    python3 train_chargpt.py --quick --device cuda --out DIR  # -> DIR/chargpt-cuda.json

On a CUDA device each run also reports torch.cuda.max_memory_allocated() (common's
CudaMemory).
"""
import argparse
import contextlib
import glob
import math
import os
import sysconfig
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import common
import stepmeter
from common import at


def corpus(max_chars):
    stdlib = sysconfig.get_paths()["stdlib"]
    files = sorted(glob.glob(os.path.join(stdlib, "*.py")))
    parts, total = [], 0
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            parts.append(f.read())
        total += len(parts[-1])
        if total >= max_chars:
            break
    text = "".join(parts)[:max_chars]
    return text, {"source": "stdlib *.py of Python %s" % sysconfig.get_python_version(),
                  "files": len(parts), "chars": len(text)}


class Block(nn.Module):
    def __init__(self, d, heads, gelu):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.gelu = gelu
        self.plain = contextlib.nullcontext  # what saves attention's softmax (--softmax-fp32)

    def attention(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.reshape(b, t, self.heads, -1).transpose(1, 2) for z in (q, k, v))
        att = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        with self.plain():  # an inner saved-tensor hook overrides the compressing one
            att = att.masked_fill(mask, float("-inf")).softmax(-1)
            z = att @ v
        return self.proj(z.transpose(1, 2).reshape(b, t, d))

    def forward(self, x):
        x = x + self.attention(self.ln1(x))
        return x + self.out(self.gelu(self.fc(self.ln2(x))))


class CharGPT(nn.Module):
    def __init__(self, vocab, block, d, heads, layers, gelu):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(block, d)
        self.blocks = nn.Sequential(*[Block(d, heads, gelu()) for _ in range(layers)])
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        return self.head(self.ln(self.blocks(x)))


def batches(windows, batch, gen):
    """Indices of the training windows, shuffled each epoch, `batch` at a time."""
    while True:
        perm = torch.randperm(len(windows), generator=gen)
        for i in range(0, len(perm) - batch + 1, batch):
            yield perm[i:i + batch]


def validation_loss(model, val, n_batches, batch, block):
    model.eval()
    losses = []
    with torch.no_grad():
        for i in range(min(n_batches, len(val) // batch)):
            w = val[i * batch:(i + 1) * batch]
            logits = model(w[:, :block])
            losses.append(F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                          w[:, 1:].reshape(-1)).item())
    model.train()
    return float(np.mean(losses))


def windows(a):
    """The training and validation windows of a.chars characters of the corpus, on
    a.device; the characters (the vocabulary) and the corpus's description."""
    text, source = corpus(a.chars)
    chars = sorted(set(text))
    data = torch.tensor(np.searchsorted(np.array(chars), np.array(list(text))),
                        dtype=torch.long)
    n_train = int(len(data) * 0.9)
    # Non-overlapping windows of block+1 characters (inputs and next-character targets).
    cut = lambda d: d[: len(d) // (a.block + 1) * (a.block + 1)].reshape(-1, a.block + 1)
    return (cut(data[:n_train]).to(a.device), cut(data[n_train:]).to(a.device), chars,
            source)


def rank_seed(seed, rank):
    """The noise seed of a data-parallel rank: rank 0 the run's seed, the others their own,
    so no two ranks (and no two seeds of a sweep below 1000003) share a noise stream."""
    return seed + 1000003 * rank


def train(setting, a, train_w, val_w, vocab, rank=0, world=1):
    """One setting, one seed. With world > 1 this is one rank of a DistributedDataParallel
    run (the process group is up): each rank takes its share of every batch, quantizes
    with its own noise seed, and rank 0 measures the validation loss."""
    cuda = common.CudaMemory(a.device)
    cuda.start()  # the windows are on the device already; the model and optimizer are not
    torch.manual_seed(a.seed)  # the same initial weights in every setting
    compressed = setting != "fp32"
    gelu = ((lambda: at.nn.GELU(a.gelu_bits or common.fewbit_bits(setting))) if compressed
            else nn.GELU)
    model = CharGPT(vocab, a.block, a.d, a.heads, a.layers, gelu).to(a.device)
    net = model
    if world > 1:
        from torch.nn.parallel import DistributedDataParallel
        net = DistributedDataParallel(model)
    q = common.quantizer_for(setting, rank_seed(a.seed, rank), model, a.refresh_every,
                             a.probes)
    adaptive = isinstance(q, at.AutoPrecision)
    per_sample = common.per_sample(q)  # ActNN's per-position gradient norms, kept only then
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
    gen = torch.Generator().manual_seed(a.seed)  # the same batches in every setting
    grad_norm2 = torch.ones(len(train_w), a.block, dtype=torch.float64) if per_sample else None
    meter = at.SavedTensorMeter()
    steps = stepmeter.StepMeter(a.device)
    loss_q = (at.Quantizer(a.loss_bits, seed=rank_seed(a.seed, rank) + 7919)
              if a.loss_bits else None)
    if a.softmax_fp32:
        for block in model.blocks:
            block.plain = meter.counting

    def forward(x, y):
        if not compressed:
            with meter.counting():
                logits = net(x)
                return logits, F.cross_entropy(logits.reshape(-1, vocab), y.reshape(-1))
        with at.compressed_saved_tensors(quantizer=q, meter=meter, ops=not a.tensors_only):
            logits = net(x)
            if a.compress_loss:
                return logits, F.cross_entropy(logits.reshape(-1, vocab), y.reshape(-1))
            if loss_q is not None:
                return logits, at.functional.cross_entropy(logits.reshape(-1, vocab),
                                                           y.reshape(-1), loss_q)
        # The loss head outside the block: its saved log-softmax stays fp32 (counted by
        # the meter all the same).
        with meter.counting():
            return logits, F.cross_entropy(logits.reshape(-1, vocab), y.reshape(-1))

    losses, vals, held, parts = [], [], [], []
    refresh_seconds = 0.0
    with common.Timer() as timer:
        for step, idx in zip(range(a.steps), batches(train_w, a.batch, gen)):
            idx = idx[rank::world]  # this rank's share of the batch
            w = train_w[idx.to(train_w.device)]  # idx stays on the CPU, as grad_norm2
            x, y = w[:, :a.block], w[:, 1:]
            lr = a.lr * min(1.0, (step + 1) / 50)  # short warm-up
            for g in opt.param_groups:
                g["lr"] = lr
            if adaptive:  # GACT: re-measure the sensitivities every refresh_every steps
                t0 = time.perf_counter()
                with net.no_sync() if world > 1 else contextlib.nullcontext():
                    if q.step(lambda: forward(x, y)[1].backward()):
                        refresh_seconds += time.perf_counter() - t0
            with steps.step(step):
                meter.reset()
                cuda.before_forward()
                if per_sample:
                    q.row_weight = grad_norm2[idx]
                logits, loss = forward(x, y)
                cuda.after_forward()
                held.append(meter.activation_bytes)
                parts.append((meter.plain_bytes, meter.compressed_bytes,
                              meter.compressed_original_bytes))
                if per_sample:
                    with torch.no_grad():  # per position ||d CE / d logits||^2, next visit
                        g = logits.detach().softmax(-1)
                        g.scatter_add_(-1, y[..., None], -torch.ones_like(g[..., :1]))
                        grad_norm2[idx] = (g * g).sum(-1).double().cpu()
                opt.zero_grad()
                loss.backward()
                opt.step()
                loss = loss.detach()
                if world > 1:  # the loss of the whole batch, as a single process sees it
                    torch.distributed.all_reduce(loss)
                    loss /= world
                losses.append(round(loss.item(), 5))
            if rank == 0 and a.val_batches and ((step + 1) % a.eval_every == 0
                                                or step + 1 == a.steps):
                vals.append((step + 1, validation_loss(model, val_w, a.val_batches, a.batch,
                                                       a.block)))
    cuda.stop()
    r = {"seed": a.seed, "val_loss": vals[-1][1] if vals else None, "val_curve": vals,
         "train_loss": losses,
         "saved_bytes_per_step": int(np.median(held)), "saved_bytes_max": int(max(held)),
         "saved_parts_last_step": dict(zip(("plain", "compressed", "compressed_original"),
                                           parts[-1])),  # bytes, meter's fields
         "elements_per_width": q.elements_per_width if q else None,
         "seconds": timer.seconds, **steps.results(), **cuda.results()}
    if adaptive:
        r.update({"refreshes": q.refreshes, "refresh_backprops": q.backprops,
                  "refresh_seconds": round(refresh_seconds, 3),
                  "tensor_bits": q.tensor_bits, "tensor_numel": q.numel,
                  "sensitivity": q.sensitivity})
    if world > 1:
        r.update({"world_size": world,
                  "rank_seeds": [rank_seed(a.seed, k) for k in range(world)] if q else None})
    return r


def _ddp_rank(rank, world, port, a, out):
    """One process of a data-parallel run: every setting and seed, results to `out`."""
    import pickle
    common.setup_threads(a.threads)
    train_w, val_w, chars, _ = windows(a)  # each rank its own copy: no tensor to pass
    vocab = len(chars)
    torch.distributed.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port,
                                         rank=rank, world_size=world)
    try:
        runs = train_all(a, train_w, val_w, vocab, rank, world)
        if rank == 0:
            with open(out, "wb") as f:
                pickle.dump(runs, f)
    finally:
        torch.distributed.destroy_process_group()


def ddp(a):
    """The runs of train() under DistributedDataParallel with a.ddp processes (gloo, on
    this machine), each with a.threads threads; the batch is split between the ranks."""
    import pickle
    import socket
    import tempfile
    import torch.multiprocessing as mp
    with socket.socket() as s:  # a free port for the process group's rendezvous
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "runs.pickle")
        mp.spawn(_ddp_rank, args=(a.ddp, port, a, out),
                 nprocs=a.ddp, join=True)
        with open(out, "rb") as f:
            return pickle.load(f)


def train_all(a, train_w, val_w, vocab, rank=0, world=1):
    """{setting: [the runs of seeds a.seed .. a.seed + a.seeds - 1]}, rank 0 printing each."""
    runs = {}
    for setting in a.settings.split(","):
        for seed in range(a.seed, a.seed + a.seeds):
            runs.setdefault(setting, []).append(
                train(setting, argparse.Namespace(**{**vars(a), "seed": seed}),
                      train_w, val_w, vocab, rank, world))
            if rank == 0:
                report(setting, runs[setting][-1])
    return runs


def report(setting, r):
    print("%-18s seed %d  val loss %s  saved %9d B/step  %.1f s%s%s%s"
          % (setting, r["seed"], "%.4f" % r["val_loss"] if r["val_loss"] else "-",
             r["saved_bytes_per_step"], r["seconds"],
             stepmeter.StepMeter.line(r), common.CudaMemory.line(r),
             "  refreshes %.1f s" % r["refresh_seconds"] if "refresh_seconds" in r else ""),
          flush=True)


def add_model_arguments(ap):
    """The model's, the data's and the optimizer's settings (batch_budget.py's too)."""
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--block", type=int, default=64)
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--chars", type=int, default=300_000)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--val-batches", type=int, default=25)
    ap.add_argument("--seed", type=int, default=0, help="the first seed")
    ap.add_argument("--refresh-every", type=int, default=100,
                    help="steps between the adaptive settings' sensitivity measurements")
    ap.add_argument("--probes", type=int, default=2,
                    help="stochastic roundings per saved tensor in a sensitivity measurement")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--compress-loss", action="store_true",
                    help="the loss inside the compressed block: the hooks' op rules keep its "
                         "probabilities at 4 bits; with --tensors-only its log-softmax is "
                         "quantized (chargpt-loss-compressed.json)")
    ap.add_argument("--tensors-only", action="store_true",
                    help="the hooks with every saved tensor alike (ops=False), as every "
                         "table before the op rules (docs/python.md) was measured")
    ap.add_argument("--loss-bits", type=int, default=0, metavar="B",
                    help="the loss head inside the compressed block, keeping its softmax "
                         "probabilities at B bits (chargpt-loss<B>.json)")
    ap.add_argument("--softmax-fp32", action="store_true",
                    help="keep attention's softmax (and the v it multiplies) in fp32 "
                         "(chargpt-softmax-fp32.json)")
    ap.add_argument("--gelu-bits", type=int, default=0, metavar="B",
                    help="the GELU's few-bit code width in every compressed setting "
                         "(default: the setting's; chargpt-gelu<B>.json)")
    common.add_device_argument(ap)
    ap.add_argument("--out", default=os.path.join(common.HERE, "..", "..", "..", "docs",
                                                  "training"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_model_arguments(ap)
    ap.add_argument("--quick", action="store_true", help="a few steps: a smoke test")
    ap.add_argument("--seeds", type=int, default=3, help="seeds per setting")
    ap.add_argument("--ddp", type=int, default=1, metavar="N",
                    help="train with DistributedDataParallel on N processes (gloo; "
                         "--batch is split between them) -> chargpt-ddp.json")
    ap.add_argument("--settings", default=",".join(common.SETTINGS))
    a = ap.parse_args()
    if a.quick:
        a.steps, a.eval_every, a.val_batches, a.chars, a.seeds = 6, 3, 2, 200_000, 1
        a.refresh_every, a.probes = 6, 1  # one refresh, at the first step
    common.setup_threads(a.threads)
    train_w, val_w, chars, source = windows(a)
    if a.ddp > 1:
        if a.device != "cpu":
            raise SystemExit("--ddp runs on the CPU (gloo) only")
        runs = ddp(a)
    else:
        runs = train_all(a, train_w, val_w, len(chars))
    name = ("chargpt-loss-compressed" if a.compress_loss else
            "chargpt-softmax-fp32" if a.softmax_fp32 else "chargpt")
    name += "-gelu%d" % a.gelu_bits if a.gelu_bits else ""
    name += "-loss%d" % a.loss_bits if a.loss_bits else ""
    name += "-ddp" if a.ddp > 1 else ""
    name += ".json" if a.device == "cpu" else "-%s.json" % a.device
    common.write_results(os.path.join(a.out, name),
                         {"task": "char GPT", "corpus": source, "vocab": len(chars),
                          "train_windows": len(train_w), "val_windows": len(val_w),
                          "config": {k: v for k, v in vars(a).items() if k != "out"},
                          "environment": common.environment(a.device), "runs": runs})


if __name__ == "__main__":
    main()
