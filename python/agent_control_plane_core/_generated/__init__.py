# DO NOT EDIT: this file is generated.
# source: schema/control-plane/v1/
# template: templates/python/generated_init.py.j2
# regenerate: make codegen (python -m codegen)

"""Generated code only: bindings, constants and host declarations from the schema documents."""
