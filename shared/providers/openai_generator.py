"""``Generator`` on any OpenAI-compatible chat completions server (``BIBLIOTECA_LLM=openai``).

Ollama, vLLM, llama.cpp's server, LM Studio and OpenAI itself all answer
``POST {base}/chat/completions`` with the same shape, streamed (``"stream": true``, one
``chat.completion.chunk`` per event, then ``data: [DONE]``) or not. Only the common core
is sent (model, messages, max_tokens, temperature), so no server refuses an option it
does not know. The key, when there is one, goes in ``Authorization: Bearer``; a local
server needs none.
"""

from __future__ import annotations

from typing import Any

import httpx

from shared.errors import UpstreamError
from shared.json_value import JsonObject
from shared.logs import register_secret
from shared.providers.model_http import ModelHttp, error_message
from shared.providers.upstream import KEY_REFUSED, retry_after
from shared.records import Generation, TextStream

# finish_reason -> our ``Generation.finish``; anything else is "other".
_FINISH = {
    "stop": "stop",
    "eos": "stop",  # some compatible servers
    "length": "max_tokens",
    "content_filter": "safety",
}


class OpenAIDialect:
    """An OpenAI-compatible server: a bearer key (optional), ``Retry-After`` headers."""

    vendor = "the language model server"
    key_variable = "BIBLIOTECA_LLM_API_KEY"

    def __init__(self, api_key: str | None) -> None:
        register_secret(api_key)
        self._key = api_key

    def headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        return headers

    def message(self, payload: Any, status: int) -> str:
        return error_message(payload, status)

    def key_refused(self, payload: Any, status: int) -> bool:
        return status in KEY_REFUSED

    def suggested_delay(self, payload: Any, headers: httpx.Headers) -> float | None:
        return retry_after(headers.get("retry-after"))


class OpenAIGenerator:
    """System message + one user message -> text, low temperature (answers, triage)."""

    def __init__(self, calls: ModelHttp, model: str, temperature: float = 0.2) -> None:
        self._calls = calls
        self._model = model
        self._temperature = temperature
        self.name = f"openai:{model}"

    def _body(self, system: str, prompt: str, max_tokens: int) -> JsonObject:
        return {
            "model": self._model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": prompt},
            ],
            "max_tokens": max_tokens,
            "temperature": self._temperature,
        }

    def generate(self, system: str, prompt: str, *, max_tokens: int = 1024) -> Generation:
        reply = self._calls.post("chat/completions", self._body(system, prompt, max_tokens))
        return parse_completion(reply, self._model)

    def stream(self, system: str, prompt: str, *, max_tokens: int = 1024) -> TextStream:
        body = {**self._body(system, prompt, max_tokens), "stream": True}
        pieces: list[str] = []
        finish: str | None = None
        model = self._model
        usage: dict[str, int] = {}
        for chunk in self._calls.stream("chat/completions", body):
            model = str(chunk.get("model") or model)
            usage = _usage(chunk.get("usage")) or usage
            choices = chunk.get("choices")
            if not isinstance(choices, list) or not choices:
                continue  # a usage-only chunk
            choice = choices[0]
            if not isinstance(choice, dict):
                raise UpstreamError("the language model server streamed a malformed choice")
            delta = choice.get("delta")
            text = delta.get("content") if isinstance(delta, dict) else None
            if text is not None and not isinstance(text, str):
                raise UpstreamError("the language model server streamed text that is not text")
            if text:
                pieces.append(text)
                yield text
            if choice.get("finish_reason"):
                finish = _FINISH.get(str(choice["finish_reason"]), "other")
        if finish is None and not pieces:
            raise UpstreamError("the language model server ended its stream without an answer")
        return Generation(text="".join(pieces), model=model, finish=finish or "stop", usage=usage)


def parse_completion(reply: JsonObject, model: str) -> Generation:
    """Our ``Generation`` from a chat completion; ``UpstreamError`` if it makes no sense."""
    choices = reply.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise UpstreamError("the language model server answered without any choice")
    first = choices[0]
    message = first.get("message")
    text = message.get("content") if isinstance(message, dict) else None
    finish = _FINISH.get(str(first.get("finish_reason") or "stop"), "other")
    if text is None and finish != "stop":
        text = ""
    if not isinstance(text, str):
        raise UpstreamError("the language model server answered a choice without text")
    if finish == "stop" and not text.strip():
        raise UpstreamError("the language model server answered with empty text")
    return Generation(
        text=text,
        model=str(reply.get("model") or model),
        finish=finish,
        usage=_usage(reply.get("usage")),
    )


def _usage(usage: Any) -> dict[str, int]:
    if not isinstance(usage, dict):
        return {}
    return {
        k: int(v)
        for k, v in usage.items()
        if isinstance(v, int) and not isinstance(v, bool) and k.endswith("tokens")
    }
