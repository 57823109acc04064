#!/usr/bin/env python3
"""An OpenAI Chat Completions adapter for conform, in Python with the standard
library only, speaking conform's adapter protocol (docs/adapter-protocol.md):
one JSON question per line on stdin, one JSON answer per line on stdout.

It supports decode_response, decode_stream and encode_request; it answers
"unsupported" to the other operations, which conform reports as skipped,
never as passed.
"""

import json
import sys

FINISH = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
}


class DecodeError(Exception):
    def __init__(self, message, offset=None):
        super().__init__(message)
        self.offset = offset


def finish_event(raw):
    return {"kind": "finish", "finish_reason": FINISH.get(raw, "other"), "provider_finish_reason": raw}


def usage_of(u):
    return {"input_tokens": u.get("prompt_tokens") or 0, "output_tokens": u.get("completion_tokens") or 0}


def arguments_text(args):
    """Arguments arrive as a string, or (some servers) as an object."""
    if args is None:
        return ""
    if isinstance(args, str):
        return args
    return json.dumps(args, separators=(",", ":"))


def sse_events(body):
    """Yields (offset, data) for each SSE event of body, per the WHATWG rules
    that matter here: any line end, comments, multi-line data."""
    if body.startswith("\ufeff"):
        body = body[1:]
    data, has_data, offset, pos, start = [], False, 0, 0, 0
    n = len(body)
    while pos <= n:
        end = pos
        while end < n and body[end] not in "\r\n":
            end += 1
        line = body[pos:end]
        if end < n and body[end] == "\r" and end + 1 < n and body[end + 1] == "\n":
            nxt = end + 2
        else:
            nxt = end + 1
        if end >= n and line == "":
            break
        if line == "":
            if has_data:
                yield start, "\n".join(data)
            data, has_data = [], False
        elif not line.startswith(":"):
            field, _, value = line.partition(":")
            if value.startswith(" "):
                value = value[1:]
            if field == "data":
                if not has_data:
                    start = pos
                data.append(value)
                has_data = True
        pos = nxt
    if has_data:
        # Many providers end without a final blank line.
        yield start, "\n".join(data)


def decode_stream(body):
    events = []
    for offset, data in sse_events(body):
        if data.strip() == "" or data.strip() == "[DONE]":
            continue
        try:
            chunk = json.loads(data)
        except json.JSONDecodeError as e:
            raise DecodeError("invalid JSON in an event: %s" % e.msg, offset + e.pos)
        if not isinstance(chunk, dict):
            raise DecodeError("an event is not a JSON object", offset)
        if chunk.get("error"):
            err = chunk["error"]
            events.append({"kind": "error", "error": {"message": str(err.get("message", err)), "type": str(err.get("type") or "")}})
            continue
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if delta.get("content"):
                events.append({"kind": "text", "text": delta["content"]})
            for tc in delta.get("tool_calls") or []:
                fn = tc.get("function") or {}
                c = {"args_delta": arguments_text(fn.get("arguments"))}
                if isinstance(tc.get("index"), int):
                    c["index"], c["has_index"] = tc["index"], True
                if tc.get("id"):
                    c["id"] = tc["id"]
                if fn.get("name"):
                    c["name"] = fn["name"]
                kind = "call_start" if tc.get("id") or fn.get("name") else "call_delta"
                events.append({"kind": kind, "chunk": c})
            if choice.get("finish_reason"):
                events.append(finish_event(choice["finish_reason"]))
        if chunk.get("usage"):
            events.append({"kind": "usage", "usage": usage_of(chunk["usage"])})
    return events


def decode_response(body):
    try:
        doc = json.loads(body)
    except json.JSONDecodeError as e:
        raise DecodeError("invalid JSON: %s" % e.msg, e.pos)
    if doc.get("error"):
        err = doc["error"]
        return {"message": {"role": "assistant", "parts": []}, "error": {"message": str(err.get("message", "")), "type": str(err.get("type") or "")}}
    choices = doc.get("choices") or []
    if not choices:
        raise DecodeError("the response has no choices")
    msg = choices[0].get("message") or {}
    parts = []
    if msg.get("content"):
        parts.append({"kind": "text", "text": msg["content"]})
    for tc in msg.get("tool_calls") or []:
        fn = tc.get("function") or {}
        args = arguments_text(fn.get("arguments")) or "{}"
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            pass  # not repaired here: the text goes back as a JSON string
        parts.append({"kind": "tool_call", "call": {"id": tc.get("id", ""), "name": fn.get("name", ""), "arguments": args}})
    resp = {"id": doc.get("id", ""), "model": doc.get("model", ""), "message": {"role": "assistant", "parts": parts}}
    raw = choices[0].get("finish_reason")
    if raw:
        resp["finish_reason"] = FINISH.get(raw, "other")
        resp["provider_finish_reason"] = raw
    if doc.get("usage"):
        resp["usage"] = usage_of(doc["usage"])
    return resp


def encode_request(req):
    messages = []
    for m in req.get("messages") or []:
        role, parts = m["role"], m.get("parts") or []
        text = "".join(p.get("text", "") for p in parts if p["kind"] == "text")
        if role == "tool" or any(p["kind"] == "tool_result" for p in parts):
            for p in parts:
                if p["kind"] == "tool_result":
                    r = p["result"]
                    content = "".join(c.get("text", "") for c in r.get("content") or [])
                    messages.append({"role": "tool", "tool_call_id": r["call_id"], "content": content})
            continue
        out = {"role": role, "content": text or None}
        calls = [p["call"] for p in parts if p["kind"] == "tool_call"]
        if calls:
            out["tool_calls"] = [
                {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments"), separators=(",", ":"))}}
                for c in calls
            ]
        messages.append(out)
    out = {"model": req.get("model", ""), "messages": messages}
    if req.get("tools"):
        out["tools"] = [
            {"type": "function", "function": {"name": t["name"], "description": t.get("description", ""), "parameters": t["input_schema"]}}
            for t in req["tools"]
        ]
    if req.get("stream"):
        out["stream"] = True
    return json.dumps(out)


def answer(q):
    op = q.get("op")
    if op == "hello":
        return {"name": "openai-chat", "ops": ["decode_response", "decode_stream", "encode_request"]}
    try:
        if op == "decode_stream":
            return {"events": decode_stream(q.get("body", ""))}
        if op == "decode_response":
            return {"response": decode_response(q.get("body", ""))}
        if op == "encode_request":
            return {"body": encode_request(q["request"])}
    except DecodeError as e:
        err = {"message": str(e)}
        if e.offset is not None:
            err["offset"] = e.offset
        return {"error": err}
    return {"unsupported": True}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        q = json.loads(line)
        a = answer(q)
        a["id"] = q["id"]
        sys.stdout.write(json.dumps(a) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
