#!/usr/bin/env python3
"""Turns the JobSet CRD's structural schema into the compact table the core compiles in.

The CRD is the fact: upstream JobSet v0.12.0's
config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml, as the sigs.k8s.io/jobset Go module
holds it (the module the e2e harness installs the CRD from). Usage:
  gen_crd_schema.py table CRD.yaml OUTPUT.json   the committed table (src/validation/)
  gen_crd_schema.py check CRD.yaml TABLE.json    exit 1, and say where, when TABLE.json differs
                                                 from what CRD.yaml gives
  gen_crd_schema.py embed TABLE.json OUTPUT.inc  the table as a C++ string literal (the build)

The table is a JSON list of nodes, one a line, the root first. A node keeps what the API server
validates and defaults with, never descriptions: type, format, nullable, required, enum,
minimum/maximum, minLength/maxLength, maxItems, pattern, default, the x-kubernetes- extensions
(int-or-string, preserve-unknown-fields, embedded-resource, list-type, list-map-keys, map-type,
validations) and its children by index: properties (name to index), items,
additionalProperties. Identical subtrees share one node (the three container lists, the many
quantity maps), so the table stays small. A schema construct the core does not know (anyOf other
than int-or-string's, allOf, oneOf, not) stops the generator: it must be modelled first.
"""
import json
import sys

import yaml

# The keywords copied as they are; the rest is either handled below or dropped (description).
KEPT = {
    "type": "type",
    "format": "format",
    "nullable": "nullable",
    "required": "required",
    "enum": "enum",
    "minimum": "minimum",
    "maximum": "maximum",
    "exclusiveMinimum": "exclusiveMinimum",
    "exclusiveMaximum": "exclusiveMaximum",
    "minLength": "minLength",
    "maxLength": "maxLength",
    "minItems": "minItems",
    "maxItems": "maxItems",
    "minProperties": "minProperties",
    "maxProperties": "maxProperties",
    "pattern": "pattern",
    "default": "default",
    "x-kubernetes-int-or-string": "intOrString",
    "x-kubernetes-preserve-unknown-fields": "preserveUnknownFields",
    "x-kubernetes-embedded-resource": "embeddedResource",
    "x-kubernetes-list-type": "listType",
    "x-kubernetes-list-map-keys": "listMapKeys",
    "x-kubernetes-map-type": "mapType",
}
# What a rule of x-kubernetes-validations says; src/validation/cel_rules.h applies each. A rule
# with another key stops the generator (below), so nothing the API server reads is dropped.
CEL_RULE_KEYS = ("rule", "message", "messageExpression", "reason", "fieldPath", "optionalOldSelf")
DROPPED = {"description", "example", "title"}
INT_OR_STRING = [{"type": "integer"}, {"type": "string"}]

# What upstream's main branch adds to v0.12.0's CRD and this project already enforces (see
# docs/ci-gating.md, "v0.12.0 plus main's additions"): written here, once, as (path, keyword, value),
# the path in the table's notation.
MAIN_ADDITIONS = [
    ("spec.replicatedJobs[].replicas", "minimum", 0),
]


def node_at(schema, path):
    for part in path.replace("[]", ".[]").split("."):
        schema = schema["items"] if part == "[]" else schema["properties"][part]
    return schema


