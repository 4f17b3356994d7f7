"""Steady state within one run: MSER-5's warm-up cut and batch means' interval
(pagelab.evidence.steady), on synthetic series (numpy, seeded) built to the answer: a warm-up
ramp then a level, a rising series, a level one, and noise made correlated by a moving average.
The expected cuts and the ~95% coverage follow from how each series was built."""

from __future__ import annotations

import numpy as np

from pagelab.evidence.steady import batch_means, mser5


def test_mser5_cuts_a_warm_up_and_calls_what_follows_level():
    rng = np.random.default_rng(7)
    warming = np.linspace(200, 1000, 30) + rng.normal(0, 10, 30)
    level = 1000 + rng.normal(0, 10, 90)
    cut = mser5(np.concatenate([warming, level]))
    assert cut.level
    assert 20 <= cut.cut <= 40


def test_mser5_does_not_call_a_rising_series_level():
    rng = np.random.default_rng(8)
    assert not mser5(np.linspace(200, 1000, 60) + rng.normal(0, 10, 60)).level


def test_mser5_leaves_a_stationary_series_almost_whole():
    cut = mser5(1000 + np.random.default_rng(9).normal(0, 20, 100))
    assert cut.level
    assert cut.cut <= 25


def test_batch_means_cover_the_true_mean_about_95_times_in_100():
    rng = np.random.default_rng(10)
    covered = 0
    for _ in range(400):
        interval = batch_means(500 + rng.normal(0, 50, 200))
        covered += abs(interval.mean - 500) <= interval.half_width
        assert 0 < interval.half_width_pct < 10
    assert 0.90 <= covered / 400 <= 0.99


def test_batch_means_widen_for_correlated_intervals_and_need_enough_values():
    rng = np.random.default_rng(11)
    noise = rng.normal(0, 50, 200)
    correlated = 500 + np.convolve(noise, np.ones(10) / 10, mode="same") * 3  # neighbours move together
    assert batch_means(correlated).half_width > batch_means(500 + noise).half_width
    assert batch_means(noise[:9]) is None
