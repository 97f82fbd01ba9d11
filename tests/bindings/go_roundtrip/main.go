// Round trip of the golden values through the generated Go types (tests/test_bindings.py):
// stdin {events, verdicts, natives, hosts} as JSON arrays; stdout the same arrays, each value
// decoded strictly into its type and encoded again, plus the encodings the contract pins.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"agent-control-plane-core.github.io/acp"
)

type corpus struct {
	Events   []json.RawMessage `json:"events"`
	Verdicts []json.RawMessage `json:"verdicts"`
	Natives  []json.RawMessage `json:"natives"`
	Hosts    []json.RawMessage `json:"hosts"`
}

func encode(value any) json.RawMessage {
	var out bytes.Buffer
	encoder := json.NewEncoder(&out)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(value); err != nil {
		fail(err)
	}
	return bytes.TrimSpace(out.Bytes())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func each[T any](values []json.RawMessage, decode func([]byte) (T, error)) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(values))
	for index, raw := range values {
		value, err := decode(raw)
		if err != nil {
			fail(fmt.Errorf("value %d: %w: %s", index, err, raw))
		}
		out = append(out, encode(value))
	}
	return out
}

func main() {
	var in corpus
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fail(err)
	}
	hosts := make([]json.RawMessage, 0, len(acp.AgentIDs))
	for _, agent := range acp.AgentIDs {
		hosts = append(hosts, encode(acp.Hosts[agent]))
	}
	_, unknown := acp.DecodeVerdict([]byte(`{"decision":"allow","mutated_ouput":1}`))
	reason := "r"
	out := map[string]any{
		"events":   each(in.Events, acp.DecodeToolCallEvent),
		"verdicts": each(in.Verdicts, acp.DecodeVerdict),
		"natives":  each(in.Natives, acp.DecodeNativeResponse),
		"hosts":    each(in.Hosts, acp.DecodeHostDeclaration),
		"declared": hosts,
		"zero":     encode(acp.Verdict{}),
		"null":     encode(acp.Verdict{Decision: acp.DecisionDeny, Reason: &reason, MutatedOutput: json.RawMessage("null")}),
		"unknown":  unknown != nil,
		"bash_key": acp.ModeledToolInputKeys["Bash"],
		"kinds":    acp.EventKinds,
	}
	os.Stdout.Write(encode(out))
}
