"""The Python examples of the README and of the guide's Python chapter run as written: each
file's ```python blocks in order, in one namespace, in a folder holding a copy of data/."""

import re
import shutil

import pytest

from conftest import DATA, ROOT

DOCS = ["README.md", "docs/guide/src/python.md"]


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


@pytest.mark.parametrize("doc", DOCS)
def test_the_examples_run(doc, tmp_path, monkeypatch, capsys):
    blocks = python_blocks(ROOT / doc)
    assert blocks, f"{doc} has no python example"
    shutil.copytree(DATA, tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__main__"}
    for block in blocks:
        exec(compile(block, doc, "exec"), namespace)
    printed = capsys.readouterr().out
    assert printed.strip(), f"the examples of {doc} print nothing"
