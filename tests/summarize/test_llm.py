"""The transport on its own: pacing and backoff as configured, Retry-After, SDK retries off, modes, re-ask, parsing."""

from __future__ import annotations

import asyncio
import json

import pytest

import summarizer.summarize.llm as llm
from conftest import Project
from logical_clock import LogicalClock
from summarizer.core.config import Settings
from summarizer.core.errors import (
    AuthenticationFailed,
    LLMError,
    MissingAPIKeyError,
    OutputInvalidError,
    TextRejected,
)
from summarizer.core.pacing import RateLimiter
from summarizer.core.retry import RetryPolicy
from summarizer.summarize.answer import answer_spec, parse_answer, response_schema
from summarizer.summarize.llm import AnswerSpec, LLMClient, usage_of
from summarizer.summarize.prompts import Prompts
from summarizer.testing.fake_openai import FakeOpenAI, Fault, default_answer

KEY = "sk-fake-transport-0042"
MESSAGES = [{"role": "system", "content": "只输出 JSON"}, {"role": "user", "content": "标题：T\n写 JSON"}]


pytestmark = [pytest.mark.usefixtures("provider_key"), pytest.mark.provider_key(key=KEY)]


def settings_for(project: Project, server: FakeOpenAI, **values: object) -> Settings:
    llm_values = {"base_url": server.base_url, "max_attempts": 3, "timeout_s": 5, "backoff_s": 0.005}
    llm_values.update(values)
    project.write_config(llm=llm_values)
    return project.settings()


def spec(settings: Settings, validate=lambda raw: raw) -> AnswerSpec:  # type: ignore[no-untyped-def]
    """The summarize stage's schema and re-ask wording, with ``validate`` (default: accept anything)."""
    real = answer_spec(settings, Prompts.load(settings))
    return AnswerSpec(real.name, real.schema, real.schema_note, validate=validate, reask=real.reask)


def ask(settings: Settings, validate=lambda raw: raw) -> llm.Validated:  # type: ignore[no-untyped-def]
    async def go() -> llm.Validated:
        async with LLMClient(settings.llm) as client:
            return await client.complete_validated(MESSAGES, spec(settings, validate), paper_id="p1")

    return asyncio.run(go())


# -- pacing and backoff: the run's limiter and retry policy, from the settings ----------------------------


class GrantLog(RateLimiter):
    """A limiter on a logical clock that notes when it lets each request through."""

    def __init__(self, rpm: int, tpm: int, clock: LogicalClock) -> None:
        super().__init__(rpm, tpm, clock=clock, sleep=clock.asleep)
        self.clock = clock
        self.granted: list[float] = []

    async def acquire(self, estimated_tokens: int) -> None:
        await super().acquire(estimated_tokens)
        self.granted.append(self.clock.now)


def test_the_client_paces_and_backs_off_as_configured(project: Project, server: FakeOpenAI) -> None:
    settings = settings_for(project, server, requests_per_minute=7, tokens_per_minute=9000, backoff_s=0.25)
    client = LLMClient(settings.llm)
    assert client.limiter.requests.capacity == 7 and client.limiter.requests.rate == pytest.approx(7 / 60)
    assert client.limiter.tokens.capacity == 9000 and client.limiter.tokens.rate == pytest.approx(9000 / 60)
    assert client.retry == RetryPolicy(attempts=3, base_s=0.25, max_s=60.0)
    asyncio.run(client.close())


def test_requests_per_minute_are_respected(project: Project, server: FakeOpenAI) -> None:
    """A minute of pacing on a logical clock: the requests really go out, the waits are only counted."""
    rpm, n = 5, 20
    settings = settings_for(project, server, requests_per_minute=rpm, max_concurrency=8)
    limiter = GrantLog(rpm, settings.llm.tokens_per_minute, LogicalClock())

    async def go() -> None:
        async with LLMClient(settings.llm, limiter=limiter) as client:
            await asyncio.gather(*(client.complete_validated(MESSAGES, spec(settings)) for _ in range(n)))

    asyncio.run(go())
    assert server.statuses() == [200] * n
    granted, rate = sorted(limiter.granted), rpm / 60.0
    assert len(granted) == n
    for i, t in enumerate(granted):  # token-bucket conformance: burst + refill, never more
        assert i + 1 <= rpm + t * rate + 1e-9
    assert granted[-1] >= (n - rpm) / rate  # a burst of one minute's allowance, then paced at the refill rate


