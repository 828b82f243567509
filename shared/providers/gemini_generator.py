"""``Generator`` on Gemini's generateContent over REST; blocked or cut answers are not errors.

Streamed, ``streamGenerateContent?alt=sse`` sends server-sent events whose data each has
the shape of a whole generateContent response, holding the next piece of text; the last
one carries ``finishReason`` and the usage, and the stream's end is the answer's end.
"""

from __future__ import annotations

from typing import Any

from shared.errors import UpstreamError
from shared.json_value import JsonObject
from shared.providers.gemini_client import GeminiClient
from shared.records import Generation, TextStream

# finishReason -> our ``Generation.finish``; anything unknown is reported as "other".
_FINISH = {
    "STOP": "stop",
    "MAX_TOKENS": "max_tokens",
    "SAFETY": "safety",
    "RECITATION": "recitation",
    "BLOCKLIST": "safety",
    "PROHIBITED_CONTENT": "safety",
    "SPII": "safety",
}


class GeminiGenerator:
    """System instruction + one user turn -> text, low temperature (answers, triage)."""

    def __init__(self, client: GeminiClient, model: str, temperature: float = 0.2) -> None:
        self._client = client
        self._model = model.removeprefix("models/")
        self._temperature = temperature
        self.name = f"gemini:{self._model}"

    def _body(self, system: str, prompt: str, max_tokens: int) -> JsonObject:
        return {
            "systemInstruction": {"parts": [{"text": system}]},
            "contents": [{"role": "user", "parts": [{"text": prompt}]}],
            "generationConfig": {"maxOutputTokens": max_tokens, "temperature": self._temperature},
        }

    def generate(self, system: str, prompt: str, *, max_tokens: int = 1024) -> Generation:
        body = self._body(system, prompt, max_tokens)
        answer = self._client.post(f"models/{self._model}:generateContent", body)
        return parse_generation(answer, self._model)

    def stream(self, system: str, prompt: str, *, max_tokens: int = 1024) -> TextStream:
        body = self._body(system, prompt, max_tokens)
        pieces: list[str] = []
        last: Generation | None = None
        for chunk in self._client.stream(f"models/{self._model}:streamGenerateContent", body):
            # A chunk without text (the usage-only last one) may still say how it ended.
            part = parse_generation(chunk, self._model, partial=True)
            if part.text:
                pieces.append(part.text)
                yield part.text
            last = part
        if last is None:
            raise UpstreamError("the Gemini API ended its stream without an answer")
        text = "".join(pieces)
        if last.finish == "stop" and not text:
            raise UpstreamError("the Gemini API streamed a candidate without text")
        return Generation(text=text, model=last.model, finish=last.finish, usage=last.usage)


def parse_generation(answer: JsonObject, model: str, *, partial: bool = False) -> Generation:
    """Our ``Generation`` from a generateContent body; ``UpstreamError`` if it makes no sense.

    ``partial``: one event of a stream, which may hold no text (its finish is then
    "stop" only if it says so)."""
    model_name = str(answer.get("modelVersion") or model)
    usage = _usage(answer.get("usageMetadata"))
    feedback = answer.get("promptFeedback")
    candidates = answer.get("candidates")
    if isinstance(feedback, dict) and feedback.get("blockReason") and not candidates:
        return Generation(text="", model=model_name, finish="blocked", usage=usage)
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        raise UpstreamError("the Gemini API answered without any candidate")
    first = candidates[0]
    reason = first.get("finishReason", "STOP")
    finish = _FINISH.get(str(reason), "other")
    content = first.get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    if parts is None and (finish != "stop" or partial):
        return Generation(text="", model=model_name, finish=finish, usage=usage)
    if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
        raise UpstreamError("the Gemini API answered a candidate without text parts")
    texts = [p.get("text") for p in parts if "text" in p and not p.get("thought")]
    if not all(isinstance(t, str) for t in texts) or (
        finish == "stop" and not texts and not partial
    ):
        raise UpstreamError("the Gemini API answered a candidate without text")
    return Generation(
        text="".join(str(t) for t in texts), model=model_name, finish=finish, usage=usage
    )


def _usage(metadata: Any) -> dict[str, int]:
    if not isinstance(metadata, dict):
        return {}
    return {
        k: int(v)
        for k, v in metadata.items()
        if isinstance(v, int) and not isinstance(v, bool) and k.endswith("TokenCount")
    }
