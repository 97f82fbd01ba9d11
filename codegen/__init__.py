"""Generator: schema documents -> Python bindings, host declarations and the packaged schema copy."""