def test_retry_after_ms_is_honoured(project: Project, server: FakeOpenAI) -> None:
    settings = settings_for(project, server)
    server.script(Fault.rate_limit(retry_after=None, retry_after_ms=80))
    result = ask(settings)
    first, second = server.requests
    assert first.status == 429 and second.status == 200
    assert second.started - first.finished >= 0.075
    assert result.attempts == 2


# -- retries: ours only, never the SDK's ------------------------------------------------------


def test_sdk_retries_are_off(project: Project, server: FakeOpenAI) -> None:
    settings = settings_for(project, server, max_attempts=1)
    server.script(Fault.server_error())
    with pytest.raises(LLMError) as info:
        ask(settings)
    assert server.calls == 1  # the SDK did not retry on its own
    assert "HTTP 500" in info.value.reason and "gave up after 1 attempts" in info.value.reason


def test_transport_retries_and_reasks_share_max_attempts(project: Project, server: FakeOpenAI) -> None:
    settings = settings_for(project, server, max_attempts=3)
    server.script(Fault.server_error(), Fault.rate_limit(retry_after=0.001), Fault.server_error(), None)
    with pytest.raises(LLMError):
        ask(settings)
    assert server.calls == 3


def test_401_raises_authentication_failed_without_the_key(project: Project, server: FakeOpenAI) -> None:
    settings = settings_for(project, server)
    server.script(Fault.unauthorized())
    with pytest.raises(AuthenticationFailed) as info:
        ask(settings)
    assert server.calls == 1
    assert "OPENAI_API_KEY" in str(info.value) and KEY not in str(info.value)
    assert info.value.exit_code == 2


