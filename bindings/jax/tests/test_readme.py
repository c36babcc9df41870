"""The README's JAX example runs as printed (with the installed packages under
scripts/test-jax): a user's first lines must not rot."""
import contextlib
import io
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
README = os.path.join(HERE, "..", "..", "..", "README.md")


def test_the_readme_example_runs_and_prints_the_gradient_shape():
    with open(README) as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    (snippet,) = [b for b in blocks if "import actq_jax" in b]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(snippet, "README.md", "exec"), {})
    assert out.getvalue().strip() == "(256, 128)"
