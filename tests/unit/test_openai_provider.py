"""The OpenAI-compatible generator against a local fake server: answers, streams, errors."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import httpx
import pytest

from shared.errors import BibliotecaError, NotConfigured, Unavailable, UpstreamError
from shared.ports import StreamingGenerator
from shared.providers import upstream
from shared.providers.gemini_client import GeminiClient
from shared.providers.gemini_generator import GeminiGenerator
from shared.providers.model_http import ModelHttp
from shared.providers.openai_generator import OpenAIDialect, OpenAIGenerator
from shared.records import Generation
from tests.fixtures.gemini import FakeGemini
from tests.fixtures.openai import MODEL, FakeOpenAI, Reply

KEY = "sk-fake-openai-key-0123456789abcdef"


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client() as client:
        yield client


def generator(
    fake: FakeOpenAI, http: httpx.Client, *, key: str | None = KEY, deadline_s: float = 5.0
) -> tuple[OpenAIGenerator, list[float]]:
    waits: list[float] = []
    calls = ModelHttp(
        OpenAIDialect(key),
        fake.url,
        http,
        deadline_s=deadline_s,
        sleep=waits.append,
        jitter=lambda: 0.0,
    )
    return OpenAIGenerator(calls, "llama3.2"), waits


def drain(stream: object) -> tuple[list[str], Generation]:
    pieces: list[str] = []
    iterator = iter(stream)  # type: ignore[call-overload]
    while True:
        try:
            pieces.append(next(iterator))
        except StopIteration as stop:
            return pieces, stop.value


def test_an_answer_is_the_first_choice_sent_with_the_key_as_a_bearer(
    openai_server: FakeOpenAI, http: httpx.Client
) -> None:
    """System and user messages go to /chat/completions; the reply's text and model come back."""
    gen, _ = generator(openai_server, http)
    answer = gen.generate("be brief", "the prompt", max_tokens=64)
    assert (answer.text, answer.model, answer.finish) == (openai_server.answer, MODEL, "stop")
    assert answer.usage["total_tokens"] == 15
    seen = openai_server.requests[-1]
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["Authorization"] == f"Bearer {KEY}"
    assert seen.body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "the prompt"},
    ]
    assert (seen.body["model"], seen.body["max_tokens"]) == ("llama3.2", 64)


def test_without_a_key_no_authorization_header_is_sent(
    openai_server: FakeOpenAI, http: httpx.Client
) -> None:
    """A local server (Ollama, llama.cpp) needs no key: none is invented."""
    gen, _ = generator(openai_server, http, key=None)
    gen.generate("s", "p")
    assert "Authorization" not in openai_server.requests[-1].headers


def test_a_stream_hands_over_each_piece_and_returns_the_whole(
    openai_server: FakeOpenAI, http: httpx.Client
) -> None:
    """ "stream": true: the chunks' delta texts in order, joined into the Generation."""
    gen, _ = generator(openai_server, http)
    assert isinstance(gen, StreamingGenerator)
    pieces, whole = drain(gen.stream("s", "p"))
    assert pieces == openai_server.pieces()
    assert len(pieces) > 3
    assert whole.text == openai_server.answer == "".join(pieces)
    assert (whole.model, whole.finish) == (MODEL, "stop")
    assert openai_server.requests[-1].body["stream"] is True


@pytest.mark.parametrize(
    ("reason", "finish"), [("length", "max_tokens"), ("content_filter", "safety")]
)
def test_finish_reasons_are_reported_not_raised(
    openai_server: FakeOpenAI, http: httpx.Client, reason: str, finish: str
) -> None:
    """A cut-off or filtered answer is an answer with its finish, whole or streamed."""
    openai_server.finish = reason
    gen, _ = generator(openai_server, http)
    assert gen.generate("s", "p").finish == finish
    assert drain(gen.stream("s", "p"))[1].finish == finish


def test_429_waits_the_retry_after_header_then_succeeds(
    openai_server: FakeOpenAI, http: httpx.Client
) -> None:
    """Retry-After (seconds) is honoured when it fits the deadline."""
    openai_server.script(
        Reply(status=429, body={"error": {"message": "slow"}}, headers={"Retry-After": "2"})
    )
    gen, waits = generator(openai_server, http)
    assert gen.generate("s", "p").text == openai_server.answer
    assert waits == [2.0]


def test_429_whose_retry_after_passes_the_deadline_is_unavailable_at_once(
    openai_server: FakeOpenAI, http: httpx.Client
) -> None:
    """No wait that would pass the deadline: 503 upstream_unavailable now."""
    openai_server.script(Reply(status=429, body={}, headers={"Retry-After": "60"}))
    gen, waits = generator(openai_server, http, deadline_s=5.0)
    with pytest.raises(Unavailable) as caught:
        gen.generate("s", "p")
    assert (caught.value.status, caught.value.code, waits) == (503, "upstream_unavailable", [])


def test_5xx_is_retried_with_backoff_then_gives_up(
    openai_server: FakeOpenAI, http: httpx.Client
) -> None:
    """500/502/503/504 are retried (4 attempts), then 503 upstream_unavailable."""
    openai_server.script(*[Reply(status=502, body={"error": "bad gateway"})] * 4)
    gen, waits = generator(openai_server, http)
    with pytest.raises(Unavailable) as caught:
        gen.generate("s", "p")
    assert "bad gateway" in caught.value.full_message
    assert waits == [0.25, 0.5, 1.0]
    assert len(openai_server.requests) == 4


