#pragma once
// YAML files (and JSON ones: JSON is YAML) as RapidJSON documents, so that every file this project
// reads — the configuration, kubeconfigs, the manifests in tests — is decoded once, from JSON, with
// json/json.h's typed lookups and their "<field path>: expected …" errors. This is what kubectl does
// too: sigs.k8s.io/yaml (yaml.go, Unmarshal → yamlToJSON) turns a kubeconfig's YAML into JSON and
// encoding/json decodes that.
//
// The YAML is parsed by yaml-cpp (full YAML 1.2 syntax: block and flow collections, anchors and
// aliases, `<<` merge keys, literal `|` and folded `>` block scalars, multi-line plain scalars,
// single- and double-quoted scalars with their escapes, comments, `---` documents). Plain scalars are
// typed by the YAML 1.2 core schema:
//   null, Null, NULL, ~, (empty)           → null
//   true, True, TRUE, false, False, FALSE  → boolean   (yes/no/on/off are strings, as in YAML 1.2)
//   123, -7, +7, 0o17, 0x1F                → integer   (Int64, or Uint64 above INT64_MAX)
//   1.5, -.5, 1e3, 6.02E+23                → double
//   anything else                          → string
// Quoted and block scalars, and scalars tagged !!str, are always strings ("true", '8080'). The tags
// !!null, !!bool, !!int and !!float must match their scalar; other tags are errors. Mapping keys are
// the text of scalar keys (`8080: x` has the key "8080"); a collection as a key, a duplicate key,
// .inf and .nan (JSON has no such numbers) are errors.
#include <string_view>
#include <vector>

#include "json/json.h"

namespace kext::yaml {

// Text that is not YAML, or YAML that has no JSON form. A DecodeError, so that a caller decoding the
// result catches one type; what() is "line L, column C: reason" (1-based, as editors count).
struct YamlError : DecodeError {
  YamlError(int line, int column, const std::string& reason);
  int line;
  int column;
};

// The one document of `text` (a trailing `---` with nothing after it is allowed). An empty text, or
// one with only comments, is a null document. A second document is an error: a configuration file
// or kubeconfig holds one object.
rapidjson::Document to_json(std::string_view text);

// Every document of a `---`-separated stream, in order; empty and null documents are dropped, as
// kubectl apply drops them (k8s.io/cli-runtime/pkg/resource/visitor.go, StreamVisitor.Visit).
std::vector<rapidjson::Document> to_json_all(std::string_view text);

}  // namespace kext::yaml
