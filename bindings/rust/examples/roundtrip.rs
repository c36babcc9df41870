//! Saves a batch of activations in 2 bits per value and reads it back, then runs a few-bit
//! GELU backward: `cargo run --example roundtrip`.
use actq::{Activation, Backend, Context, Layout, Rounding, Table};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (rows, cols) = (16, 1024);
    // GELU outputs of a spread of inputs, the tensor a transformer MLP saves
    let x: Vec<f32> = (0..rows * cols)
        .map(|i| {
            let v = ((i * 7919) % 6000) as f32 / 1000.0 - 3.0;
            v * 0.5 * (1.0 + (v * 0.7978846 * (1.0 + 0.044715 * v * v)).tanh())
        })
        .collect();

    let ctx = Context::new(Backend::Cpu)?;
    println!("actq {} (format {}), context: {}", actq::version(), actq::FORMAT_VERSION, ctx.describe());

    // Forward: groups of 256 values within each row, 2 bits each, f32 metadata.
    let layout = Layout::new(rows, cols, 256, 2);
    let sizes = layout.sizes()?;
    let mut packed = vec![0u8; sizes.packed_bytes];
    let (mut min, mut scale) = (vec![0f32; sizes.groups], vec![0f32; sizes.groups]);
    ctx.quantize(&layout, &x, Rounding::Stochastic, 42, 0, &mut packed, &mut min, &mut scale)?;

    // Backward: an unbiased reconstruction.
    let mut y = vec![0f32; x.len()];
    ctx.dequantize(&layout, &packed, &min, &scale, &mut y)?;
    let err: f32 = y.iter().zip(&x).map(|(a, b)| (a - b) * (a - b)).sum::<f32>().sqrt();
    let norm: f32 = x.iter().map(|v| v * v).sum::<f32>().sqrt();
    println!(
        "saved {} bytes for {} values ({:.2} bits each with metadata), relative error {:.3}",
        sizes.packed_bytes + 8 * sizes.groups,
        x.len(),
        (sizes.packed_bytes + 8 * sizes.groups) as f64 * 8.0 / x.len() as f64,
        err / norm
    );

    // Few-bit GELU: 2-bit codes forward, grad_out * level backward.
    let table = Table::build(Activation::Gelu, 0.0, 2, None)?;
    let mut codes = vec![0u8; (x.len() * 2 + 7) / 8];
    ctx.fewbit_encode::<f32>(&table, &x, None, &mut codes)?;
    let grad_out = vec![1f32; x.len()];
    let mut grad_in = vec![0f32; x.len()];
    ctx.fewbit_backward(&table, &codes, &grad_out, &mut grad_in)?;
    println!("GELU 2-bit derivative levels {:?}, error {:.2e}", table.levels(), table.error());
    Ok(())
}