class Table:
    def __init__(self):
        self.nodes = []
        self.index = {}

    def add(self, schema, where):
        node = {}
        for key, value in schema.items():
            if key in KEPT:
                node[KEPT[key]] = value
            elif key in DROPPED:
                continue
            elif key == "anyOf" and schema.get("x-kubernetes-int-or-string") and value == INT_OR_STRING:
                continue  # what int-or-string means, written out for OpenAPI v3 clients
            elif key == "properties":
                node["properties"] = {k: self.add(v, where + "." + k) for k, v in sorted(value.items())}
            elif key == "items":
                node["items"] = self.add(value, where + "[]")
            elif key == "additionalProperties":
                node["additionalProperties"] = (
                    value if isinstance(value, bool) else self.add(value, where + "{}"))
            elif key == "x-kubernetes-validations":
                for r in value:
                    if set(r) - set(CEL_RULE_KEYS):
                        raise SystemExit("gen_crd_schema.py: %s: a CEL rule's %s is not modelled" % (
                            where or ".", ", ".join(sorted(set(r) - set(CEL_RULE_KEYS)))))
                node["validations"] = [
                    {k: r[k] for k in CEL_RULE_KEYS if k in r} for r in value]
            else:
                raise SystemExit("gen_crd_schema.py: %s: %s is not modelled" % (where or ".", key))
        text = json.dumps(node, sort_keys=True, separators=(",", ":"))
        if text not in self.index:
            self.index[text] = len(self.nodes)
            self.nodes.append(text)
        return self.index[text]


def table_text(crd_path):
    with open(crd_path, encoding="utf-8") as f:
        crd = yaml.safe_load(f)
    versions = crd["spec"]["versions"]
    if len(versions) != 1:
        raise SystemExit("gen_crd_schema.py: one served version expected, found %d" % len(versions))
    schema = versions[0]["schema"]["openAPIV3Schema"]
    for path, keyword, value in MAIN_ADDITIONS:
        node_at(schema, path)[keyword] = value
    t = Table()
    root = t.add(schema, "")
    # The root last in post-order; written first, so that node 0 is the root: renumber.
    order = [root] + [i for i in range(len(t.nodes)) if i != root]
    new = {old: n for n, old in enumerate(order)}

    def renumber(text):
        node = json.loads(text)
        if "properties" in node:
            node["properties"] = {k: new[v] for k, v in node["properties"].items()}
        if "items" in node:
            node["items"] = new[node["items"]]
        if isinstance(node.get("additionalProperties"), int) and not isinstance(
                node["additionalProperties"], bool):
            node["additionalProperties"] = new[node["additionalProperties"]]
        return json.dumps(node, sort_keys=True, separators=(",", ":"))

    lines = [renumber(t.nodes[i]) for i in order]
    head = "%s %s, version %s" % (crd["spec"]["group"], crd["spec"]["names"]["kind"], versions[0]["name"])
    return ('{"_doc":"Generated by scripts/gen_crd_schema.py from the CRD of %s. Do not edit.",\n'
            '"nodes":[\n%s\n]}\n' % (head, ",\n".join(lines)))


def embed(table_path, dst):
    with open(table_path, encoding="utf-8") as f:
        text = f.read()
    json.loads(text)  # a broken table fails the build, not the first review
    # Raw string pieces under 16 KiB each: the limit the C++ standard lets a compiler impose on
    # one literal is 65,536 characters, after concatenation; one std::string_view array is read.
    pieces = [text[i:i + 16000] for i in range(0, len(text), 16000)]
    lines = ["// Generated by scripts/gen_crd_schema.py from %s. Do not edit." % table_path.split("/")[-1]]
    for p in pieces:
        if ")json\"" in p:
            raise SystemExit("gen_crd_schema.py: the table holds the literal's delimiter")
        lines.append('R"json(%s)json",' % p)
    with open(dst, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def main(argv):
    if len(argv) != 4 or argv[1] not in ("table", "check", "embed"):
        raise SystemExit(__doc__)
    mode, src, dst = argv[1:]
    if mode == "embed":
        return embed(src, dst)
    text = table_text(src)
    if mode == "table":
        with open(dst, "w", encoding="utf-8") as f:
            f.write(text)
        return 0
    with open(dst, encoding="utf-8") as f:
        committed = f.read()
    if committed == text:
        print("%s matches %s" % (dst, src))
        return 0
    import difflib
    sys.stdout.writelines(difflib.unified_diff(
        committed.splitlines(True), text.splitlines(True), dst, "from " + src, n=0))
    print("%s differs from the CRD: run scripts/gen_crd_schema.py table CRD.yaml %s" % (dst, dst))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
