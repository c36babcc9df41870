/* quantize.cu - actq_quantize on the device: the call's arguments, then the launcher of
 * its input dtype (quantize_f32.cu, quantize_f16.cu, quantize_bf16.cu; the kernel is in
 * quantize_kernel.cuh). */
#include "src/arith/philox.h"
#include "cuda/group_team.cuh"
#include "cuda/launch.h"
#include "cuda/quantize_launch.h"
#include "cuda/state.h"

actq_status actq_cuda_quantize(actq_context *ctx, const actq_quant_job *job) {
  actq_cuda_state *st = actq_cuda(ctx);
  const actq_grid *gr = &job->grid;
  actq_cuda_unit::quant_args a;
  actq_status s;

  s = actq_cuda_grid_view(ctx, gr, &a.grid, &a.rows);
  if (s != ACTQ_OK) return s;
  a.x = job->x;
  a.meta_dtype = gr->meta_dtype;
  actq_noise_round_keys(job->seed, a.rk);
  a.offset = job->offset;
  actq_noise_round0_terms(a.rk, a.offset, a.r0);
  a.packed = job->packed;
  a.group_min = job->group_min;
  a.group_scale = job->group_scale;
  a.error = st->d_error;

  /* Vector loads need every unit 16-byte aligned: x aligned, whole units per row. */
  const bool fast = gr->cols % 8 == 0 && ((uintptr_t)job->x % 16) == 0;
  const bool stoch = job->rounding == ACTQ_ROUND_STOCHASTIC;
  const int team = actq_cuda_team::team_for_call(gr->group_size, a.grid.groups, st->sm_count);
  switch (job->x_dtype) {
    case ACTQ_F16: actq_cuda_quantize_f16(a, team, fast, stoch, st->sm_count, st->stream); break;
    case ACTQ_BF16: actq_cuda_quantize_bf16(a, team, fast, stoch, st->sm_count, st->stream); break;
    default: actq_cuda_quantize_f32(a, team, fast, stoch, st->sm_count, st->stream); break;
  }
  return actq_cuda_launch_status(ctx);
}
