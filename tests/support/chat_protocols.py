"""The wire formats of real chat sites (DeepSeek, ChatGPT signed out, Doubao and its older app,
Qwen, Kimi, Claude, Gemini under /u/1/, Tongyi), for the replica (tests/support/chat_replica.py): each
protocol's endpoint, how the user's message sits in its request, and how it streams an answer,
shaped after the public sources in docs/CHAT_SITES.md (each shipped adapter's `source`). Every
answer carries thinking that holds a call of a tool nobody chose: an adapter that read thinking
as the answer would show a card for it. The answer's first piece holds the start of the call
(DeepSeek's first token comes inside a BATCH's list). Tongyi's source shows no thinking in its
stream, so its replica sends none."""

from __future__ import annotations

import json
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

THINKING = 'Thinking: <tool_call>{"name": "thinking_only", "arguments": {}}</tool_call> '


def _sse(obj: Any, event: str = "") -> bytes:
    head = f"event: {event}\n" if event else ""
    data = obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False)
    return f"{head}data: {data}\n\n".encode()


def _frame(obj: Any, flags: int = 0) -> bytes:
    body = json.dumps(obj, ensure_ascii=False).encode()
    return struct.pack(">BI", flags, len(body)) + body


def deepseek(pieces: list[str]) -> Iterator[bytes]:
    yield _sse({"request_message_id": 1, "response_message_id": 2}, "ready")
    yield _sse({"v": {"response": {"message_id": 2, "status": "WIP", "fragments": []}}})
    think = [{"v": [{"id": 1, "type": "THINK", "content": THINKING}], "p": "fragments", "o": "APPEND"}]
    yield _sse({"v": think, "p": "response", "o": "BATCH"})
    yield _sse({"v": " more thinking", "p": "response/fragments/-1/content", "o": "APPEND"})
    first = [{"v": [{"id": 2, "type": "RESPONSE", "content": pieces[0]}], "p": "fragments", "o": "APPEND"}]
    yield _sse({"v": first, "p": "response", "o": "BATCH"})
    for i, piece in enumerate(pieces[1:]):
        yield _sse(
            {"v": piece, "p": "response/fragments/-1/content", "o": "APPEND"} if i == 0 else {"v": piece}
        )
    yield _sse({"v": "FINISHED", "p": "response/status", "o": "SET"})
    yield _sse({}, "close")


def chatgpt(pieces: list[str]) -> Iterator[bytes]:
    yield _sse('"v1"', "delta_encoding")
    thoughts = {"author": {"role": "assistant"}, "content": {"content_type": "thoughts", "parts": [THINKING]}}
    yield _sse({"p": "", "o": "add", "v": {"message": thoughts}}, "delta")
    message = {"author": {"role": "assistant"}, "content": {"content_type": "text", "parts": [""]}}
    yield _sse({"p": "", "o": "add", "v": {"message": message, "conversation_id": "c"}, "c": 1}, "delta")
    yield _sse({"p": "/message/content/parts/0", "o": "append", "v": pieces[0]}, "delta")
    for i, piece in enumerate(pieces[1:-1]):
        if i % 3 == 2:
            yield _sse(
                {"p": "", "o": "patch", "v": [{"p": "/message/content/parts/0", "o": "append", "v": piece}]},
                "delta",
            )
        else:
            yield _sse({"v": piece}, "delta")
    done = [
        {"p": "/message/content/parts/0", "o": "append", "v": pieces[-1]},
        {"p": "/message/status", "o": "replace", "v": "finished_successfully"},
    ]
    yield _sse({"p": "", "o": "patch", "v": done}, "delta")
    yield _sse({"type": "message_stream_complete"}, "delta")
    yield _sse("[DONE]")


def _block(text: str, kind: int = 10000) -> dict[str, Any]:
    return {
        "block_type": kind,
        "block_id": "b",
        "content": {"text_block": {"text": text}},
        "is_finish": False,
    }


def doubao(pieces: list[str]) -> Iterator[bytes]:
    yield _sse({}, "SSE_HEARTBEAT")
    yield _sse({"query_list": [{"message_index": 1}]}, "SSE_ACK")
    yield _sse({"message": {"content_block": [_block(THINKING)]}}, "FULL_MSG_NOTIFY")
    yield _sse(
        {"content": {"content_block": [_block(pieces[0])], "content_status": 100}}, "STREAM_MSG_NOTIFY"
    )
    for piece in pieces[1:]:
        ops = [
            {"patch_object": 1, "patch_type": 1, "patch_value": {"content_block": [_block(piece)]}},
            {"patch_object": 111, "patch_type": 1, "patch_value": {"tts_content": THINKING}},
        ]
        yield _sse({"message_id": "2", "patch_op": ops}, "STREAM_CHUNK")
    yield _sse({}, "SSE_REPLY_END")


def qwen(pieces: list[str]) -> Iterator[bytes]:
    yield _sse({"response.created": {"chat_id": "c", "response_id": "r"}})
    yield _sse({"choices": [{"delta": {"role": "assistant", "content": THINKING, "phase": "think"}}]})
    yield _sse({"choices": [{"delta": {"content": "", "phase": "think", "status": "finished"}}]})
    for piece in pieces:
        yield _sse({"choices": [{"delta": {"role": "assistant", "content": piece, "phase": "answer"}}]})
    yield _sse({"choices": [{"delta": {"content": "", "phase": "answer", "status": "finished"}}]})


