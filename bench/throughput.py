"""In-process parse+render throughput per adapter, in events per second."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from _common import HOOK_PAYLOADS, OBSERVED_FORMS, adapter_options, library_payload

from agent_control_plane_core import AGENT_IDS, Adapter, Verdict, adapter_for
from agent_control_plane_core.runtime import demo_judge, entry_adapter, render_hook_response

TARGET_EVENTS_PER_S = 100_000
TARGET_ROW = "claude parse+render"
# Issue 13: parse+render of a decoded payload at least as fast as json.loads + json.dumps of it.
TARGET_JSON_RATIO = 1.0


def _parse_render(adapter: Adapter, payload: dict[str, Any], verdict: Verdict, count: int) -> None:
    """Parse payload and render verdict for it count times (the loop the rate counts)."""
    for _ in range(count):
        adapter.render(verdict, adapter.parse(payload))


def _json_round_trip(text: str, count: int) -> None:
    """json.loads the payload text and json.dumps the value count times (the baseline)."""
    for _ in range(count):
        json.dumps(json.loads(text))


def _hook_answer(adapter: Adapter, raw: str, count: int) -> None:
    """Answer the raw hook text count times, as a hook entry does after reading stdin."""
    for _ in range(count):
        render_hook_response(adapter, raw, demo_judge)


def _rate(run: Callable[[int], object], seconds: float, repeats: int) -> dict[str, float]:
    """Events per second of run(count): the median, best and worst of repeats of about seconds."""
    batch = 1000
    run(batch)  # warm-up: caches, the first adapter variant, re's compiled patterns
    rates = []
    for _ in range(repeats):
        done = 0
        start = time.perf_counter()
        while True:
            run(batch)
            done += batch
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        rates.append(done / elapsed)
    return {"median": statistics.median(rates), "best": max(rates), "worst": min(rates)}


def measure(seconds: float = 0.5, repeats: int = 7) -> dict[str, Any]:
    """Time parse+render of an allow per adapter, and the whole in-process hook answer."""
    rows = []
    allow = Verdict(decision="allow")
    # Issue 13: every adapter; a host whose pinned version sends another form than its golden
    # call also gets the golden one, as a reference row.
    runs = [(agent, False) for agent in AGENT_IDS]
    runs += [(agent, True) for agent in AGENT_IDS if agent in OBSERVED_FORMS]
    for agent, golden in runs:
        name = f"{agent} parse+render" + (", golden call" if golden else "")
        print(f"  {name}", file=sys.stderr, flush=True)
        adapter = adapter_for(agent, **adapter_options(agent))
        payload = library_payload(agent, golden=golden)
        text = json.dumps(payload)
        # Interleaved repeats of the two loops, so load from other processes hits both alike.
        pairs = [
            (
                _rate(partial(_parse_render, adapter, payload, allow), seconds, 1),
                _rate(partial(_json_round_trip, text), seconds, 1),
            )
            for _ in range(repeats)
        ]
        rate = _merge([ours for ours, _ in pairs])
        baseline = _merge([base for _, base in pairs])
        rows.append(
            {
                "name": name,
                **rate,
                "json_median": baseline["median"],
                "json_ratio": rate["median"] / baseline["median"],
                "reference": golden,
            }
        )
    # What a hook does after reading stdin: json.loads, parse, demo judge, sanitize, escalate.
    raw = json.dumps(HOOK_PAYLOADS["claude"])
    adapter = entry_adapter("claude", {})
    rate = _rate(partial(_hook_answer, adapter, raw), seconds, repeats)
    rows.append({"name": "claude hook answer (text in, response out)", **rate})
    return {
        "target": TARGET_EVENTS_PER_S,
        "target_row": TARGET_ROW,
        "json_target": TARGET_JSON_RATIO,
        "rows": rows,
    }


def _merge(rates: list[dict[str, float]]) -> dict[str, float]:
    """One summary of single-repeat rates: the median of their medians, best and worst."""
    medians = [rate["median"] for rate in rates]
    return {"median": statistics.median(medians), "best": max(medians), "worst": min(medians)}


def main() -> None:
    """Print the throughput table as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=0.5, help="length of one repeat")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    json.dump(measure(args.seconds, args.repeats), sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
