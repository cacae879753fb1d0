"""Helpers shared by test modules (import as ``from helpers import ...``)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from mapgen.questions.record import Question


def send_json(handler: BaseHTTPRequestHandler, payload: bytes) -> None:
    """Answer a test HTTP server's request with 200 and the JSON ``payload``."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


def make_question(question_id: str = "Q1", answer_type: str = "binary", answer: Any = "Yes", **kw: Any) -> Question:
    """A :class:`Question` for metric and extraction unit tests (tests that read a benchmark build one)."""
    base: dict[str, Any] = dict(
        question_id=question_id,
        map_id="m1",
        template_id="t",
        mapwise_template=None,
        question="?",
        answer=answer,
        answer_type=answer_type,
        map_type="discrete",
        country="usa",
    )
    return Question(**(base | kw))


def build_tiny(factory: Any, config: dict[str, Any], name: str) -> Path:
    """Build ``config`` into a fresh folder of pytest's ``tmp_path_factory`` (for module-scoped fixtures)."""
    from mapgen.build import build

    out = factory.mktemp(name) / "bench"
    build(config, out, progress=False)
    return out


def template_record(template_id: str, text: str, wordings: tuple[str, ...] = ()) -> str:
    """YAML of one extra binary template (two regions, "same class?"), to append to the built-in templates."""
    quoted = text.replace('"', '\\"')
    lines = [f"  - id: {template_id}", "    answer_type: binary", "    vqa_type: colour", "    map_types: [discrete]",
             "    params:", "      X: Region", '      Y: {type: Region, from: "others(readable_regions(), X)"}',
             f'    text: ["{quoted}"]']
    if wordings:
        lines += ["    mapwise_wordings:", *(f'      - "{w}"' for w in wordings)]
    lines += ["    program:", "      - answer: compare(X, 'similar', Y)", "    uses: [similar]"]
    return "\n" + "\n".join(lines) + "\n"


def templates_plus(path: Path, record: str) -> Path:
    """Write the built-in templates followed by ``record`` to ``path``."""
    from mapgen.questions.templates import builtin_files

    path.write_text(builtin_files()[0].read_text(encoding="utf-8").rstrip() + "\n" + record, encoding="utf-8")
    return path


def write_grid(folder: Path, n: int = 4, name_key: str = "name", stem: str = "grid") -> tuple[Path, Path]:
    """An n×n grid of 1° squares named ``Cell <row letter><column>`` (row A south) and a CSV of values that rise
    row by row (so the north row holds the largest values)."""
    folder.mkdir(parents=True, exist_ok=True)
    features, rows = [], ["region,value"]
    for r in range(n):
        for c in range(n):
            name = f"Cell {chr(65 + r)}{c + 1}"
            ring = [[c, r], [c + 1, r], [c + 1, r + 1], [c, r + 1], [c, r]]
            features.append({"type": "Feature", "properties": {name_key: name, "pop": r * n + c},
                             "geometry": {"type": "Polygon", "coordinates": [ring]}})
            rows.append(f"{name},{(r * n + c) * 3.5 + 1}")
    geo = folder / f"{stem}.geojson"
    geo.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    table = folder / f"{stem}.csv"
    table.write_text("\n".join(rows) + "\n")
    return geo, table


class ChatStub:
    """A local OpenAI-compatible chat-completions server (loopback only) for the client and harness tests:
    ``respond(body)`` gives the reply text of a request, or ``None`` to fail it with HTTP 500; ``requests`` counts
    the requests received."""

    def __init__(self, respond: Callable[[dict[str, Any]], str | None]) -> None:
        self.requests = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests += 1
                reply = respond(body)
                if reply is None:
                    self.send_response(500)
                    self.end_headers()
                    return
                payload = json.dumps({
                    "id": f"stub-{outer.requests}", "object": "chat.completion", "created": 0,
                    "model": body.get("model", ""),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": reply}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }).encode()
                send_json(self, payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def resign(root: Path) -> Path:
    """Write a build folder's manifest checksums anew for the files a test trimmed on purpose (readers refuse a
    folder whose files differ from its manifest: mapgen.benchmark.verify_folder)."""
    from mapgen.files import sha256_file

    path = root / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["files"] = {rel: sha256_file(root / rel) for rel in manifest["files"] if (root / rel).is_file()}
    path.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    return root


def one_map_grid_config(root: Path, name: str) -> Path:
    """A build config of one map of a 4×4 grid atlas (its table only, VQA only), written into ``root``."""
    write_grid(root, stem="gridland")
    config = root / "c.yaml"
    config.write_text(f"name: {name}\nseed: 1\ncountries:\n  - name: gridland.geojson\n    maps: 1\n"
                      "    statistics: {curated: [], files: [gridland.csv], synthetic: {count: 0}}\n"
                      "questions: {per_template: 1, per_image: 2, min_per_template: 0}\ntasks: [vqa]\n")
    return config
