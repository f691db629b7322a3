"""What the package's tests share: the command line binary they compare with, and the
repository's data files."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
DATA = ROOT / "data"


def _binary():
    """The `iron-learn` binary: $IRON_LEARN_BIN, else the workspace's release or test build."""
    given = os.environ.get("IRON_LEARN_BIN")
    if given:
        return pathlib.Path(given)
    for profile in ("release", "ci"):
        path = ROOT / "target" / profile / "iron-learn"
        if path.exists():
            return path
    return None


@pytest.fixture(scope="session")
def cli():
    """Runs the command line with the given arguments; fails the test where there is no
    binary (build it with `cargo build --release -p iron-learn`, or set IRON_LEARN_BIN)."""
    binary = _binary()
    if binary is None or not binary.exists():
        pytest.fail("no iron-learn binary: build one or set IRON_LEARN_BIN")

    def run(*args):
        done = subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True)
        assert done.returncode == 0, f"iron-learn {' '.join(map(str, args))}:\n{done.stderr}"
        return done.stdout

    return run