def test_missing_key_names_the_variable(project: Project, server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = settings_for(project, server)
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(MissingAPIKeyError, match="OPENAI_API_KEY"):
        ask(settings)
    assert server.calls == 0


def test_provider_messages_are_scrubbed_of_the_key(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    # A provider that echoes the key in a 400 body: the reason shown to the editor must not carry it.
    def echo(body: dict) -> str:  # type: ignore[type-arg]
        return ""

    with FakeOpenAI(answer=echo) as server:
        settings = settings_for(project, server, max_attempts=1)
        server.fault_for = lambda request: Fault.unauthorized() if request.index > 0 else Fault.bad_request()
        with pytest.raises(LLMError) as info:
            ask(settings)
    assert KEY not in str(info.value)


# -- structured output modes ----------------------------------------------------------------------


def test_json_schema_request_is_strict(project: Project, server: FakeOpenAI) -> None:
    settings = settings_for(project, server)
    ask(settings)
    fmt = server.requests[0].body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    assert set(schema["properties"]) == {"summary", "tags", "field"}
    assert schema["required"] == ["summary", "tags", "field"] and schema["additionalProperties"] is False
    assert schema["properties"]["field"]["enum"] == settings.field_ids()
    text = str(schema)
    for forbidden in ("default", "minLength", "maxLength"):
        assert forbidden not in text
    assert server.requests[0].body["max_tokens"] == settings.llm.max_output_tokens


def test_downgrade_is_remembered_for_the_run(project: Project) -> None:
    with FakeOpenAI(json_schema=False) as server:
        settings = settings_for(project, server)

        async def go() -> None:
            async with LLMClient(settings.llm) as client:
                for _ in range(3):
                    await client.complete_validated(MESSAGES, spec(settings, lambda raw: raw))

        asyncio.run(go())
    assert [r.response_format for r in server.requests] == ["json_schema", "json_object", "json_object", "json_object"]
    # json_object is not enforced by the provider: the schema goes into the system prompt instead.
    schema_text = json.dumps(response_schema(settings), ensure_ascii=False)
    systems = [r.body["messages"][0]["content"] for r in server.requests]
    assert schema_text not in systems[0] and all(schema_text in s for s in systems[1:])


def test_forced_json_schema_does_not_fall_back(project: Project) -> None:
    with FakeOpenAI(json_schema=False) as server:
        settings = settings_for(project, server, structured_output="json_schema")
        with pytest.raises(LLMError, match="HTTP 400"):
            ask(settings)
    assert server.calls == 1


def test_unrelated_400_is_not_a_refusal(project: Project, server: FakeOpenAI) -> None:
    settings = settings_for(project, server)
    server.script(Fault.bad_request())
    with pytest.raises(LLMError, match="maximum context length"):
        ask(settings)
    assert server.calls == 1


# -- re-ask ------------------------------------------------------------------------------------------


def test_reask_sends_previous_answer_and_problems(project: Project, server: FakeOpenAI) -> None:
    settings = settings_for(project, server)
    server.script(Fault.multi_paragraph(), None)
    result = ask(settings, lambda raw: parse_answer(raw, settings))
    assert result.attempts == 2 and result.usage.llm_calls == 2
    retry = server.requests[1].body["messages"]
    assert retry[:2] == MESSAGES
    assert retry[2]["role"] == "assistant" and "\n\n第二段" in json.loads(retry[2]["content"])["summary"]
    assert "line breaks" in retry[3]["content"]


def test_a_huge_answer_is_quoted_cut_in_the_reask(project: Project, server: FakeOpenAI) -> None:
    """A 2,000,000-character answer (a field value the problem quotes, too) is not pasted back whole."""
    settings = settings_for(project, server, tokens_per_minute=10**9)  # no pacing in the way of the bound
    huge = {"summary": "本文提出一种新方法。" * 3, "tags": ["LLM"], "field": "x" * 2_000_000}
    answers = iter([huge])
    server.answer = lambda body: next(answers, None) or default_answer(body)

    result = ask(settings, lambda raw: parse_answer(raw, settings))

    assert result.attempts == 2
    first, reask = server.requests
    assert len(first.content or "") > 2_000_000
    assert len(reask.raw_body) < 12_000  # the prompt stays small: not a million tokens
    quoted, problems = reask.body["messages"][2]["content"], reask.body["messages"][3]["content"]
    assert quoted.startswith((first.content or "")[:1000]) and "cut" in quoted
    assert "unknown field" in problems


def test_invalid_after_all_attempts_keeps_raw_output_and_usage(project: Project, server: FakeOpenAI) -> None:
    settings = settings_for(project, server)
    server.fail_first(Fault.empty(), n=5)
    with pytest.raises(OutputInvalidError) as info:
        ask(settings, lambda raw: parse_answer(raw, settings))
    assert info.value.attempt == 3 and info.value.raw_output == ""
    assert "empty" in info.value.reason
    assert usage_of(info.value).llm_calls == 3


def test_concurrency_is_capped(project: Project) -> None:
    with FakeOpenAI(latency=0.05) as server:
        server.hold_first_wave(3)  # the first three meet at the provider, however slow the machine
        settings = settings_for(project, server, max_concurrency=3)

        async def go() -> None:
            async with LLMClient(settings.llm) as client:
                await asyncio.gather(
                    *(client.complete_validated(MESSAGES, spec(settings, lambda r: r)) for _ in range(9))
                )

        asyncio.run(go())
    assert server.calls == 9 and server.peak_in_flight == 3


# -- parsing answers ----------------------------------------------------------------------------------


SUMMARY = (
    "本文提出一种稀疏注意力方法，把 attention 拆成局部与全局两部分并共享 KV cache，"
    "在 LLaMA-7B 上把推理延迟降低 2.1 倍，准确率基本不变。"
)


def answer(**values: object) -> str:
    data: dict[str, object] = {"summary": SUMMARY, "tags": ["LLM"], "field": "llm_reasoning"}
    data.update(values)
    return json.dumps({k: v for k, v in data.items() if v is not None}, ensure_ascii=False)


def test_parse_answer_accepts_fenced_json_and_normalises_tags(project: Project) -> None:
    raw = "```json\n" + answer(tags=["大语言模型", "LLMs", " 推理 "]) + "\n```"
    checked = parse_answer(raw, project.settings())
    assert checked.tags == ["LLM", "推理"] and checked.field == "llm_reasoning"


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (answer(extra=1), "unexpected key"),
        (answer(tags=[]), "1 to 5"),
        (answer(field="biology"), "unknown field 'biology'"),
        (answer(field=None), "'field' is missing"),
        (answer(summary="短"), "too short"),
        (answer(summary="An English-only summary that is long enough to pass the length limit."), "no Chinese"),
        ('["not", "an", "object"]', "JSON object"),
        ('{"summary": "本文', "not valid JSON"),
        ("", "empty"),
    ],
)
def test_parse_answer_rejects(project: Project, raw: str, problem: str) -> None:
    with pytest.raises(TextRejected) as info:
        parse_answer(raw, project.settings())
    assert problem in str(info.value)


