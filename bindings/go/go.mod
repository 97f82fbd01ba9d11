// DO NOT EDIT: this file is generated.
// source: schema/control-plane/v1/*.schema.json
// template: templates/go/go.mod.j2
// regenerate: make codegen (python -m codegen)

module agent-control-plane-core.github.io/acp

go 1.24
