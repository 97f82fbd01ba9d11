# DO NOT EDIT: this file is generated.
# source: schema/control-plane/v1/tool-call-event.schema.json
# source: schema/control-plane/v1/verdict.schema.json
# source: schema/control-plane/v1/native-response.schema.json
# template: templates/python/datamodel/dataclass.jinja2
# regenerate: make codegen (python -m codegen)

"""Contract dataclasses generated from the schema documents."""
