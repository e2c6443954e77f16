#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/) from the example
JobSets (../shared/examples/jobset) and the test data (tests/data). The corpora are committed;
run this again only to refresh them. Needs PyYAML (Debian: python3-yaml). Usage:
  scripts/gen_fuzz_corpus.py [EXAMPLES_DIR]
Seeds are minified and named by content, so a rerun writes the same files.
"""
import copy
import hashlib
import json
import pathlib
import random
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "fuzz" / "corpus"


def minify(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def write(target, data):
    directory = CORPUS / target
    directory.mkdir(parents=True, exist_ok=True)
    (directory / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def review(operation, obj, old=None, api_version="admission.k8s.io/v1", uid="705ab4f5-6393-11e8-b7cc-42010a800002"):
    request = {
        "uid": uid,
        "kind": {"group": "jobset.x-k8s.io", "version": "v1alpha2", "kind": "JobSet"},
        "resource": {"group": "jobset.x-k8s.io", "version": "v1alpha2", "resource": "jobsets"},
        "name": obj.get("metadata", {}).get("name", "") if isinstance(obj, dict) else "",
        "namespace": "default",
        "operation": operation,
        "object": obj,
        "dryRun": False,
    }
    if old is not None:
        request["oldObject"] = old
    return {"apiVersion": api_version, "kind": "AdmissionReview", "request": request}


def first_image_changed(js):
    out = copy.deepcopy(js)
    for rj in out["spec"]["replicatedJobs"]:
        for c in rj["template"]["spec"]["template"]["spec"].get("containers", []):
            c["image"] = c.get("image", "") + "-edited"
            return out
    return out


def scaled(js, replicas):
    out = copy.deepcopy(js)
    for rj in out["spec"]["replicatedJobs"]:
        rj["replicas"] = replicas
    return out


def main(examples_dir):
    rng = random.Random(9)
    jobsets = []
    for path in sorted(pathlib.Path(examples_dir).rglob("*.yaml")):
        text = path.read_bytes()
        write("fuzz_yaml", text)
        for doc in yaml.safe_load_all(text):
            if isinstance(doc, dict) and doc.get("kind") == "JobSet":
                jobsets.append(doc)

    for js in jobsets:
        write("fuzz_review", minify(review("UPDATE", js, js)))
        write("fuzz_review", minify(review("UPDATE", scaled(js, 3), js)))
        write("fuzz_review", minify(review("UPDATE", first_image_changed(js), js)))
        write("fuzz_review", minify(review("CREATE", js)))
        # The mutation program after the NUL: a few bytes, so that the first runs already edit.
        write("fuzz_update", minify(js) + b"\0" + bytes(rng.randrange(256) for _ in range(24)))
        write("fuzz_json_patch", minify(js) + b"\0" + minify([
            {"op": "replace", "path": "/spec/replicatedJobs/0/replicas", "value": 4},
            {"op": "add", "path": "/metadata/labels", "value": {"a": "b"}},
            {"op": "copy", "from": "/spec/replicatedJobs/0", "path": "/spec/replicatedJobs/-"},
            {"op": "move", "from": "/metadata/name", "path": "/metadata/generateName"},
            {"op": "test", "path": "/kind", "value": "JobSet"},
            {"op": "remove", "path": "/spec/replicatedJobs/0/template"},
        ]))
        # What the CREATE defaults add, replace and remove, as apply_to_view applies them.
        write("fuzz_view_patch", minify(js) + b"\0" + minify([
            {"op": "add", "path": "/spec/successPolicy", "value": {"operator": "All"}},
            {"op": "replace", "path": "/spec/replicatedJobs/0/replicas", "value": 2},
            {"op": "add", "path": "/spec/replicatedJobs/0/template/spec/completionMode",
             "value": "Indexed"},
            {"op": "add", "path": "/metadata/labels/a~1b", "value": "c"},
            {"op": "remove", "path": "/spec/replicatedJobs/0/template/metadata"},
        ]))

    # Repeated keys (the last value at the first key's place), number types, an escaped key.
    write("fuzz_view_patch", b'{"a":1,"b":{"x":1.0,"x":18446744073709551615,"y":-0.0},"a":[1e300]}'
          b'\0[{"op":"add","path":"/b/z","value":{"k~":1}},{"op":"replace","path":"/a/0","value":2}]')

    # Two added keys of invalid UTF-8 ("\0\xff", "\0\xfe") that the harness writes as one key
    # ("\0\ufffd"): the key-order invariant must not judge a new object holding a key twice.
    # FuzzedDataProvider takes strings from the front and numbers from the back: per edit, the
    # operation (3: add a member), a bool per level descended, the value (0, then -1).
    back_consumed = [3, 1, 1, 0, 3, 1, 1, 0, 1]
    write("fuzz_update", minify({"spec": {"failurePolicy": {}}}) + b"\0\xff\\x\0\xfe\\x" +
          bytes(reversed(back_consumed)))

    js = jobsets[0]
    write("fuzz_review", minify(review("UPDATE", js, js, api_version="admission.k8s.io/v1beta1")))
    write("fuzz_review", minify(review("DELETE", None)))
    write("fuzz_review", minify(review("UPDATE", js, None)))
    for data_file in sorted((ROOT / "tests" / "data").glob("*.json")):
        write("fuzz_review", minify(json.loads(data_file.read_text())))

    for text in [
        b"", b"elastic:\n  replicas: true\n  parallelism: false\n", b"elastic:\n  parallelism: true\n",
        b'{"elastic": {"replicas": false}}', b"elastic: ~\n", b"elastic:\n  replicas: yes\n", b"other: 1\n",
        b"elastic: [1, 2]\n", b"---\nelastic: {}\n---\n",
    ]:
        write("fuzz_policy", text)

    for text in [
        b"a: &x [1, 2]\nb: *x\n", b"a: 'quoted: yes'\nb: \"tab\\tnew\\nline\\u00e9\"\nc: 0x1F\nd: 0o17\ne: 1e3\n",
        b"- a\n- {b: c}\n- [d, ~, null, true, FALSE]\n", b"key: |\n  literal\n  block\nother: >\n  folded\n",
        b"---\na: 1\n...\n---\nb: 2\n", b"? complex\n: key\n", b"a: !!str 12\nb: !custom x\n",
    ]:
        write("fuzz_yaml", text)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ROOT.parent / "shared" / "examples" / "jobset")
