"""Model clients: an OpenAI-compatible chat-completions client (vLLM, Ollama, LM Studio, hosted APIs).

- One POST to ``{base_url}/chat/completions`` per prompt; images go as base64 ``data:`` URLs in
  ``image_url`` content parts (before the text), the optional system text as a system message.
- Base URL and key: arguments, else ``$MAPGEN_BASE_URL``/``$OPENAI_BASE_URL`` and
  ``$MAPGEN_API_KEY``/``$OPENAI_API_KEY`` (a local server needs no key).
- Retries with exponential backoff (``backoff * 2**attempt``, capped; a ``Retry-After`` header wins) on
  timeouts, connection errors, HTTP 408/409/425/429 and 5xx, and on unreadable response bodies; other HTTP
  errors fail at once. A failure is returned as a :class:`Completion` with ``error`` set, never raised.
- On-disk cache: a JSONL file, one line per successful response, keyed by (model, prompt hash, image hash);
  the prompt hash covers the system text, the user text and the generation settings, the image hash the
  bytes of every image. Reruns and interrupted runs pay only for what is not cached yet.
- ``complete_many`` runs prompts in a thread pool (``concurrency`` requests in flight).
"""

from __future__ import annotations

import base64
import hashlib
import json
import mimetypes
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mapgen.eval.prompts import Prompt
from mapgen.files import append_jsonl, iter_json_lines

DEFAULT_BASE_URL = "https://api.openai.com/v1"
BASE_URL_ENV = ("MAPGEN_BASE_URL", "OPENAI_BASE_URL")
API_KEY_ENV = ("MAPGEN_API_KEY", "OPENAI_API_KEY")
RETRY_STATUS = frozenset({408, 409, 425, 429})
PROVIDERS = ("openai", "vllm", "ollama", "lmstudio", "compatible")

MAX_CONCURRENCY = 64
"""The most model requests a run keeps in flight."""
MAX_RETRIES = 20
"""The most retries of one failed request."""
MAX_TIMEOUT = 3600.0
"""The longest wait for one model request, in seconds."""


class TransientError(Exception):
    """An error worth retrying (timeout, connection, 429/5xx)."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PermanentError(Exception):
    """An error that retrying will not fix (bad request, auth, unknown model)."""


@dataclass
class Completion:
    """One model response (``text`` is None when the request failed; ``error`` says why)."""

    text: str | None
    model: str
    key: str = ""
    cached: bool = False
    attempts: int = 0
    error: str | None = None
    question_id: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None and self.text is not None


# ------------------------------------------------------------------------------------------- hashing


def sha256_text(text: str) -> str:
    """Hex SHA-256 of a string."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def image_hash(paths: Iterable[Path]) -> str:
    """Hex SHA-256 over the bytes of every image, in order (``""`` for no image)."""
    paths = list(paths)
    if not paths:
        return ""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(hashlib.sha256(Path(path).read_bytes()).digest())
    return digest.hexdigest()


def image_data_url(path: Path) -> str:
    """``data:<mime>;base64,...`` URL of an image file."""
    mime = mimetypes.guess_type(str(path))[0] or "image/png"
    return f"data:{mime};base64,{base64.b64encode(Path(path).read_bytes()).decode('ascii')}"


# ------------------------------------------------------------------------------------------- cache


