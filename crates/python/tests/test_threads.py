"""Training holds no GIL, and Ctrl-C stops a fit: it raises KeyboardInterrupt and leaves
no folder behind."""

import glob
import os
import signal
import tempfile
import threading
import time

import pandas as pd
import pytest

from conftest import DATA
from iron_learn import TableRegressor


@pytest.fixture(scope="module")
def regression():
    frame = pd.read_csv(DATA / "regression.csv")
    return frame.drop(columns="y"), frame["y"]


def long_fit(epochs):
    return TableRegressor(device="cpu", model="mlp", epochs=epochs, n_jobs=1)


def test_python_runs_while_a_fit_trains(regression):
    X, y = regression
    counted, done = [0], threading.Event()

    def count():
        while not done.is_set():
            counted[0] += 1

    counter = threading.Thread(target=count)
    counter.start()
    before = counted[0]
    long_fit(300).fit(X, y)
    during = counted[0] - before
    done.set()
    counter.join()
    # With the GIL held through the fit, the counting thread could not run at all.
    assert during > 100_000, during


def test_two_fits_in_threads_overlap(regression):
    X, y = regression
    spans = {}

    def fit(name):
        start = time.monotonic()
        long_fit(300).fit(X, y)
        spans[name] = (start, time.monotonic())

    threads = [threading.Thread(target=fit, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (a0, a1), (b0, b1) = spans["a"], spans["b"]
    assert a0 < b1 and b0 < a1, spans


def leftovers():
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "iron-learn-*")))


def test_ctrl_c_stops_a_fit_and_leaves_nothing_behind(regression):
    X, y = regression
    before = leftovers()
    sent = []

    def interrupt():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    # Python's own Ctrl-C handler, also where the suite was started in the background
    # (which leaves SIGINT ignored).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    # 100,000 epochs of 500 rows: hours, unless stopped.
    timer = threading.Timer(1.0, interrupt)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            long_fit(100_000).fit(X, y)
    finally:
        signal.signal(signal.SIGINT, previous)
    stopped = time.monotonic()
    timer.join()
    print(f"stopped {stopped - sent[0]:.3f} s after the interrupt")
    assert leftovers() == before
