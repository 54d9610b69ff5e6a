#!/usr/bin/env python3
"""Prints the table of the chart's values that docs/operating.md carries ("Every value"), generated
from charts/kube-extender/values.schema.json (the descriptions, types and allowed values) and
values.yaml (the defaults). tests/charts/run fails when the docs' copy differs:
  tools/chart-values-table.py > /tmp/table.md
"""
import json
import os
import sys

import yaml

CHART = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "charts", "kube-extender")


def default_text(value):
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        if not value:
            return "`{}`" if isinstance(value, dict) else "`[]`"
        if isinstance(value, dict) and len(json.dumps(value)) > 60:
            return "(see values.yaml)"
        return "`" + json.dumps(value, separators=(", ", ": ")) + "`"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if value == "":
        return '`""`'
    return f"`{value}`"


def kind_text(prop):
    t = prop.get("type", "")
    t = "/".join(t) if isinstance(t, list) else t
    if "enum" in prop:
        return " \\| ".join(f"`{v}`" if v != "" else '`""`' for v in prop["enum"])
    if "pattern" in prop and t == "string":
        return "duration"
    extra = []
    if "minimum" in prop:
        extra.append(f"≥ {prop['minimum']}")
    if "maximum" in prop:
        extra.append(f"≤ {prop['maximum']}")
    return t + (" " + ", ".join(extra) if extra else "")


def rows(schema, values, prefix=""):
    for key, prop in schema.get("properties", {}).items():
        if key == "global":
            continue
        path = prefix + key
        value = values.get(key) if isinstance(values, dict) else None
        children = prop.get("properties", {})
        # A group of values (every one described) is listed value by value; an object passed whole to
        # Kubernetes (resources) is one row.
        nested = prop.get("type") == "object" and all("description" in c for c in children.values())
        if nested and children:
            yield from rows(prop, value or {}, path + ".")
        else:
            desc = prop.get("description", "").replace("|", "\\|")
            yield f"| `{path}` | {kind_text(prop)} | {default_text(value)} | {desc} |"


def main():
    with open(os.path.join(CHART, "values.schema.json")) as f:
        schema = json.load(f)
    with open(os.path.join(CHART, "values.yaml")) as f:
        values = yaml.safe_load(f)
    print("| value | type | default | what it does |")
    print("|---|---|---|---|")
    for r in rows(schema, values):
        print(r)


if __name__ == "__main__":
    sys.exit(main())
