"""What the estimators and the image fit share: seeds, threads, devices, run folders."""

import numbers
import os
import sys
import tempfile

import numpy as np

from . import _native

DEVICES = ("auto", "cpu", "cuda")


def seed_of(random_state):
    """The 64-bit seed of ``random_state``: the command line's default seed for ``None``, an
    integer as the command line's ``--seed`` reads it (negative ones wrap), or a number drawn
    from a ``numpy.random.RandomState``."""
    if random_state is None:
        return _native.DEFAULT_SEED
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return int(random_state) % 2**64
    raise ValueError(f"random_state must be None, an integer or a RandomState, not {random_state!r}")


def threads_of(n_jobs):
    """Threads for the native work: ``None`` for every core (``n_jobs`` None or -1), else
    ``n_jobs``."""
    if n_jobs is None or n_jobs == -1:
        return None
    if isinstance(n_jobs, numbers.Integral) and not isinstance(n_jobs, bool) and n_jobs >= 1:
        return int(n_jobs)
    raise ValueError(f"n_jobs must be None, -1 or a positive number of threads, not {n_jobs!r}")


def device_of(device):
    """``device`` checked: ``auto``, ``cpu`` or ``cuda``."""
    if device not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(map(repr, DEVICES))}, not {device!r}")
    return device


def run_folder():
    """A temporary folder for one run, removed with everything in it when left."""
    return tempfile.TemporaryDirectory(prefix="iron-learn-")


def run_dir(folder):
    """The run folder inside the temporary folder ``folder``."""
    path = os.path.join(folder, "run")
    os.mkdir(path)
    return path


def report_lines(lines):
    """A job's report without the words that name its (temporary) run folder."""
    return [line.split("; results in ")[0] for line in lines]


def print_report(lines):
    """Prints a job's report."""
    for line in lines:
        print(line, file=sys.stdout)