def kimi(pieces: list[str]) -> Iterator[bytes]:
    yield _frame({"heartbeat": {}})
    yield _frame({"op": "set", "mask": "chat", "chat": {"id": "c1", "name": "x" * 300}})
    yield _frame({"op": "set", "mask": "block.think", "block": {"id": "0", "think": {"content": THINKING}}})
    yield _frame({"op": "set", "mask": "block.text", "block": {"id": "1", "text": {"content": pieces[0]}}})
    for piece in pieces[1:]:
        yield _frame({"op": "append", "mask": "block.text.content", "block": {"text": {"content": piece}}})
    yield _frame({"op": "set", "mask": "message.status", "message": {"status": "MESSAGE_STATUS_COMPLETED"}})
    yield _frame({"metadata": {}}, flags=2)


def claude(pieces: list[str]) -> Iterator[bytes]:
    yield _sse({"type": "message_start", "message": {"role": "assistant"}}, "message_start")
    yield _sse(
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking"}},
        "content_block_start",
    )
    thinking = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "thinking_delta", "thinking": THINKING},
    }
    yield _sse(thinking, "content_block_delta")
    yield _sse(
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        "content_block_start",
    )
    for piece in pieces:
        delta = {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": piece}}
        yield _sse(delta, "content_block_delta")
    yield _sse({"type": "message_stop"}, "message_stop")


def doubao_samantha(pieces: list[str]) -> Iterator[bytes]:
    yield _sse({"event_type": 2002, "event_data": json.dumps({"conversation_id": "c"})})
    for piece in pieces:
        data = {"message": {"content": json.dumps({"text": piece}), "content_type": 2001}}
        yield _sse({"event_type": 2001, "event_data": json.dumps(data)})
    yield _sse({"event_type": 2003, "event_data": "{}"})


def gemini(pieces: list[str]) -> Iterator[bytes]:
    # StreamGenerate: `)]}'`, then length-prefixed batches; each `wrb.fr` item's third value is a
    # JSON string whose [4][0][1][0] is the answer so far (Gemini-API's reading of it).
    yield b")]}'\n\n"
    so_far = ""
    for piece in pieces:
        so_far += piece
        inner = [None, ["c_1", "r_1"], None, None, [["rc_1", [so_far]]]]
        line = json.dumps([["wrb.fr", None, json.dumps(inner)]])
        yield f"{len(line)}\n{line}\n".encode()


def gemini_message(form: bytes) -> str:
    """The user's message in StreamGenerate's form body: f.req = [null, "[[message, …], …]"]."""
    from urllib.parse import parse_qs

    f_req = parse_qs(form.decode())["f.req"][0]
    return str(json.loads(json.loads(f_req)[1])[0][0])


def tongyi(pieces: list[str]) -> Iterator[bytes]:
    # Each event carries the whole answer so far (the shipped adapter's text_mode "full").
    text = ""
    for piece in pieces:
        text += piece
        content = {"content": text, "contentType": "text", "role": "assistant"}
        yield _sse({"contents": [content], "msgStatus": "generating", "sessionId": "s1"})
    done = {"content": text, "contentType": "text", "role": "assistant"}
    yield _sse({"contents": [done], "msgStatus": "finished", "sessionId": "s1"})
    yield _sse("[DONE]")


@dataclass(frozen=True)
class Protocol:
    name: str  # the shipped adapter's
    path: str  # the endpoint the replica serves (its shipped adapter's request.url matches it)
    ctype: str
    message: Callable[[Any], str]  # the user's message in a decoded request body
    stream: Callable[[list[str]], Iterator[bytes]]
    binary: bool = False  # the body is a Connect envelope
    form: bool = False  # the body is a form (Gemini's f.req); `message` gets the bytes


def unframe(body: bytes) -> Any:
    """A Connect envelope's JSON message."""
    flags, length = struct.unpack(">BI", body[:5])
    assert flags == 0 and len(body) >= 5 + length
    return json.loads(body[5 : 5 + length])


PROTOCOLS = {
    p.name: p
    for p in (
        Protocol("deepseek", "/api/v0/chat/completion", "text/event-stream", lambda b: b["prompt"], deepseek),
        Protocol(
            "chatgpt",
            "/backend-anon/f/conversation",
            "text/event-stream; charset=utf-8",
            lambda b: b["messages"][-1]["content"]["parts"][0],
            chatgpt,
        ),
        Protocol(
            "doubao",
            "/chat/completion",
            "text/event-stream",
            lambda b: b["messages"][-1]["content_block"][0]["content"]["text_block"]["text"],
            doubao,
        ),
        Protocol(
            "claude",
            "/api/organizations/o1/chat_conversations/c1/completion",
            "text/event-stream",
            lambda b: b["prompt"],
            claude,
        ),
        Protocol(
            "doubao-samantha",
            "/samantha/chat/completion",
            "text/event-stream",
            lambda b: json.loads(b["messages"][-1]["content"])["text"],
            doubao_samantha,
        ),
        Protocol(
            "gemini",
            "/u/1/_/BardChatUi/data/assistant.lamda.BardFrontendService/StreamGenerate",
            "application/json+protobuf; charset=UTF-8",
            gemini_message,
            gemini,
            form=True,
        ),
        Protocol(
            "qwen",
            "/api/v2/chat/completions",
            "text/event-stream",
            lambda b: b["messages"][-1]["content"],
            qwen,
        ),
        Protocol(
            "tongyi",
            "/dialog/conversation",
            "text/event-stream;charset=UTF-8",
            lambda b: b["contents"][-1]["content"],
            tongyi,
        ),
        Protocol(
            "kimi",
            "/apiv2/kimi.gateway.chat.v1.ChatService/Chat",
            "application/connect+json",
            lambda b: b["message"]["blocks"][0]["text"]["content"],
            kimi,
            binary=True,
        ),
    )
}