def test_a_model_that_refuses_max_tokens_and_temperature_is_asked_its_way(project: Project) -> None:
    """OpenAI's reasoning models take max_completion_tokens and only the default temperature."""
    with FakeOpenAI(unsupported=frozenset({"max_tokens", "temperature"})) as server:
        settings = settings_for(project, server)

        async def go() -> None:
            async with LLMClient(settings.llm) as client:
                for _ in range(2):
                    await client.complete_validated(MESSAGES, spec(settings, lambda raw: raw))

        asyncio.run(go())
    assert [r.fault for r in server.requests] == ["unsupported_max_tokens", "unsupported_temperature", None, None]
    last = server.requests[-1].body
    assert "max_tokens" not in last and "temperature" not in last
    assert last["max_completion_tokens"] == settings.llm.max_output_tokens


# -- the caller's side of the loop: schema name, validator, re-ask wording -------------------------------


def test_the_caller_names_the_schema_validates_and_words_the_reask(project: Project, server: FakeOpenAI) -> None:
    settings = settings_for(project, server)
    seen: list[str] = []

    def validate(raw: str) -> int:
        seen.append(raw)
        if len(seen) == 1:
            raise TextRejected(["too dull", "too long"])
        return len(seen)

    def reask(raw: str, problems: list[str]) -> list[dict[str, str]]:
        return [{"role": "user", "content": f"REASK {len(raw) > 0} {' | '.join(problems)}"}]

    caller = AnswerSpec("my_answer", response_schema(settings), "the schema, said", validate=validate, reask=reask)

    async def go() -> llm.Validated[int]:
        async with LLMClient(settings.llm) as client:
            return await client.complete_validated(MESSAGES, caller)

    result = asyncio.run(go())
    assert result.value == 2 and result.attempts == 2
    assert server.requests[0].body["response_format"]["json_schema"]["name"] == "my_answer"
    assert server.requests[1].body["messages"] == [
        *MESSAGES,
        {"role": "user", "content": "REASK True too dull | too long"},
    ]


def test_the_shipped_reask_template_words_the_problems(project: Project) -> None:
    settings = project.settings()
    messages = answer_spec(settings, Prompts.load(settings)).reask('{"summary": ""}', ["problem one", "problem two"])
    assert messages[0] == {"role": "assistant", "content": '{"summary": ""}'}
    assert messages[1]["role"] == "user" and "- problem one\n- problem two\n" in messages[1]["content"]


def test_the_prompt_hash_covers_the_reask_template(project: Project) -> None:
    import shutil

    from summarizer.core.config import shipped_prompts_dir

    folder = project.root / "my_prompts"
    shutil.copytree(shipped_prompts_dir(), folder)
    before = Prompts(folder).hash
    reask = folder / "reask.md.j2"
    reask.write_text(reask.read_text("utf-8") + "请认真修改。\n", "utf-8")
    assert Prompts(folder).hash != before
    reask.unlink()  # a prompts folder from before the re-ask template: the shipped one is used
    assert Prompts(folder).hash == before


# -- one hierarchy: a paper's failure or the run's ----------------------------------------------------------


def test_errors_are_either_one_papers_or_the_runs() -> None:
    from summarizer.core import errors

    per_paper = [errors.FetchError, errors.NoInput, errors.LLMError, errors.OutputInvalidError]
    run_stopping = [
        errors.AuthenticationFailed,
        errors.UsageError,
        errors.LockedError,
        errors.ConfigError,
        errors.MissingAPIKeyError,
        errors.RecordError,
        errors.FileSystemError,
        errors.ImportFileError,
    ]
    assert all(issubclass(e, errors.PaperError) and not issubclass(e, errors.RunError) for e in per_paper)
    assert all(issubclass(e, errors.RunError) and not issubclass(e, errors.PaperError) for e in run_stopping)
    assert AuthenticationFailed.exit_code == 2 and errors.FileSystemError.exit_code == 1
