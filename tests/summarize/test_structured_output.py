"""`structured_output: auto` against each server's way with `response_format` (the stand-in's dialects).

Each documented server gets a test: the mode the run settles on, that a refusal never spends one of the
paper's attempts, and the one-line reason a person reads when nothing is left to try.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from types import SimpleNamespace

import pytest

from conftest import Project
from summarizer.core.config import Settings
from summarizer.core.errors import LLMError, OutputInvalidError
from summarizer.summarize.answer import answer_spec, json_object, parse_answer, response_schema
from summarizer.summarize.chat_request import AnswerSpec, chat_request
from summarizer.summarize.llm import LLMClient, Validated
from summarizer.summarize.prompts import Prompts
from summarizer.summarize.structured import person_reason, provider_text
from summarizer.summarize.task import SummaryTask
from summarizer.testing.fake_dialects import DIALECTS
from summarizer.testing.fake_openai import FakeOpenAI, Fault

MESSAGES = [{"role": "system", "content": "只输出 JSON"}, {"role": "user", "content": "标题：T\n写 JSON"}]

pytestmark = [pytest.mark.usefixtures("provider_key")]


def settings_for(project: Project, server: FakeOpenAI, **values: object) -> Settings:
    # One attempt per paper: any call a refusal cost would make the paper fail.
    llm_values = {"base_url": server.base_url, "max_attempts": 1, "timeout_s": 5, "backoff_s": 0.005}
    llm_values.update(values)
    project.write_config(llm=llm_values)
    return project.settings()


def ask_papers(settings: Settings, n: int = 1) -> list[Validated[object]]:
    """``n`` papers asked one after another through one client (one run); any JSON object is an answer."""
    real = answer_spec(settings, Prompts.load(settings))
    spec = AnswerSpec(real.name, real.schema, real.schema_note, lambda raw: json_object(raw, "any"), real.reask)

    async def go() -> list[Validated[object]]:
        async with LLMClient(settings.llm) as client:
            return [await client.complete_validated(MESSAGES, spec, paper_id=f"p{i}") for i in range(n)]

    return asyncio.run(go())


def formats(server: FakeOpenAI) -> list[tuple[str | None, bool, int]]:
    """Each request's response_format type, whether it carried the schema beside json_object, its status."""
    out = []
    for r in server.requests:
        fmt = r.body.get("response_format") or {}
        out.append((fmt.get("type"), "schema" in fmt, r.status))
    return out


SCHEMA_FIRST = [("json_schema", False, 200)] * 3
SCHEMA_REFUSED = [("json_schema", False, 400), *[("json_object", True, 200)] * 3]
SCHEMA_REFUSED_500 = [("json_schema", False, 500), *[("json_object", True, 200)] * 3]

EXPECTED = {
    "openai": SCHEMA_FIRST,
    "vllm": SCHEMA_FIRST,
    "ollama": SCHEMA_FIRST,
    "llama-server": SCHEMA_FIRST,
    "deepseek": SCHEMA_REFUSED,
    "dashscope": SCHEMA_REFUSED,
    "llama-cpp-python": SCHEMA_REFUSED_500,
    "llama-server-old": SCHEMA_REFUSED_500,
    "ollama-old": [("json_schema", False, 200), *[("json_object", True, 200)] * 3],
    "strict-keys": [("json_object", True, 400), *[("json_object", False, 200)] * 3],
}


@pytest.mark.parametrize("dialect", sorted(EXPECTED))
def test_auto_settles_on_the_mode_each_server_takes(project: Project, dialect: str) -> None:
    """Three papers, one attempt each: the refusals (or the ignored schema) cost none of them."""
    forced = {"structured_output": "json_object"} if dialect == "strict-keys" else {}
    with FakeOpenAI(dialect=dialect) as server:
        results = ask_papers(settings_for(project, server, **forced), n=3)
    assert formats(server) == EXPECTED[dialect]
    want = "json_schema" if EXPECTED[dialect] == SCHEMA_FIRST else "json_object"
    assert [r.mode for r in results] == [want] * 3
    if want == "json_object":  # the schema is in the prompt whenever the server may not enforce it
        schema_text = json.dumps(response_schema(project.settings()), ensure_ascii=False)
        assert schema_text in server.requests[-1].body["messages"][0]["content"]


def test_every_dialect_is_tested() -> None:
    assert set(EXPECTED) | {"no-format"} == set(DIALECTS)


def test_the_500_refusal_is_not_retried_as_a_server_fault(project: Project) -> None:
    """llama-cpp-python's 500 names response_format: asked again at once in json_object, no backoff, no 4 tries."""
    with FakeOpenAI(dialect="llama-cpp-python") as server:
        settings = settings_for(project, server, max_attempts=4, backoff_s=30)  # a backoff would hang the test
        [result] = ask_papers(settings)
    assert [r.status for r in server.requests] == [500, 200] and result.mode == "json_object"


def test_a_bare_500_is_still_a_server_fault(project: Project, server: FakeOpenAI) -> None:
    settings = settings_for(project, server, max_attempts=2)
    server.script(Fault.server_error(), None)
    [result] = ask_papers(settings)
    assert result.mode == "json_schema" and [r.status for r in server.requests] == [500, 200]


def test_a_server_that_refuses_every_format_fails_the_paper_in_one_line(project: Project) -> None:
    with FakeOpenAI(dialect="no-format") as server:
        settings = settings_for(project, server, max_attempts=4)
        with pytest.raises(LLMError) as info:
            ask_papers(settings)
    reason = info.value.reason
    assert reason.startswith("the server refused json_schema and json_object (HTTP 400: ")
    assert "set llm.structured_output" in reason and "\n" not in reason
    assert [f for f, _, _ in formats(server)] == ["json_schema", "json_object", "json_object"]


