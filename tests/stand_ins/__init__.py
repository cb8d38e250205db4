"""Loopback stand-ins only the tests use (OpenReview's API, a static web host), built on ``summarizer.testing``.

The package keeps the stand-ins the demo and the benchmarks run against; these stay with the tests.
"""
