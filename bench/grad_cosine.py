#!/usr/bin/env python3
"""grad_cosine.py - issue 27's one-draw measure: the cosine between one compressed step's
gradient (all parameters, one vector) and the fp32 gradient of the same batch, on
train_chargpt.py's model at the issue's size (4 layers, d 256, 4 heads, block 128, batch
16, no dropout), at initialization and after --warm steps of fp32 training (the same
weights for every setting), for several noise draws per setting.

Settings: "2-bit", "4-bit" (compressed_saved_tensors with every saved tensor alike, loss
head outside), "2-bit ops" (the hooks' default, op_rules.py; "loss inside": the loss in the
block, which the default turns into 4-bit probabilities), and "2-bit attention op 4-bit loss4" (each block's attention through
functional.attention with v and P at 4 bits, q and k at 2; the loss through
functional.cross_entropy with the probabilities at 4 bits, inside the block); a setting
naming "linear nearest" / "linear exact" (the Linear inputs rounded to nearest / kept),
"layernorm exact", "head exact", "head 4-bit" (the head Linear's input), "qk 4-bit"
(attention's q and k at 4 bits too), "lnlinear B-bit" (with "attention op": each LayerNorm
and the Linear it feeds through functional.layer_norm_linear, one B-bit copy of the
normalized input) or "gelu exact" (torch's GELU) changes that too.

  cd bindings/python/examples && ACTQ_LIBRARY=... PYTHONPATH=..:.:../../../bench \\
    python ../../../bench/grad_cosine.py [--draws 3] [--warm 100]
"""
import argparse
import re
import types

import torch
import torch.nn.functional as F

import actq.torch as at
import chargpt_ablation as abl
import train_chargpt as tc


def flat_grad(model):
    return torch.cat([p.grad.reshape(-1) for p in model.parameters()])


def gradient(model, x, y, vocab, setting, seed):
    model.zero_grad()
    if setting == "fp32":
        F.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1)).backward()
        return flat_grad(model)
    saved = [b.attention for b in model.blocks]
    fwd = {n: m.forward for n, m in model.named_modules()
           if isinstance(m, (torch.nn.Linear, torch.nn.LayerNorm))}
    try:
        bits = 4 if setting == "4-bit" else 2
        head = 4 if "head 4-bit" in setting else None
        linear = "nearest" if "linear nearest" in setting else \
            "exact" if "linear exact" in setting else None
        # "ops": the hooks' default (op_rules.py); otherwise every saved tensor alike
        plain = at.Quantizer if "ops" in setting.split() else abl.TensorsOnly
        q = abl.LinearInputs(linear, model, 2, seed=seed, head_bits=head) \
            if linear or head else plain(bits, seed=seed, meta_dtype="bf16" if "bf16meta"
                                         in setting else "f32")
        if "layernorm exact" in setting:
            for m in model.modules():
                if isinstance(m, torch.nn.LayerNorm):
                    abl.exact_module(m)
        if "head exact" in setting:
            abl.exact_module(model.head)
        lq = at.Quantizer(4, seed=seed + 7919) if "loss4" in setting else None
        inside = "loss inside" in setting  # F.cross_entropy in the block (ops: 4-bit P)
        if "attention op" in setting:
            qpv = at.Quantizer(4, seed=seed + 1)
            qqk = qpv if "qk 4-bit" in setting else q
            for b in model.blocks:
                b.attention = types.MethodType(abl.attention_op(qpv, qqk), b)
                b.qpv, b.qqk = qpv, qqk
            m = re.search(r"lnlinear (\d)-bit", setting)
            if m:
                abl.ln_linear_model(model, at.Quantizer(int(m.group(1)), seed=seed + 2), None)
        with at.compressed_saved_tensors(quantizer=q):
            logits = model(x).reshape(-1, vocab)
            if lq is not None:
                loss = at.functional.cross_entropy(logits, y.reshape(-1), lq)
            elif inside:
                loss = F.cross_entropy(logits, y.reshape(-1))
        if lq is None and not inside:
            loss = F.cross_entropy(logits, y.reshape(-1))
        loss.backward()
        return flat_grad(model)
    finally:
        for b, a in zip(model.blocks, saved):
            b.attention = a
        for m in (model, *model.blocks):
            m.__dict__.pop("forward", None)  # ln_linear_model's
        for n, m in model.named_modules():
            if n in fwd:
                m.forward = fwd[n]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--d", type=int, default=256)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--block", type=int, default=128)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--draws", type=int, default=3)
    ap.add_argument("--warm", type=int, default=100, help="fp32 steps before the second point")
    ap.add_argument("--chars", type=int, default=300_000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--by-param", action="store_true",
                    help="also each weight matrix's cosine, the lowest 8")
    ap.add_argument("--settings", default="2-bit,4-bit,2-bit attention op 4-bit loss4,"
                    "2-bit attention op 4-bit loss4 linear nearest")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    a.device = "cpu"
    train_w, _, chars, _ = tc.windows(a)
    vocab = len(chars)
    torch.manual_seed(0)
    model = tc.CharGPT(vocab, a.block, a.d, a.heads, a.layers, torch.nn.GELU)
    # the compressed settings' GELU: few-bit codes at the setting's width, same weights
    gen = torch.Generator().manual_seed(0)
    w = train_w[torch.randint(0, len(train_w), (a.batch,), generator=gen)]
    x, y = w[:, :a.block], w[:, 1:]
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    settings = a.settings.split(",")
    print("model: %d layers, d %d, %d heads, block %d, batch %d; %d draws" %
          (a.layers, a.d, a.heads, a.block, a.batch, a.draws))
    for point in ("init", "after %d fp32 steps" % a.warm):
        if point != "init":
            for _ in range(a.warm):
                i = torch.randint(0, len(train_w), (a.batch,), generator=gen)
                ww = train_w[i]
                opt.zero_grad()
                F.cross_entropy(model(ww[:, :a.block]).reshape(-1, vocab),
                                ww[:, 1:].reshape(-1)).backward()
                opt.step()
        ref = gradient(model, x, y, vocab, "fp32", 0)
        for s in settings:
            gelus = [b.gelu for b in model.blocks]
            for b in model.blocks:
                b.gelu = torch.nn.GELU() if "gelu exact" in s else \
                    at.nn.GELU(4 if s == "4-bit" else 2)
            cos = [float(F.cosine_similarity(gradient(model, x, y, vocab, s, 1 + k), ref, 0))
                   for k in range(a.draws)]
            for b, g in zip(model.blocks, gelus):
                b.gelu = g
            print("%-22s %-48s cosine %s" % (point, s, " ".join("%.3f" % c for c in cos)))
            if a.by_param and point != "init":
                gradient(model, x, y, vocab, s, 1)
                got = {n: p.grad.clone() for n, p in model.named_parameters()}
                gradient(model, x, y, vocab, "fp32", 0)
                rows = sorted((float(F.cosine_similarity(got[n].reshape(-1),
                                                         p.grad.reshape(-1), 0)), n)
                              for n, p in model.named_parameters() if p.dim() > 1)
                print("    lowest:", ", ".join("%s %.2f" % (n, c) for c, n in rows[:8]))


if __name__ == "__main__":
    main()
