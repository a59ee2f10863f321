"""The `python` blocks of docs/python.md run as they are, in order, in an empty folder."""

import re
from pathlib import Path

DOC = Path(__file__).parents[2] / "docs" / "python.md"


def test_the_python_guide_runs(tmp_path, monkeypatch):
    blocks = re.findall(r"^```python\n(.*?)^```", DOC.read_text(), flags=re.S | re.M)
    assert len(blocks) >= 6
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for i, block in enumerate(blocks):
        exec(compile(block, f"{DOC.name}, python block {i}", "exec"), namespace)
    assert (tmp_path / "gantt.svg").exists() and (tmp_path / "set.toml").exists()
