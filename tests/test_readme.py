"""The README's quick start stays true: its Python example runs, and .ci/run runs the README's test command."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_readme_python_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    assert blocks, "README has no python example"
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)  # noqa: S102 - our own documentation
    assert namespace["Pi"].shape == (1000, 5)
    assert namespace["clf"].score(namespace["Xb"], namespace["yb"]) > 0.5


def test_ci_runs_the_readme_test_command():
    commands = re.findall(r"```bash\n(?:#.*\n)*(.*?)\n```", README)
    assert len(commands) == 2, f"README must show exactly two set-up commands, found {commands}"
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1].strip() in ci, "the README's test command is not what .ci/run runs"
    assert "python -m spec report" in commands[0]
