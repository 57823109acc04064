#!/usr/bin/env python3
"""An OpenAI Chat Completions adapter for conform, in Python with the standard
library only, speaking conform's adapter protocol (docs/adapter-protocol.md):
one JSON question per line on stdin, one JSON answer per line on stdout.

It implements all six operations and passes every MUST case of the
openai-chat protocol (conform run --exec 'python3 adapter.py').
"""

import base64
import hashlib
import json
import re
import sys

FINISH = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
}
WIRE_FINISH = {"stop": "stop", "tool_calls": "tool_calls", "length": "length", "content_filter": "content_filter"}

# OpenAI answers 400 to tool_call ids over 40 characters (D04) and to tool
# names outside this pattern (E01, E02).
MAX_ID_LEN = 40
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


class DecodeError(Exception):
    def __init__(self, message, offset=None):
        super().__init__(message)
        self.offset = offset


class Refused(Exception):
    """A request the provider would reject; the message names the place."""


def finish_event(raw):
    return {"kind": "finish", "finish_reason": FINISH.get(raw, "other"), "provider_finish_reason": raw}


def usage_of(u):
    return {"input_tokens": u.get("prompt_tokens") or 0, "output_tokens": u.get("completion_tokens") or 0}


def provider_error(err):
    if not isinstance(err, dict):
        return {"message": str(err)}
    out = {"message": str(err.get("message", "")), "type": str(err.get("type") or "")}
    if err.get("code") is not None:
        out["code"] = str(err["code"])
    return out


def vendor_error(doc):
    """The provider error of a vendor error body ({"detail": ...} from
    FastAPI servers, {"errors": [...]} envelopes), or None."""
    detail = doc.get("detail")
    if isinstance(detail, str) and detail:
        return {"message": detail}
    if isinstance(detail, list) and detail:
        msgs = []
        for d in detail:
            if not isinstance(d, dict) or not d.get("msg"):
                return None
            loc = ".".join(str(x) for x in d.get("loc") or [])
            msgs.append(loc + ": " + d["msg"] if loc else d["msg"])
        return {"message": "; ".join(msgs)}
    errors = doc.get("errors")
    if isinstance(errors, list) and errors:
        msgs = [e.get("message") if isinstance(e, dict) else e for e in errors]
        if all(isinstance(m, str) and m for m in msgs):
            return {"message": "; ".join(msgs)}
    return None


def arguments_text(args):
    """Arguments arrive as a string, or (some servers) as an object."""
    if args is None:
        return ""
    if isinstance(args, str):
        return args
    return json.dumps(args, separators=(",", ":"))


def legacy_id(response_id, fc):
    """The id of a legacy function_call, which has none on the wire (F03):
    "function_call_" and 12 hex digits of SHA-256 of the response id, or of
    the call's name and arguments for a response without one, as the
    built-in adapter makes it, so streamed and whole responses agree."""
    if response_id:
        key = "id:" + response_id
    else:
        key = "call:" + (fc.get("name") or "") + "\x00" + json.dumps(fc.get("arguments"), separators=(",", ":"))
    return "function_call_" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


def signature_of(tc):
    """The thought signature Gemini's OpenAI-compatible API puts on a call."""
    extra = tc.get("extra_content") or {}
    for ns in ("google", "vertex"):
        sig = (extra.get(ns) or {}).get("thought_signature")
        if sig:
            return sig
    return ""


def sse_events(body):
    """Yields (line_offset, data_offset, data) in bytes for each SSE event of
    body, per the WHATWG rules that matter here: any line end, comments,
    multi-line data."""
    if body.startswith(b"\xef\xbb\xbf"):
        body, base = body[3:], 3
    else:
        base = 0
    data, has_data, pos, start, dstart = [], False, 0, 0, 0
    n = len(body)
    while pos < n:
        end = pos
        while end < n and body[end] not in b"\r\n":
            end += 1
        line = body[pos:end]
        if end < n and body[end] == 13 and end + 1 < n and body[end + 1] == 10:
            nxt = end + 2
        else:
            nxt = end + 1
        if line == b"":
            if has_data:
                yield base + start, base + dstart, b"\n".join(data)
            data, has_data = [], False
        elif not line.startswith(b":"):
            field, colon, value = line.partition(b":")
            skip = len(field) + len(colon)
            if value.startswith(b" "):
                value, skip = value[1:], skip + 1
            if field == b"data":
                if not has_data:
                    start, dstart = pos, pos + skip
                data.append(value)
                has_data = True
        pos = nxt
    if has_data:
        # Many providers end without a final blank line.
        yield base + start, base + dstart, b"\n".join(data)


