"""The floor a hook is measured against: read the payload, json.load it, write a JSON body."""

import json
import sys

payload = json.load(sys.stdin)
event = payload.get("hook_event_name", "") if isinstance(payload, dict) else ""
sys.stdout.write(json.dumps({"hookSpecificOutput": {"hookEventName": event}}))
