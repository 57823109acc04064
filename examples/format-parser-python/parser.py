#!/usr/bin/env python3
"""A Hermes tool-call text parser speaking conform's format-parser protocol.

Standard library only. conform writes one JSON question a line to standard
input and reads one JSON answer a line from standard output
(docs/format-parser-protocol.md). Run it with

    conform run --format-parser 'python3 examples/format-parser-python/parser.py' \
        --vectors testdata/textcalls
"""

import json
import sys

OPEN_THINK, CLOSE_THINK = "<think>", "</think>"
OPEN_CALL, CLOSE_CALL = "<tool_call>", "</tool_call>"
MAX_BODY = 4 << 20


def held_back(buf, markers):
    """How many bytes at the end of buf may begin one of markers."""
    best = 0
    for m in markers:
        for n in range(min(len(m) - 1, len(buf)), best, -1):
            if buf.endswith(m[:n]):
                best = n
                break
    return best


class Hermes:
    """<tool_call>{"name": N, "arguments": {...}}</tool_call>, with a
    <think>...</think> region that a call marker also ends."""

    def __init__(self, thinking_open, no_thinking):
        self.state = "think" if thinking_open and not no_thinking else "text"
        self.no_thinking = no_thinking
        self.buf = ""
        self.body = []
        self.body_len = 0
        self.calls = 0
        self.failed = False
        self.fresh_think = self.state == "think"

    def markers(self):
        if self.state == "text":
            return [OPEN_CALL] if self.no_thinking else [OPEN_CALL, OPEN_THINK]
        if self.state == "think":
            return [CLOSE_THINK, OPEN_CALL]
        return [CLOSE_CALL]

    def emit_text(self, out, text):
        if not text:
            return
        if self.state == "think":
            out.append({"kind": "thinking", "text": text})
        elif self.state == "call":
            self.body.append(text)
            self.body_len += len(text)
            if self.body_len > MAX_BODY:
                self.error(out, "call body longer than %d bytes" % MAX_BODY)
        else:
            out.append({"kind": "text", "text": text})

    def report(self, out, message):
        """An error about one call; parsing goes on."""
        out.append({"kind": "error", "error": {"type": "parse_error", "message": message}})

    def error(self, out, message):
        """A limit hit: the rest of the text is ignored."""
        out.append({"kind": "error", "error": {"type": "parse_error", "message": message}})
        self.failed = True

    def feed(self, delta, final=False):
        out = []
        if self.failed:
            return out
        self.buf += delta
        if self.fresh_think:
            # The prompt opened the region; the model may write <think> again.
            if OPEN_THINK.startswith(self.buf) and not final:
                return out
            if self.buf.startswith(OPEN_THINK):
                self.buf = self.buf[len(OPEN_THINK):]
            self.fresh_think = False
        while not self.failed:
            found = [(self.buf.find(m), m) for m in self.markers()]
            found = [(i, m) for i, m in found if i >= 0]
            if not found:
                keep = 0 if final else held_back(self.buf, self.markers())
                self.emit_text(out, self.buf[: len(self.buf) - keep])
                self.buf = self.buf[len(self.buf) - keep:]
                break
            i, m = min(found)
            self.emit_text(out, self.buf[:i])
            self.buf = self.buf[i + len(m):]
            if m == OPEN_THINK:
                self.state = "think"
            elif m == CLOSE_THINK:
                self.state = "text"
            elif m == OPEN_CALL:
                self.state, self.body, self.body_len = "call", [], 0
            else:
                self.end_call(out)
                self.state = "text"
        if final and self.state == "call" and not self.failed:
            # The text ended inside a call: its body is the call if it is a
            # whole call object (generation stopped before the closing
            # marker), else the call is reported cut.
            self.end_call(out, "the text ended inside a <tool_call>")
        return out

    def end_call(self, out, cut=None):
        """Ends a call body. A malformed one is an error; the text after
        it is still read."""
        text = "".join(self.body)
        try:
            if cut:
                # Generation stopped: the call is its first JSON value, as
                # the reference reads it.
                obj, _ = json.JSONDecoder().raw_decode(text.strip())
            else:
                obj = json.loads(text)
        except ValueError as e:
            self.report(out, cut or "malformed JSON in <tool_call>: %s" % e)
            return
        if not isinstance(obj, dict) or not isinstance(obj.get("name"), str) or not obj["name"]:
            self.report(out, cut or "a <tool_call> without a name")
            return
        args = obj.get("arguments", {})
        if isinstance(args, str):
            # Arguments serialized as a JSON string are that JSON.
            try:
                args = json.loads(args)
            except ValueError:
                pass
        chunk = {"index": self.calls, "has_index": True}
        out.append({"kind": "call_start", "chunk": dict(chunk, name=obj["name"])})
        out.append({"kind": "call_delta", "chunk": dict(chunk, args_delta=json.dumps(args, ensure_ascii=False))})
        out.append({"kind": "call_end", "chunk": chunk})
        self.calls += 1


FORMATS = {"hermes": Hermes}


def answer(q):
    op = q.get("op")
    if op == "hello":
        return {"id": q["id"], "formats": sorted(FORMATS)}
    if op != "parse":
        return {"id": q["id"], "error": {"message": "unknown op %r" % op}}
    make = FORMATS.get(q.get("format"))
    if make is None:
        return {"id": q["id"], "unsupported": True}
    p = make(q.get("thinking_open", False), q.get("no_thinking", False))
    events = [p.feed(d) for d in q.get("deltas", [])]
    events.append(p.feed("", final=True))
    return {"id": q["id"], "events": events}


def main():
    for line in sys.stdin:
        q = json.loads(line)
        sys.stdout.write(json.dumps(answer(q), ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