def parse_event(data, line_at, data_at):
    text = data.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        if e.msg.startswith("Unterminated") or e.pos >= len(text):
            at = data_at + len(data) - 1  # cut short: the fault is its end
        else:
            at = data_at + len(text[: e.pos].encode("utf-8"))
        raise DecodeError("invalid JSON: %s (event at byte %d)" % (e.msg, line_at), at)


def decode_stream(body, events):
    """Appends the events of body to events; raises DecodeError at a fault,
    with the events before it kept."""
    # The argument text so far of each call, by index: a gateway that
    # repeats the whole text in a final chunk (B02) sends a copy, which
    # replaces the text rather than being appended to it.
    so_far, finished = {}, False
    for line_at, data_at, data in sse_events(body):
        if data.strip() == b"[DONE]":
            if not finished:
                # The stream ended normally but never said why: a finish
                # with no reason, so that calls still open are complete (a
                # stream cut before [DONE] gets none, B09).
                events.append({"kind": "finish", "finish_reason": "other"})
                finished = True
            continue
        if data.strip() == b"":
            continue
        chunk = parse_event(data, line_at, data_at)
        if not isinstance(chunk, dict):
            raise DecodeError("an event is not a JSON object (event at byte %d)" % line_at, data_at)
        if chunk.get("error"):
            events.append({"kind": "error", "error": provider_error(chunk["error"])})
            continue
        if not events and vendor_error(chunk):
            events.append({"kind": "error", "error": vendor_error(chunk)})
            continue
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            thinking = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(thinking, str) and thinking:
                events.append({"kind": "thinking", "text": thinking})
            if isinstance(delta.get("content"), str) and delta["content"]:
                events.append({"kind": "text", "text": delta["content"]})
            for tc in delta.get("tool_calls") or []:
                fn = tc.get("function") or {}
                text = arguments_text(fn.get("arguments"))
                c = {"args_delta": text}
                if isinstance(tc.get("index"), int):
                    c["index"], c["has_index"] = tc["index"], True
                    prev = so_far.get(tc["index"], "")
                    if text and text == prev and is_json(prev):
                        c = {"args": text, "index": tc["index"], "has_index": True}
                    else:
                        so_far[tc["index"]] = prev + text
                if tc.get("id"):
                    c["id"] = tc["id"]
                if fn.get("name"):
                    c["name"] = fn["name"]
                sig = signature_of(tc)
                if sig:
                    c["signature"] = sig
                kind = "call_start" if tc.get("id") or fn.get("name") else "call_delta"
                events.append({"kind": kind, "chunk": c})
            fc = delta.get("function_call")
            if isinstance(fc, dict) and not delta.get("tool_calls"):
                c = {"id": legacy_id(chunk.get("id", ""), fc), "args_delta": arguments_text(fc.get("arguments"))}
                if fc.get("name"):
                    c["name"] = fc["name"]
                events.append({"kind": "call_start" if fc.get("name") else "call_delta", "chunk": c})
            if choice.get("finish_reason"):
                events.append(finish_event(choice["finish_reason"]))
                finished = True
        if chunk.get("usage"):
            events.append({"kind": "usage", "usage": usage_of(chunk["usage"])})
    return events


def is_json(text):
    try:
        json.loads(text)
        return True
    except json.JSONDecodeError:
        return False