class ResponseCache:
    """Append-only JSONL cache of successful responses (thread-safe; a torn last line is skipped)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._data: dict[str, str] = {}
        if self.path.is_file():
            for _, record, _ in iter_json_lines(self.path):
                try:
                    self._data[record["key"]] = record["response"]
                except (KeyError, TypeError):  # also a line that is not JSON (record None)
                    continue

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: str) -> str | None:
        return self._data.get(key)

    def put(self, key: str, response: str, **meta: Any) -> None:
        """Store a response and append it to the file at once."""
        with self._lock:
            self._data[key] = response
            append_jsonl(self.path, {"key": key, **meta, "response": response})


# ------------------------------------------------------------------------------------------- client


def _env(names: Sequence[str]) -> str | None:
    return next((os.environ[n] for n in names if os.environ.get(n)), None)


def _retry_after(headers: Any) -> float | None:
    value = headers.get("Retry-After") if headers is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _message_text(body: dict[str, Any]) -> str:
    """Text of ``choices[0].message.content`` (a string or a list of text parts)."""
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise TransientError(f"response has no choices[0].message.content: {str(body)[:200]}") from None
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if content is None:
        raise TransientError("response content is null")
    return str(content)


class OpenAIClient:
    """Chat-completions client for any OpenAI-compatible endpoint."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 120.0,
        max_retries: int = 3,
        backoff: float = 1.0,
        max_backoff: float = 30.0,
        cache: ResponseCache | str | Path | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = 1024,
        extra_body: dict[str, Any] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.model = model
        self.base_url = (base_url or _env(BASE_URL_ENV) or DEFAULT_BASE_URL).rstrip("/")
        self.api_key = api_key if api_key is not None else _env(API_KEY_ENV)
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.cache = cache if isinstance(cache, ResponseCache) or cache is None else ResponseCache(cache)
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.extra_body = dict(extra_body or {})
        self._sleep = sleep

    # --- request -----------------------------------------------------------------------------------
    def settings(self) -> dict[str, Any]:
        """Generation settings sent with every request (part of the cache key)."""
        out: dict[str, Any] = {"temperature": self.temperature, **self.extra_body}
        if self.max_tokens is not None:
            out["max_tokens"] = self.max_tokens
        return out

    def messages(self, prompt: Prompt) -> list[dict[str, Any]]:
        """Chat messages for a prompt (images first, then the text)."""
        content: list[dict[str, Any]] = [
            {"type": "image_url", "image_url": {"url": image_data_url(p)}} for p in prompt.images
        ]
        content.append({"type": "text", "text": prompt.text})
        messages: list[dict[str, Any]] = (
            [{"role": "system", "content": prompt.system}] if prompt.system else []
        )
        return [*messages, {"role": "user", "content": content}]

    def cache_key(self, prompt: Prompt) -> str:
        """Key of a prompt's response: hash of (model, prompt hash, image hash)."""
        prompt_hash = sha256_text(json.dumps([prompt.system, prompt.text, self.settings()], sort_keys=True))
        return sha256_text(json.dumps([self.model, prompt_hash, image_hash(prompt.images)]))

    def _post(self, payload: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=json.dumps(payload).encode("utf-8"),
            headers={"Content-Type": "application/json"}
            | ({"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}),
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:300].decode("utf-8", "replace")
            message = f"HTTP {exc.code}: {detail}"
            if exc.code in RETRY_STATUS or exc.code >= 500:
                raise TransientError(message, _retry_after(exc.headers)) from None
            raise PermanentError(message) from None
        except TimeoutError as exc:
            raise TransientError(f"timeout after {self.timeout}s ({exc})") from None
        except (urllib.error.URLError, ConnectionError, OSError) as exc:
            raise TransientError(f"connection error: {exc}") from None
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            raise TransientError(f"response is not JSON: {raw[:200]!r}") from None

    def _delay(self, attempt: int, error: TransientError) -> float:
        if error.retry_after is not None:
            return min(error.retry_after, self.max_backoff)
        return min(self.backoff * 2**attempt, self.max_backoff)

    def complete(self, prompt: Prompt) -> Completion:
        """One response for ``prompt`` (from the cache when there); failures come back with ``error`` set."""
        try:
            key = self.cache_key(prompt)
        except OSError as exc:
            return Completion(
                None, self.model, error=f"cannot read image: {exc}", question_id=prompt.question_id
            )
        cached = self.cache.get(key) if self.cache is not None else None
        if cached is not None:
            return Completion(cached, self.model, key, cached=True, question_id=prompt.question_id)
        payload = {"model": self.model, "messages": self.messages(prompt), **self.settings()}
        error = "no attempt made"
        for attempt in range(self.max_retries + 1):
            try:
                text = _message_text(self._post(payload))
            except PermanentError as exc:
                return Completion(
                    None,
                    self.model,
                    key,
                    attempts=attempt + 1,
                    error=str(exc),
                    question_id=prompt.question_id,
                )
            except TransientError as exc:
                error = str(exc)
                if attempt < self.max_retries:
                    self._sleep(self._delay(attempt, exc))
                continue
            if self.cache is not None:
                self.cache.put(key, text, model=self.model, question_id=prompt.question_id)
            return Completion(text, self.model, key, attempts=attempt + 1, question_id=prompt.question_id)
        return Completion(
            None,
            self.model,
            key,
            attempts=self.max_retries + 1,
            error=f"failed after {self.max_retries + 1} attempts: {error}",
            question_id=prompt.question_id,
        )

    def complete_many(
        self,
        prompts: Sequence[Prompt],
        concurrency: int = 4,
        on_result: Callable[[Completion], None] | None = None,
    ) -> list[Completion]:
        """Responses for many prompts, in input order; ``on_result`` sees each as it finishes."""

        def one(prompt: Prompt) -> Completion:
            result = self.complete(prompt)
            if on_result is not None:
                on_result(result)
            return result

        if concurrency <= 1:
            return [one(p) for p in prompts]
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            return list(pool.map(one, prompts))


def parse_model_spec(spec: str) -> tuple[str, str]:
    """``"openai:gpt-4o-mini"`` → ``("openai", "gpt-4o-mini")``; no known provider prefix → ``openai``."""
    provider, sep, name = spec.partition(":")
    if sep and provider.lower() in PROVIDERS and name:
        return provider.lower(), name
    return "openai", spec


def make_client(
    spec: str, base_url: str | None = None, api_key: str | None = None, **kwargs: Any
) -> OpenAIClient:
    """A client for a model spec such as ``openai:gpt-4o-mini`` or ``vllm:Qwen/Qwen2-VL-7B-Instruct``."""
    _provider, model = parse_model_spec(spec)
    return OpenAIClient(model, base_url=base_url, api_key=api_key, **kwargs)
