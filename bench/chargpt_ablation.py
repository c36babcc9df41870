#!/usr/bin/env python3
"""chargpt_ablation.py - issue 27's ablation rows on the character GPT: train_chargpt.py's
loop and model with extra 2-bit settings, each one change from the plain 2-bit setting:
  "2-bit rows1"          groups across rows: each saved tensor quantized as one row, so a
                         [batch x positions, 64] input gets groups of 256, not 64
                         (Quantizer.compress(x, rows=1); fine for one uniform width)
  "2-bit bf16meta"       group minimum and scale stored as bf16 (meta_dtype="bf16")
  "2-bit rows1 bf16meta" both
Results go to --out/chargpt.json as train_chargpt.py writes them; pair them by seed with
an fp32 run of the same invocation (--settings fp32,2-bit,...).

  cd bindings/python/examples && ACTQ_LIBRARY=../../../build-test/libactq.so.0 \\
    PYTHONPATH=..:. python ../../../bench/chargpt_ablation.py \\
    --settings "fp32,2-bit,2-bit rows1,2-bit bf16meta" --seeds 3 --out OUT
"""
import common
import actq.torch as at


class AcrossRows(at.Quantizer):
    """A Quantizer whose saved tensors are quantized as one row each."""

    def compress(self, x, rows=None):
        return super().compress(x, rows=1)


VARIANTS = {
    "2-bit rows1": lambda seed: AcrossRows(2, seed=seed),
    "2-bit bf16meta": lambda seed: at.Quantizer(2, seed=seed, meta_dtype="bf16"),
    "2-bit rows1 bf16meta": lambda seed: AcrossRows(2, seed=seed, meta_dtype="bf16"),
}
for _name in VARIANTS:
    common.SETTINGS[_name] = {"bits": 2}
_plain = common.quantizer_for


def quantizer_for(setting, seed, model=None, refresh_every=100, probes=2):
    if setting in VARIANTS:
        return VARIANTS[setting](seed)
    return _plain(setting, seed, model, refresh_every, probes)


common.quantizer_for = quantizer_for

if __name__ == "__main__":
    import train_chargpt
    train_chargpt.main()
