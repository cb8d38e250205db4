"""Loopback stand-ins for the outside world (arXiv, an OpenAI-compatible provider).

Shipped in the package, like httpx's MockTransport, so the tests, the demo and
the benchmarks drive the real ``arxiv`` and ``openai`` clients against them.
They bind to 127.0.0.1 only.  Stand-ins only the tests use live with the tests
(``tests/stand_ins/``): the wheel ships those the demo and the benchmarks run against.
"""
