#!/usr/bin/env python3
"""bits_where.py - where the all-in bits of a compressed setting go: one forward pass of
the character GPT of the README's setting (examples/train_chargpt.py's model: d 64, 2
layers, 4 heads, block 64, batch 16, few-bit GELU) inside compressed_saved_tensors, every
saved tensor recorded: the codes and the metadata of what was quantized, and each kind of
tensor that stayed as it was (by dtype and shape), in bits per element of what fp32
training holds (the same model with nn.GELU, counted by the same meter). The loss head is
outside the block, as in the training script.

  ACTQ_LIBRARY=build-test/libactq.so.0 PYTHONPATH=bindings/python:bindings/python/examples \\
    python bench/bits_where.py [--bits 2] [--meta-dtype f32] [--group-size 256]
"""
import argparse
import collections
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import actq.torch as at
from actq.torch.meter import _storage_key


class Recorder(at.SavedTensorMeter):
    """A SavedTensorMeter that also keeps one row per saved tensor."""

    def reset(self):
        super().reset()
        self.rows = []

    def add_plain(self, t):
        key, nbytes = _storage_key(t)
        new = key not in self._seen
        super().add_plain(t)
        if not at.meter.is_parameter(t):
            self.rows.append(("kept %s %s" % (str(t.dtype).replace("torch.", ""),
                                              "x".join(map(str, t.shape)) or "scalar"),
                              nbytes if new else 0))

    def add_compressed(self, q, original):
        super().add_compressed(q, original)
        self.rows.append(("quantized: codes", q.packed.numel()))
        self.rows.append(("quantized: metadata (min, scale)",
                          2 * q.group_min.numel() * q.group_min.element_size()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bits", type=int, default=2)
    ap.add_argument("--meta-dtype", default="f32")
    ap.add_argument("--group-size", type=int, default=256)
    a = ap.parse_args()
    sys.argv = sys.argv[:1]
    import train_chargpt as T  # bindings/python/examples on PYTHONPATH
    torch.manual_seed(0)
    vocab, block, d, heads, layers, batch = 96, 64, 64, 4, 2, 16
    idx = torch.randint(0, vocab, (batch, block))
    y = torch.randint(0, vocab, (batch, block))

    def step(model, meter, quantizer):
        model.train()
        if quantizer is None:
            with meter.counting():
                logits = model(idx)
        else:
            with at.compressed_saved_tensors(quantizer=quantizer, meter=meter):
                logits = model(idx)
        with meter.counting():  # the loss head outside, as train_chargpt.py
            return F.cross_entropy(logits.reshape(-1, vocab), y.reshape(-1))

    base = Recorder()
    step(T.CharGPT(vocab, block, d, heads, layers, nn.GELU), base, None)
    elements = base.plain_bytes / 4
    rec = Recorder()
    q = at.Quantizer(a.bits, a.group_size, meta_dtype=a.meta_dtype, seed=1)
    step(T.CharGPT(vocab, block, d, heads, layers, lambda: at.nn.GELU(bits=a.bits)), rec, q)
    parts = collections.Counter()
    for name, nbytes in rec.rows:
        parts[name] += nbytes
    total = sum(parts.values())
    print("fp32 training holds %d bytes (%d elements); %d-bit setting, groups of %d, %s "
          "metadata: %.2f bits an element all-in" % (base.plain_bytes, elements, a.bits,
                                                     a.group_size, a.meta_dtype,
                                                     total * 8 / elements))
    print("| what | bytes | bits an element |")
    print("|---|---:|---:|")
    for name, nbytes in parts.most_common():
        print("| %s | %d | %.3f |" % (name, nbytes, nbytes * 8 / elements))


if __name__ == "__main__":
    main()