@pytest.mark.parametrize(
    ("dialect", "forced", "said"),
    [
        ("llama-cpp-python", "json_schema", "set llm.structured_output to auto"),
        ("deepseek", "json_schema", "set llm.structured_output to auto"),
        ("no-format", "json_object", "set llm.structured_output to auto"),
    ],
)
def test_a_forced_mode_the_server_refuses_says_which_setting(
    project: Project, dialect: str, forced: str, said: str
) -> None:
    with FakeOpenAI(dialect=dialect) as server, pytest.raises(LLMError) as info:
        ask_papers(settings_for(project, server, structured_output=forced, max_attempts=3))
    reason = info.value.reason
    assert said in reason and f"refused response_format {forced}" in reason
    assert "Traceback" not in reason and "File " not in reason and "\n" not in reason
    assert not any(r.body["response_format"]["type"] != forced for r in server.requests)


def test_the_server_text_is_cut_before_its_traceback(project: Project) -> None:
    with FakeOpenAI(dialect="llama-cpp-python") as server, pytest.raises(LLMError) as info:
        ask_papers(settings_for(project, server, structured_output="json_schema"))
    reason = info.value.reason
    assert "Input should be 'text' or 'json_object'" in reason
    assert "Traceback" not in reason and "app.py" not in reason and "errors.pydantic.dev" not in reason


def test_provider_text_is_bounded_and_clean() -> None:
    said = "bad\tthing\x00 " + "y" * 5000 + "\nTraceback (most recent call last):\n  File 'z'"
    refusal = SimpleNamespace(message="boom\x1b[31m", body={"error": {"message": said}})
    text = provider_text(refusal)  # type: ignore[arg-type]
    assert len(text) <= 300 and "\x00" not in text and "Traceback" not in text


# -- the reason a person reads when the answer itself is wrong --------------------------------------------


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        (Fault.english, "the model's answer: the summary has no Chinese (after 2 attempts)"),
        (Fault.unknown_field, "the model's answer: unknown field 'quantum_basket_weaving' (after 2 attempts)"),
        (Fault.empty, "the model's answer: the answer was empty (after 2 attempts)"),
    ],
)
def test_a_content_failure_reads_as_one_line_about_the_answer(
    project: Project, server: FakeOpenAI, fault: Callable[[], Fault], reason: str
) -> None:
    settings = settings_for(project, server, max_attempts=2)
    server.fail_first(fault(), n=2)
    spec = answer_spec(settings, Prompts.load(settings))

    async def go() -> None:
        async with LLMClient(settings.llm) as client:
            await client.complete_validated(MESSAGES, spec, paper_id="p0")

    with pytest.raises(OutputInvalidError) as info:
        asyncio.run(go())
    assert info.value.reason == reason


def test_person_reason_keeps_what_was_wrong_and_drops_the_instructions() -> None:
    problems = [
        "the summary has no Chinese: write it in Chinese, keeping technical terms in English",
        "the summary is too short (12 characters; at least 40)",
        f"unknown field {'z' * 500!r}: choose one of a, b",
        "the answer was cut off at 64 tokens (llm.max_output_tokens): answer shorter, with the JSON object complete",
    ]
    reason = person_reason(problems, 4)
    assert reason.startswith("the model's answer: the summary has no Chinese; the summary is too short (12 ")
    assert "write it" not in reason and "choose one" not in reason and "answer shorter" not in reason
    assert "cut off at 64 tokens (llm.max_output_tokens)" in reason and reason.endswith("(after 4 attempts)")
    assert len(reason) <= 500


def test_parse_answer_problems_read_for_a_person(project: Project) -> None:
    with pytest.raises(Exception) as info:
        parse_answer('{"summary": 3, "tags": ["LLM"], "field": "llm_reasoning"}', project.settings())
    assert "summary" in person_reason(info.value.problems, 1)  # type: ignore[attr-defined]


# -- the mode in the cache key, and the batch path ---------------------------------------------------------


def test_a_forced_mode_has_cache_keys_of_its_own(project: Project) -> None:
    keys = {}
    for mode in ("auto", "json_schema", "json_object"):
        project.write_config(llm={"structured_output": mode})
        keys[mode] = SummaryTask(project.settings()).cache_key(MESSAGES)
    assert len(set(keys.values())) == 3


def test_a_batch_line_in_json_object_mode_carries_the_type_alone(project: Project) -> None:
    """A batch cannot learn that a provider refuses response_format.schema: it never sends it."""
    project.write_config(llm={"structured_output": "json_object"})
    settings = project.settings()
    body = chat_request(settings.llm, MESSAGES, answer_spec(settings, Prompts.load(settings)))
    assert body["response_format"] == {"type": "json_object"}


def test_a_content_failure_counts_the_papers_attempts_not_the_refusal(project: Project) -> None:
    with FakeOpenAI(dialect="llama-cpp-python") as server:
        settings = settings_for(project, server, max_attempts=2)
        server.fail_first(Fault.english(), n=5)
        spec = answer_spec(settings, Prompts.load(settings))

        async def go() -> None:
            async with LLMClient(settings.llm) as client:
                await client.complete_validated(MESSAGES, spec, paper_id="p0")

        with pytest.raises(OutputInvalidError) as info:
            asyncio.run(go())
    assert [r.status for r in server.requests] == [500, 200, 200]
    reason = info.value.reason  # the stand-in's json_object answer to these messages has no field either
    assert reason.startswith("the model's answer: ") and reason.endswith(" (after 2 attempts)")
    assert info.value.attempt == 2