def decode_response(body):
    try:
        doc = json.loads(body)
    except json.JSONDecodeError as e:
        raise DecodeError("invalid JSON: %s" % e.msg, len(body[: e.pos].encode("utf-8")))
    if not isinstance(doc, dict):
        raise DecodeError("the response is not a JSON object", 0)
    if doc.get("error"):
        return {"message": {"role": "assistant", "parts": []}, "error": provider_error(doc["error"])}
    if not doc.get("choices") and vendor_error(doc):
        return {"message": {"role": "assistant", "parts": []}, "finish_reason": "error", "error": vendor_error(doc)}
    choices = doc.get("choices") or []
    if not choices:
        raise DecodeError("the response has no choices")
    msg = choices[0].get("message") or {}
    parts = []
    thinking = msg.get("reasoning_content") or msg.get("reasoning")
    if isinstance(thinking, str) and thinking:
        parts.append({"kind": "thinking", "text": thinking})
    if isinstance(msg.get("content"), str) and msg["content"]:
        parts.append({"kind": "text", "text": msg["content"]})
    incomplete = []
    tool_calls = msg.get("tool_calls") or []
    fc = msg.get("function_call")
    if not tool_calls and isinstance(fc, dict):
        # The legacy form: one call, given the id the stream would get.
        tool_calls = [{"id": legacy_id(doc.get("id", ""), fc), "function": fc}]
    for tc in tool_calls:
        fn = tc.get("function") or {}
        text = arguments_text(fn.get("arguments"))
        call = {"id": tc.get("id", ""), "name": fn.get("name", "")}
        sig = signature_of(tc)
        if sig:
            call["signature"] = sig
        if text.strip() == "":
            call["arguments"] = {}
        else:
            try:
                call["arguments"] = json.loads(text)
            except json.JSONDecodeError:
                # Arguments that are not JSON make the call incomplete,
                # never complete: the text is kept as it came.
                call["original"] = text
                incomplete.append(call)
                continue
        parts.append({"kind": "tool_call", "call": call})
    resp = {"id": doc.get("id", ""), "model": doc.get("model", ""), "message": {"role": "assistant", "parts": parts}}
    if incomplete:
        resp["incomplete"] = incomplete
    raw = choices[0].get("finish_reason")
    if raw:
        resp["finish_reason"] = FINISH.get(raw, "other")
        resp["provider_finish_reason"] = raw
    if doc.get("usage"):
        resp["usage"] = usage_of(doc["usage"])
    return resp


def wire_id(call_id):
    """Maps an id over MAX_ID_LEN characters to "call_" and 24 base-62
    characters from SHA-256 (salted with attempt and block numbers), as the
    built-in adapter does, so that a call and its result keep one id."""
    if call_id == "" or len(call_id) <= MAX_ID_LEN:
        return call_id
    out, block = [], 0
    while len(out) < 24:
        salt = (0).to_bytes(8, "big") + block.to_bytes(8, "big")
        for c in hashlib.sha256(salt + call_id.encode("utf-8")).digest():
            if len(out) == 24:
                break
            if c < 248:
                out.append(BASE62[c % 62])
        block += 1
    return "call_" + "".join(out)


def check_history(messages):
    """Refuses a history OpenAI rejects: a call without a result (G01, G03),
    a result for no call or out of place (G02), a result without a call id
    (G06), and arguments that are not JSON (G09)."""
    problems, seen, pending = [], set(), []

    def flush(at):
        for i, call in pending:
            where = "at the end of the history" if at is None else "before messages[%d]" % at
            problems.append("messages[%d]: call %r (%s) has no tool result %s (G01, G03)" % (i, call.get("id"), call.get("name"), where))
        pending.clear()

    for i, m in enumerate(messages):
        parts = m.get("parts") or []
        has_result = any(p.get("kind") == "tool_result" for p in parts)
        has_other = any(p.get("kind") != "tool_result" for p in parts)
        if m.get("role") == "assistant" or not has_result:
            flush(i)
        for j, p in enumerate(parts):
            if p.get("kind") == "tool_call" and p.get("call"):
                call = p["call"]
                if call.get("arguments") is None and call.get("original"):
                    problems.append("messages[%d].parts[%d]: call %r: arguments are not JSON: %r (G09)" % (i, j, call.get("id"), call["original"]))
                seen.add(call.get("id"))
                pending.append((i, call))
            elif p.get("kind") == "tool_result" and p.get("result") is not None:
                cid = p["result"].get("call_id") or ""
                if cid == "":
                    problems.append("messages[%d].parts[%d]: tool result without a call id (G06)" % (i, j))
                    continue
                k = next((n for n, (_, c) in enumerate(pending) if c.get("id") == cid), -1)
                if k >= 0:
                    del pending[k]
                elif cid in seen:
                    problems.append("messages[%d].parts[%d]: result for %r does not follow its call's assistant message, or answers it twice (G02)" % (i, j, cid))
                else:
                    problems.append("messages[%d].parts[%d]: result for %r answers no earlier call (G02)" % (i, j, cid))
        if m.get("role") != "assistant" and has_result and has_other:
            flush(i)
    flush(None)
    if problems:
        raise Refused("messages: history the provider rejects: " + "; ".join(problems))


