#!/usr/bin/env python3
"""A test adapter that answers hello properly and then misbehaves in the way
its first argument names: crash, hang, garbage, wrong-id, refuse (answers
every question "unsupported"), or echo (behaves)."""
import json
import sys
import time

mode = sys.argv[1]
for line in sys.stdin:
    q = json.loads(line)
    if q["op"] == "hello":
        ans = {"id": q["id"], "name": "misbehave-" + mode, "ops": ["decode_response", "decode_stream"]}
    elif mode == "crash":
        sys.stderr.write("misbehave: crashing on purpose\n")
        sys.exit(3)
    elif mode == "hang":
        time.sleep(60)
        continue
    elif mode == "garbage":
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
        continue
    elif mode == "refuse":
        ans = {"id": q["id"], "unsupported": True}
    elif mode == "wrong-id":
        ans = {"id": q["id"] + 100, "response": {"message": {"role": "assistant", "parts": []}}}
    else:
        ans = {"id": q["id"], "response": {"message": {"role": "assistant", "parts": [{"kind": "text", "text": q.get("body", "")}]}}}
    sys.stdout.write(json.dumps(ans) + "\n")
    sys.stdout.flush()