def test_a_refused_key_names_the_variable(openai_server: FakeOpenAI, http: httpx.Client) -> None:
    """401/403: 503 not_configured naming BIBLIOTECA_LLM_API_KEY, not retried."""
    openai_server.script(Reply(status=401, body={"error": {"message": "Incorrect API key"}}))
    gen, _ = generator(openai_server, http)
    with pytest.raises(NotConfigured) as caught:
        gen.generate("s", "p")
    assert "BIBLIOTECA_LLM_API_KEY" in caught.value.message
    assert len(openai_server.requests) == 1


def test_other_4xx_is_a_502_without_retry(openai_server: FakeOpenAI, http: httpx.Client) -> None:
    """A refused request (unknown model, say) is the server's answer: 502 upstream_error."""
    openai_server.script(Reply(status=404, body={"error": {"message": "model 'x' not found"}}))
    gen, _ = generator(openai_server, http)
    with pytest.raises(UpstreamError) as caught:
        gen.generate("s", "p")
    assert "model 'x' not found" in caught.value.quoted


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"[]",
        {"choices": []},
        {"choices": [{"message": {"content": 3}}]},
        {"choices": [{"message": {"content": " "}, "finish_reason": "stop"}]},
    ],
)
def test_malformed_replies_are_502(
    openai_server: FakeOpenAI, http: httpx.Client, body: object
) -> None:
    """Whatever the 200 holds, if it is not a completion with text it is upstream_error."""
    openai_server.script(Reply(body=body))
    gen, _ = generator(openai_server, http)
    with pytest.raises(UpstreamError):
        gen.generate("s", "p")


@pytest.mark.parametrize(
    "events",
    [["not json", "[DONE]"], [{"error": {"message": "oom"}}], [{"choices": ["x"]}], []],
)
def test_a_broken_stream_is_a_502(
    openai_server: FakeOpenAI, http: httpx.Client, events: list[object]
) -> None:
    """An event that is not JSON, an error event, a malformed choice, or no answer at all."""
    openai_server.script(Reply(events=events))
    gen, _ = generator(openai_server, http)
    with pytest.raises(UpstreamError):
        drain(gen.stream("s", "p"))


def test_a_slow_server_hits_the_deadline(openai_server: FakeOpenAI, http: httpx.Client) -> None:
    """A server that does not answer within the deadline: 503 upstream_unavailable."""
    openai_server.script(Reply(delay_s=1.5))
    gen, _ = generator(openai_server, http, deadline_s=0.5)
    with pytest.raises(Unavailable):
        gen.generate("s", "p")


def test_a_server_that_is_down_is_503(http: httpx.Client) -> None:
    """Nothing listens on the port: 503 upstream_unavailable, naming what failed."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    gen = OpenAIGenerator(ModelHttp(OpenAIDialect(None), f"http://127.0.0.1:{port}/v1", http), "m")
    with pytest.raises(Unavailable) as caught:
        gen.generate("s", "p")
    assert "cannot be reached" in caught.value.message
    with pytest.raises(Unavailable):
        drain(gen.stream("s", "p"))


def test_the_transport_table_maps_every_httpx_failure() -> None:
    """Each httpx exception class of the table (and its subclasses) maps to its row."""
    request = httpx.Request("POST", "http://x")
    cases: list[tuple[Exception, type[BibliotecaError]]] = [
        (httpx.ConnectTimeout("t", request=request), Unavailable),
        (httpx.ReadTimeout("t", request=request), Unavailable),
        (httpx.PoolTimeout("t", request=request), Unavailable),
        (httpx.RemoteProtocolError("t", request=request), UpstreamError),
        (httpx.DecodingError("t", request=request), UpstreamError),
        (httpx.ConnectError("t", request=request), Unavailable),
        (httpx.ReadError("t", request=request), Unavailable),
        (httpx.ProxyError("t", request=request), Unavailable),
    ]
    for exc, expected in cases:
        assert type(upstream.translate(exc, "the server")) is expected, exc


def test_retry_after_reads_seconds_and_http_dates() -> None:
    """Retry-After is delta-seconds or an HTTP date; anything else is no hint."""
    assert upstream.retry_after("3") == 3.0
    assert upstream.retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=lambda: 1445412480.0) == 10.0
    assert upstream.retry_after("soon") is None
    assert upstream.retry_after(None) is None


def test_gemini_streams_through_stream_generate_content(
    gemini: FakeGemini, http: httpx.Client
) -> None:
    """Gemini's streamGenerateContent?alt=sse: each event's text, the last one's finish."""
    client = GeminiClient(api_key="AIzaFAKE-stream-0123456789", base_url=gemini.url, http=http)
    pieces, whole = drain(GeminiGenerator(client, "gemini-2.5-flash").stream("s", "p"))
    assert len(pieces) > 3
    assert "".join(pieces) == whole.text == gemini.answer
    assert (whole.finish, whole.model) == ("stop", "gemini-fake")
    assert gemini.requests[-1].path.endswith(":streamGenerateContent?alt=sse")