def text_content(parts):
    """Text parts as a content value: "" for none, a string for one, an
    array of text parts for several (G10)."""
    texts = [p.get("text", "") for p in parts if p.get("kind") == "text"]
    if not texts:
        return ""
    if len(texts) == 1:
        return texts[0]
    return [{"type": "text", "text": t} for t in texts]


def wire_call(call):
    args = call.get("arguments")
    if args is None:
        text = call.get("original") or "{}"
    elif isinstance(args, str):
        text = args
    else:
        text = json.dumps(args, separators=(",", ":"), ensure_ascii=False)
    out = {"id": wire_id(call.get("id", "")), "type": "function", "function": {"name": call.get("name", ""), "arguments": text}}
    if call.get("signature"):
        out["extra_content"] = {"google": {"thought_signature": call["signature"]}}
    return out


def encode_messages(messages):
    out = []
    for i, m in enumerate(messages):
        role, parts = m.get("role"), m.get("parts") or []
        if role == "system":
            out.append({"role": "system", "content": text_content(parts)})
        elif role in ("user", "tool"):
            if role == "tool" and not parts:
                raise Refused("messages[%d].parts: tool message without results" % i)
            texts = []
            for j, p in enumerate(parts):
                if p.get("kind") == "tool_result":
                    r = p.get("result") or {}
                    out.append({"role": "tool", "tool_call_id": wire_id(r.get("call_id", "")), "content": text_content(r.get("content") or [])})
                elif p.get("kind") == "text":
                    texts.append(p)
                else:
                    raise Refused("messages[%d].parts[%d].kind: a %s message cannot hold a %s part" % (i, j, role, p.get("kind")))
            results = any(p.get("kind") == "tool_result" for p in parts)
            if role == "user" and (texts or not results):
                out.append({"role": "user", "content": text_content(texts)})
        elif role == "assistant":
            wm = {"role": "assistant"}
            thinking, calls = None, []
            for p in parts:
                if p.get("kind") in ("thinking", "plan"):
                    thinking = (thinking or "") + p.get("text", "")
                elif p.get("kind") == "tool_call":
                    calls.append(wire_call(p.get("call") or {}))
            if any(p.get("kind") == "text" for p in parts) or not calls:
                wm["content"] = text_content(parts)
            if thinking is not None:
                wm["reasoning_content"] = thinking
            if calls:
                wm["tool_calls"] = calls
            out.append(wm)
        else:
            raise Refused("messages[%d].role: unknown role %r" % (i, role))
    return out


def results_in_call_order(messages):
    """Puts the tool messages that follow an assistant message in the order
    of its calls (G05): servers that pair them by position would otherwise
    swap the answers."""
    for i, m in enumerate(messages):
        if m["role"] != "assistant" or not m.get("tool_calls"):
            continue
        order = [c["id"] for c in m["tool_calls"]]
        j = i + 1
        while j < len(messages) and messages[j]["role"] == "tool":
            j += 1
        run = messages[i + 1 : j]
        run.sort(key=lambda t: order.index(t["tool_call_id"]) if t["tool_call_id"] in order else len(order))
        messages[i + 1 : j] = run
    return messages


