"""A fake OpenAI-compatible endpoint on 127.0.0.1: `POST /v1/chat/completions` answers with the
text a test sets (or an error status), and keeps every request it was sent."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class FakeChatModel:
    url: str = ""  # the base URL, ASK_LLM_URL
    reply: str = "Nothing to say [1]."
    status: int = 200
    requests: list[dict] = field(default_factory=list)  # {"path", "authorization", "body"}


@contextmanager
def fake_chat_model() -> Iterator[FakeChatModel]:
    model = FakeChatModel()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            authorization = self.headers.get("Authorization", "")
            model.requests.append({"path": self.path, "authorization": authorization, "body": body})
            if self.path != "/v1/chat/completions":
                return self._answer(404, {"error": {"message": "no such route"}})
            if model.status != 200:
                return self._answer(model.status, {"error": {"message": "refused"}})
            choice = {"index": 0, "message": {"role": "assistant", "content": model.reply}}
            self._answer(200, {"object": "chat.completion", "choices": [choice]})

        def _answer(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    model.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield model
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
