"""OpenAI-compatible client (mapgen.eval.clients) against a local HTTP server started by the tests."""

from __future__ import annotations

import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from helpers import send_json
from PIL import Image

from mapgen.eval.clients import OpenAIClient, ResponseCache, make_client, parse_model_spec
from mapgen.eval.prompts import Prompt


class FakeServer:
    """A chat-completions server on 127.0.0.1; ``script`` is a list of actions, one per request.

    Actions: ``"ok"`` (answer), ``500``/``429``/``400`` (that status), ``"slow"`` (sleep past the client timeout),
    ``"garbage"`` (a non-JSON body). When the script runs out, ``"ok"``.
    """

    def __init__(self, script: list | None = None, reply: str = '{"answer": "Yes"}') -> None:
        self.script = list(script or [])
        self.reply = reply
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                    action = server.script.pop(0) if server.script else "ok"
                if action == "slow":
                    time.sleep(1.0)
                    action = "ok"
                if isinstance(action, int):
                    self.send_response(action)
                    if action == 429:
                        self.send_header("Retry-After", "0")
                    self.end_headers()
                    self.wfile.write(b'{"error": {"message": "nope"}}')
                    return
                if action == "garbage":
                    payload = b"<html>bad gateway</html>"
                else:
                    text = body["messages"][-1]["content"][-1]["text"]
                    reply = server.reply if not text.startswith("ECHO") else text
                    payload = json.dumps(
                        {"choices": [{"message": {"role": "assistant", "content": reply}}]}
                    ).encode()
                send_json(self, payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> FakeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def image(tmp_path) -> Path:
    path = tmp_path / "map.png"
    Image.new("RGB", (10, 10), "red").save(path)
    return path


def client_for(server: FakeServer, sleeps: list | None = None, **kw) -> OpenAIClient:
    record = sleeps.append if sleeps is not None else (lambda s: None)
    return OpenAIClient("test-model", base_url=server.url, api_key=kw.pop("api_key", "k"), sleep=record, **kw)


def test_request_shape(image):
    with FakeServer() as server:
        result = client_for(server).complete(
            Prompt("Is it red?", image, system="Be brief.", question_id="q1")
        )
    assert result.ok and result.text == '{"answer": "Yes"}' and result.attempts == 1 and not result.cached
    body = server.requests[0]
    assert body["model"] == "test-model" and body["temperature"] == 0.0
    system, user = body["messages"]
    assert system == {"role": "system", "content": "Be brief."}
    image_part, text_part = user["content"]
    assert text_part == {"type": "text", "text": "Is it red?"}
    url = image_part["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == image.read_bytes()
    assert server.headers[0]["Authorization"] == "Bearer k"


def test_key_and_url_from_environment(monkeypatch):
    with FakeServer() as server:
        monkeypatch.setenv("MAPGEN_BASE_URL", server.url)
        monkeypatch.setenv("MAPGEN_API_KEY", "env-key")
        result = make_client("openai:m").complete(Prompt("hi"))
    assert result.ok and server.headers[0]["Authorization"] == "Bearer env-key"
    assert server.requests[0]["model"] == "m"


def test_no_key_sends_no_authorization(monkeypatch):
    monkeypatch.delenv("MAPGEN_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeServer() as server:
        assert OpenAIClient("m", base_url=server.url).complete(Prompt("hi")).ok
    assert "Authorization" not in server.headers[0]


def test_retries_500_with_exponential_backoff():
    sleeps: list[float] = []
    with FakeServer([500, 500]) as server:
        result = client_for(server, sleeps, backoff=0.5).complete(Prompt("hi"))
    assert result.ok and result.attempts == 3 and len(server.requests) == 3
    assert sleeps == [0.5, 1.0]


def test_gives_up_after_retries_without_raising():
    with FakeServer([500, 500, 500]) as server:
        result = client_for(server, max_retries=2).complete(Prompt("hi", question_id="q9"))
    assert not result.ok and result.text is None and result.question_id == "q9"
    assert "failed after 3 attempts" in result.error and "HTTP 500" in result.error
    assert len(server.requests) == 3


def test_429_uses_retry_after_and_400_is_not_retried():
    sleeps: list[float] = []
    with FakeServer([429]) as server:
        assert client_for(server, sleeps, backoff=5).complete(Prompt("hi")).ok
    assert sleeps == [0.0]
    with FakeServer([400]) as server:
        result = client_for(server).complete(Prompt("hi"))
    assert result.attempts == 1 and "HTTP 400" in result.error and len(server.requests) == 1


def test_timeout_then_success():
    with FakeServer(["slow"]) as server:
        result = client_for(server, timeout=0.2, max_retries=1).complete(Prompt("hi"))
    assert result.ok and result.attempts == 2


def test_timeout_failure_and_garbage_body():
    with FakeServer(["slow", "slow"]) as server:
        result = client_for(server, timeout=0.2, max_retries=1).complete(Prompt("hi"))
    assert not result.ok and "timeout" in result.error
    with FakeServer(["garbage"]) as server:
        assert client_for(server).complete(Prompt("hi")).attempts == 2


def test_connection_refused_is_a_failure_not_a_crash():
    with FakeServer() as server:
        url = server.url
    result = OpenAIClient("m", base_url=url, max_retries=1, sleep=lambda s: None, timeout=2).complete(
        Prompt("hi")
    )
    assert not result.ok and "connection error" in result.error


def test_cache_makes_reruns_free(tmp_path, image):
    cache_path = tmp_path / "cache.jsonl"
    prompt = Prompt("ECHO question", image, question_id="q1")
    with FakeServer() as server:
        first = client_for(server, cache=cache_path).complete(prompt)
        again = client_for(server, cache=cache_path).complete(prompt)  # a new client reads the file
        assert len(server.requests) == 1
        assert again.cached and again.text == first.text == "ECHO question"
        other = tmp_path / "other.png"
        Image.new("RGB", (10, 10), "blue").save(other)
        client_for(server, cache=cache_path).complete(Prompt("ECHO question", other))
        OpenAIClient("other-model", base_url=server.url, cache=cache_path).complete(prompt)
        client_for(server, cache=cache_path, temperature=0.7).complete(prompt)
        assert len(server.requests) == 4  # new image, new model, new settings: all misses
    assert len(ResponseCache(cache_path)) == 4


def test_failures_are_not_cached(tmp_path):
    cache_path = tmp_path / "cache.jsonl"
    with FakeServer([400]) as server:
        assert not client_for(server, cache=cache_path).complete(Prompt("hi")).ok
        assert client_for(server, cache=cache_path).complete(Prompt("hi")).ok
    assert len(server.requests) == 2


def test_torn_cache_line_is_skipped(tmp_path):
    path = tmp_path / "cache.jsonl"
    path.write_text('{"key": "a", "response": "x"}\n{"key": "b", "resp')
    assert len(ResponseCache(path)) == 1 and ResponseCache(path).get("a") == "x"


def test_complete_many_keeps_order_and_reports_each():
    seen = []
    prompts = [Prompt(f"ECHO {i}", question_id=f"q{i}") for i in range(12)]
    with FakeServer([500]) as server:
        results = client_for(server).complete_many(prompts, concurrency=4, on_result=seen.append)
    assert [r.text for r in results] == [f"ECHO {i}" for i in range(12)]
    assert sorted(r.question_id for r in seen) == sorted(p.question_id for p in prompts)


def test_parse_model_spec():
    assert parse_model_spec("openai:gpt-4o-mini") == ("openai", "gpt-4o-mini")
    assert parse_model_spec("ollama:llava:13b") == ("ollama", "llava:13b")
    assert parse_model_spec("llava:13b") == ("openai", "llava:13b")
    assert parse_model_spec("gpt-4o") == ("openai", "gpt-4o")


def test_unreadable_image_is_a_failure(tmp_path):
    result = OpenAIClient("m", base_url="http://127.0.0.1:9").complete(Prompt("hi", tmp_path / "missing.png"))
    assert not result.ok and "cannot read image" in result.error
