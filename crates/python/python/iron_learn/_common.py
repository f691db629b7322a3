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


def count_of(name, value):
    """``value`` of the parameter ``name`` checked: ``None``, or a whole number of at least
    1 (an ``int`` or a numpy integer; the native side checks the range further)."""
    if value is None:
        return None
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 1:
        return int(value)
    raise ValueError(f"{name} must be None or a whole number of at least 1, not {value!r}")


def threads_of(n_jobs):
    """Threads for the native work: ``None`` for every core (``n_jobs`` None or -1), else
    ``n_jobs``; below -1, as in scikit-learn, every core but ``-n_jobs - 1`` (at least one)."""
    if n_jobs is None or n_jobs == -1:
        return None
    if not isinstance(n_jobs, numbers.Integral) or isinstance(n_jobs, bool) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None, a positive number of threads, or negative (-1: every core, -2: all but one), not {n_jobs!r}")
    if n_jobs < -1:
        return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs))
    return int(n_jobs)


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
    """Prints a job's report on ``sys.stdout`` (its progress went to ``sys.stderr``)."""
    for line in lines:
        print(line, file=sys.stdout)
