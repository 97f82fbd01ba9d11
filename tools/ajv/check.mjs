// Loads every published control-plane schema from the installed folder with Ajv's draft 2020-12
// build in strict mode, then validates the cases given on stdin: [{schema, instance, valid, name}].
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const folder = process.argv[2];
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
const ids = {};
for (const name of readdirSync(folder).sort()) {
  if (!name.endsWith(".schema.json")) continue;
  const schema = JSON.parse(readFileSync(join(folder, name), "utf8"));
  ajv.addSchema(schema);
  ids[name.replace(/\.schema\.json$/, "")] = schema.$id;
}
const report = { loaded: Object.keys(ids), compiled: [], results: [] };
for (const [name, id] of Object.entries(ids)) {
  ajv.getSchema(id); // compiles it, resolving every $ref: strict mode throws on anything unknown
  report.compiled.push(name);
}
const cases = JSON.parse(readFileSync(0, "utf8"));
for (const item of cases) {
  const validate = ajv.getSchema(ids[item.schema]);
  const ok = validate(item.instance);
  report.results.push({
    name: item.name,
    schema: item.schema,
    expected: item.valid,
    valid: ok,
    errors: ok ? [] : ajv.errorsText(validate.errors),
  });
}
process.stdout.write(JSON.stringify(report));
