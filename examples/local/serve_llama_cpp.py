"""llama-cpp-python's OpenAI-compatible server, with llama.cpp's "extra buffer types" turned off.

    .venv-local/bin/python examples/local/serve_llama_cpp.py --model MODEL.gguf --host 127.0.0.1 --port 8080 \
        --n_ctx 4096

Every option is ``python -m llama_cpp.server``'s.  On some virtual machines (CPUs that report AMX, as the
machines this project is tested on do) llama.cpp's AMX extra buffer types crash the process as the model
loads; with them off (``use_extra_bufts = False`` in the model parameters) it loads and answers as usual.
Run it with the Python of the venv that has ``llama-cpp-python[server]`` (``make local-model``).
"""

import runpy
import sys

import llama_cpp.llama_cpp as native

_default_params = native.llama_model_default_params


def _params_without_extra_bufts():  # type: ignore[no-untyped-def]
    params = _default_params()
    params.use_extra_bufts = False
    return params


# llama_cpp.Llama reads its defaults through this module attribute when it loads a model.
native.llama_model_default_params = _params_without_extra_bufts

if __name__ == "__main__":
    sys.argv[0] = "llama_cpp.server"
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
