//! One context per thread, and contexts moved between threads (Context is Send): every
//! thread gets the bytes a single thread gets.
use actq::{Backend, Context, Layout, Rounding};

fn quantize(ctx: &Context, seed: u64) -> Vec<u8> {
    let x: Vec<f32> = (0..8192).map(|i| ((i * 7919) % 1000) as f32 / 100.0 - 5.0).collect();
    let layout = Layout::new(8, 1024, 128, 3);
    let sizes = layout.sizes().unwrap();
    let mut packed = vec![0u8; sizes.packed_bytes];
    let (mut min, mut scale) = (vec![0f32; sizes.groups], vec![0f32; sizes.groups]);
    ctx.quantize(&layout, &x, Rounding::Stochastic, seed, 0, &mut packed, &mut min, &mut scale).unwrap();
    packed
}

#[test]
fn one_context_per_thread() {
    let reference = quantize(&Context::new(Backend::CpuReference).unwrap(), 5);
    let threads: Vec<_> = (0..4)
        .map(|i| {
            // created here, moved into the thread
            let mut ctx = Context::new(Backend::Cpu).unwrap();
            ctx.set_threads(1 + i % 2).unwrap();
            std::thread::spawn(move || (0..10).map(|_| quantize(&ctx, 5)).collect::<Vec<_>>())
        })
        .collect();
    for t in threads {
        for bytes in t.join().unwrap() {
            assert_eq!(bytes, reference);
        }
    }
}