def encode_request(req):
    out = {"model": req.get("model", ""), "messages": results_in_call_order(encode_messages(req.get("messages") or []))}
    check_history(req.get("messages") or [])
    tools = []
    for i, t in enumerate(req.get("tools") or []):
        name = t.get("name", "")
        if not TOOL_NAME.match(name):
            raise Refused("tools[%d].name: tool name %r must match ^[a-zA-Z0-9_-]{1,64}$ (E01, E02)" % (i, name))
        params = t.get("input_schema")
        if params is None:
            params = {"type": "object", "properties": {}}
        fn = {"name": name, "description": t.get("description", ""), "parameters": params}
        if t.get("strict"):
            try:
                fn["parameters"] = strict_schema(params)
            except Refused as e:
                raise Refused("tools[%d] %r: strict schema: %s" % (i, name, e))
            fn["strict"] = True
        tools.append({"type": "function", "function": fn})
    if tools:
        out["tools"] = tools
    tc = req.get("tool_choice")
    if tc:
        mode = tc.get("mode")
        if mode in ("auto", "none", "required"):
            out["tool_choice"] = mode
        elif mode == "tool":
            out["tool_choice"] = {"type": "function", "function": {"name": tc.get("name", "")}}
        else:
            raise Refused("tool_choice.mode: unknown mode %r" % mode)
    if req.get("parallel_tool_calls") is not None:
        out["parallel_tool_calls"] = req["parallel_tool_calls"]
    rf = req.get("response_format")
    if rf:
        out["response_format"] = {"type": "json_schema", "json_schema": {"name": rf.get("name", ""), "schema": rf.get("schema"), "strict": bool(rf.get("strict"))}}
    if req.get("max_tokens"):
        out["max_tokens"] = req["max_tokens"]
    if req.get("stream"):
        out["stream"] = True
    return json.dumps(out, ensure_ascii=False)


def strict_schema(schema):
    """Rewrites a JSON Schema into the form OpenAI strict mode accepts (H03):
    every object schema closed and every property required, optional ones
    made nullable; refuses what strict mode cannot express."""
    if not isinstance(schema, dict):
        raise Refused("#: strict mode needs an object schema at the root")
    if schema.get("type", "object" if is_object(schema) else None) != "object" or "anyOf" in schema:
        raise Refused("#: strict mode needs \"type\": \"object\" at the root")
    return strict_node(schema, "")


TYPE_KEYWORDS = ("type", "$ref", "anyOf", "oneOf", "allOf", "not", "enum", "const")


def is_object(m):
    t = m.get("type")
    if isinstance(t, str):
        return t == "object"
    if isinstance(t, list):
        return "object" in t
    return "properties" in m


def strict_node(v, ptr):
    if not isinstance(v, dict):
        return v
    out = dict(v)
    for k in ("items", "not", "additionalItems", "contains"):
        if isinstance(out.get(k), dict):
            out[k] = strict_node(out[k], ptr + "/" + k)
    for k in ("anyOf", "oneOf", "allOf", "prefixItems", "items"):
        if isinstance(out.get(k), list):
            out[k] = [strict_node(x, "%s/%s/%d" % (ptr, k, i)) for i, x in enumerate(out[k])]
    for k in ("$defs", "definitions"):
        if isinstance(out.get(k), dict):
            out[k] = {name: strict_node(d, ptr + "/" + k + "/" + name) for name, d in out[k].items()}
    if not is_object(out):
        if not any(k in out for k in TYPE_KEYWORDS):
            raise Refused("#%s: strict mode needs a type on every schema node" % ptr)
        return out
    if "additionalProperties" in out and out["additionalProperties"] is not False:
        raise Refused("#%s/additionalProperties: strict mode needs additionalProperties false" % ptr)
    out.setdefault("type", "object")
    props = out.get("properties") or {}
    required = set(r for r in out.get("required") or [] if isinstance(r, str))
    new = {}
    for name, p in props.items():
        r = strict_node(p, ptr + "/properties/" + name)
        new[name] = r if name in required else nullable(r)
    out["properties"] = new
    out["required"] = sorted(new)
    out["additionalProperties"] = False
    return out


def nullable(v):
    def or_null(x):
        return {"anyOf": [x, {"type": "null"}]}

    if not isinstance(v, dict):
        return or_null(v)
    if "const" in v:
        return v if v["const"] is None else or_null(v)
    if any(k in v for k in ("allOf", "oneOf", "not")):
        return or_null(v)
    out = dict(v)
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = out["enum"] + [None]
    t = out.get("type")
    if isinstance(t, str):
        if t != "null":
            out["type"] = [t, "null"]
        return out
    if isinstance(t, list):
        if "null" not in t:
            out["type"] = t + ["null"]
        return out
    if isinstance(out.get("anyOf"), list):
        if not any(isinstance(x, dict) and x.get("type") == "null" for x in out["anyOf"]):
            out["anyOf"] = out["anyOf"] + [{"type": "null"}]
        return out
    return or_null(v)


def decode_content(content):
    if content is None:
        return []
    if isinstance(content, str):
        return [{"kind": "text", "text": content}] if content else []
    return [{"kind": "text", "text": c.get("text", "")} for c in content if isinstance(c, dict) and c.get("type") == "text"]


def decode_request(body):
    try:
        w = json.loads(body)
    except json.JSONDecodeError as e:
        raise DecodeError("invalid JSON: %s" % e.msg, len(body[: e.pos].encode("utf-8")))
    req = {"model": w.get("model", ""), "messages": []}
    for wm in w.get("messages") or []:
        role = wm.get("role")
        if role == "tool":
            result = {"call_id": wm.get("tool_call_id", ""), "content": decode_content(wm.get("content"))}
            prev = req["messages"][-1] if req["messages"] else None
            if prev and prev["role"] == "tool":
                prev["parts"].append({"kind": "tool_result", "result": result})
            else:
                req["messages"].append({"role": "tool", "parts": [{"kind": "tool_result", "result": result}]})
            continue
        parts = []
        thinking = wm.get("reasoning_content") or wm.get("reasoning")
        if role == "assistant" and isinstance(thinking, str):
            parts.append({"kind": "thinking", "text": thinking})
        parts += decode_content(wm.get("content"))
        for tc in wm.get("tool_calls") or []:
            fn = tc.get("function") or {}
            text = arguments_text(fn.get("arguments"))
            call = {"id": tc.get("id", ""), "name": fn.get("name", "")}
            try:
                call["arguments"] = json.loads(text) if text.strip() else {}
            except json.JSONDecodeError:
                call["original"] = text
            sig = signature_of(tc)
            if sig:
                call["signature"] = sig
            parts.append({"kind": "tool_call", "call": call})
        req["messages"].append({"role": role, "parts": parts})
    tools = []
    for t in w.get("tools") or []:
        if t.get("type", "function") != "function":
            continue
        fn = t.get("function") or {}
        spec = {"name": fn.get("name", ""), "description": fn.get("description", ""), "input_schema": fn.get("parameters")}
        if fn.get("strict"):
            spec["strict"] = True
        tools.append(spec)
    if tools:
        req["tools"] = tools
    tc = w.get("tool_choice")
    if isinstance(tc, str) and tc in ("auto", "none", "required"):
        req["tool_choice"] = {"mode": tc}
    elif isinstance(tc, dict) and (tc.get("function") or {}).get("name"):
        req["tool_choice"] = {"mode": "tool", "name": tc["function"]["name"]}
    if w.get("parallel_tool_calls") is not None:
        req["parallel_tool_calls"] = w["parallel_tool_calls"]
    rf = w.get("response_format")
    if isinstance(rf, dict) and rf.get("type") == "json_schema" and rf.get("json_schema"):
        js = rf["json_schema"]
        req["response_format"] = {"name": js.get("name", ""), "schema": js.get("schema")}
        if js.get("strict"):
            req["response_format"]["strict"] = True
    n = w.get("max_tokens") or w.get("max_completion_tokens")
    if n:
        req["max_tokens"] = n
    if w.get("stream"):
        req["stream"] = True
    return req


def wire_finish(reason, raw):
    return raw or WIRE_FINISH.get(reason, "stop")


def encode_response(resp):
    msg = {"role": "assistant", "content": None}
    texts, calls = [], []
    for p in (resp.get("message") or {}).get("parts") or []:
        if p.get("kind") == "text":
            texts.append(p.get("text", ""))
        elif p.get("kind") in ("thinking", "plan"):
            msg["reasoning_content"] = msg.get("reasoning_content", "") + p.get("text", "")
        elif p.get("kind") == "tool_call":
            calls.append(wire_call(p.get("call") or {}))
    for c in resp.get("incomplete") or []:
        calls.append(wire_call(c))
    if texts:
        msg["content"] = "".join(texts)
    if calls:
        msg["tool_calls"] = calls
    if resp.get("error"):
        return json.dumps({"error": resp["error"]})
    doc = {"id": resp.get("id", ""), "object": "chat.completion", "model": resp.get("model", ""),
           "choices": [{"index": 0, "message": msg, "finish_reason": wire_finish(resp.get("finish_reason"), resp.get("provider_finish_reason")) if resp.get("finish_reason") or resp.get("provider_finish_reason") else None}]}
    u = resp.get("usage")
    if u:
        doc["usage"] = {"prompt_tokens": u.get("input_tokens", 0), "completion_tokens": u.get("output_tokens", 0),
                        "total_tokens": u.get("input_tokens", 0) + u.get("output_tokens", 0)}
    return json.dumps(doc, ensure_ascii=False)


def encode_stream(events):
    """Writes canonical events as Chat Completions SSE, one chunk per event.
    Calls are numbered by index in order of first appearance."""
    out, indexes = [], {}

    def chunk(delta=None, finish=None, usage=None):
        c = {"id": "chatcmpl-conform", "object": "chat.completion.chunk", "choices": []}
        if delta is not None or finish is not None:
            c["choices"].append({"index": 0, "delta": delta or {}, "finish_reason": finish})
        if usage is not None:
            c["usage"] = usage
        out.append("data: " + json.dumps(c, ensure_ascii=False) + "\n\n")

    for ev in events:
        kind = ev.get("kind")
        if kind == "text":
            chunk({"content": ev.get("text", "")})
        elif kind in ("thinking", "plan"):
            chunk({"reasoning_content": ev.get("text", "")})
        elif kind in ("call_start", "call_delta"):
            c = ev.get("chunk") or {}
            key = c.get("id") or c.get("index", 0) if not c.get("has_index") else ("i", c.get("index"))
            if c.get("has_index"):
                index = c["index"]
            else:
                index = indexes.setdefault(key, len(indexes))
            tc = {"index": index, "function": {"arguments": c.get("args_delta", c.get("args", ""))}}
            if c.get("id"):
                tc["id"], tc["type"] = c["id"], "function"
            if c.get("name"):
                tc["function"]["name"] = c["name"]
            if c.get("signature"):
                tc["extra_content"] = {"google": {"thought_signature": c["signature"]}}
            chunk({"tool_calls": [tc]})
        elif kind == "finish":
            chunk(finish=wire_finish(ev.get("finish_reason"), ev.get("provider_finish_reason")))
        elif kind == "usage":
            u = ev.get("usage") or {}
            chunk(usage={"prompt_tokens": u.get("input_tokens", 0), "completion_tokens": u.get("output_tokens", 0)})
        elif kind == "error":
            out.append("data: " + json.dumps({"error": ev.get("error") or {}}) + "\n\n")
    out.append("data: [DONE]\n\n")
    return "".join(out)


def body_of(q):
    if "body_base64" in q:
        return base64.b64decode(q["body_base64"])
    return q.get("body", "").encode("utf-8")


OPS = ["encode_request", "decode_request", "encode_response", "decode_response", "decode_stream", "encode_stream"]


def answer(q):
    op = q.get("op")
    if op == "hello":
        return {"name": "openai-chat", "ops": OPS}
    events = []
    try:
        if op == "decode_stream":
            return {"events": decode_stream(body_of(q), events)}
        if op == "decode_response":
            return {"response": decode_response(body_of(q).decode("utf-8", "replace"))}
        if op == "decode_request":
            return {"request": decode_request(body_of(q).decode("utf-8", "replace"))}
        if op == "encode_request":
            return {"body": encode_request(q["request"])}
        if op == "encode_response":
            return {"body": encode_response(q["response"])}
        if op == "encode_stream":
            return {"body": encode_stream(q.get("events") or [])}
    except DecodeError as e:
        err = {"message": str(e)}
        if e.offset is not None:
            err["offset"] = e.offset
        # A stream answers with the events before the fault, too.
        return {"error": err, "events": events} if op == "decode_stream" else {"error": err}
    except Refused as e:
        return {"error": {"message": str(e)}}
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
