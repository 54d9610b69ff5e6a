// yaml/: YAML (and JSON) text -> RapidJSON documents, typed by the YAML 1.2 core schema.
#include "yaml/yaml.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kext::yaml {
namespace yaml_test {
namespace {

std::string to_text(const json::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return {buf.GetString(), buf.GetSize()};
}

std::string message(std::string_view text) {
  try {
    to_json(text);
  } catch (const YamlError& e) {
    return e.what();
  }
  return "no error";
}

struct Case {
  const char* name;
  const char* yaml;
  const char* json;  // as RapidJSON's Writer writes the document
};

TEST(YamlToJson, ReadsYaml) {
  const Case cases[] = {
      {"core-schema booleans; YAML 1.1's yes/on are strings; quoted stays a string",
       "a: true\nb: True\nc: TRUE\nd: false\ne: False\nf: FALSE\ng: yes\nh: on\ni: \"true\"\nj: 'False'\n",
       R"({"a":true,"b":true,"c":true,"d":false,"e":false,"f":false,"g":"yes","h":"on","i":"true","j":"False"})"},
      {"nulls", "a:\nb: ~\nc: null\nd: Null\ne: NULL\nf: 'null'\ng: \"~\"\n",
       R"({"a":null,"b":null,"c":null,"d":null,"e":null,"f":"null","g":"~"})"},
      {"integers: decimal, signed, octal, hex, 64-bit limits; quoted stays a string",
       "a: 42\nb: -7\nc: +7\nd: 0o17\ne: 0x1F\nf: 9223372036854775807\ng: -9223372036854775808\n"
       "h: 18446744073709551615\ni: '8080'\nj: 0123\n",
       R"({"a":42,"b":-7,"c":7,"d":15,"e":31,"f":9223372036854775807,"g":-9223372036854775808,)"
       R"("h":18446744073709551615,"i":"8080","j":123})"},
      {"floats", "a: 1.5\nb: -.5\nc: 1e3\nd: 2.5E-3\ne: 1.\nf: 100000000000000000000\n",
       R"({"a":1.5,"b":-0.5,"c":1000.0,"d":0.0025,"e":1.0,"f":100000000000000000000.0})"},
      {"not numbers: versions, times, 1_000", "a: 1.2.3\nb: 12:30\nc: 1_000\nd: 0x\ne: .\n",
       R"({"a":"1.2.3","b":"12:30","c":"1_000","d":"0x","e":"."})"},
      {"multi-line plain scalars fold into one line", "a: one\n  two\n\n  three\nb: x\n",
       R"({"a":"one two\nthree","b":"x"})"},
      {"folded and literal block scalars with their chomping",
       "f: >\n  folded\n  text\n\n  para\nl: |\n  l1\n    l2\n  # not a comment\nk: |-\n  kept\n"
       "p: |+\n  plus\n\nz: >-\n  a\n  b\n",
       R"({"f":"folded text\npara\n","l":"l1\n  l2\n# not a comment\n","k":"kept","p":"plus\n\n","z":"a b"})"},
      {"double-quoted escapes: \\u, \\x, \\t, \\\", \\/; single-quoted ''",
       "a: \"caf\\u00e9 \\u2713\\x41\\t\\\"q\\\" \\/\"\nb: 'it''s # not a comment'\n",
       "{\"a\":\"caf\xc3\xa9 \xe2\x9c\x93"
       "A\\t\\\"q\\\" /\",\"b\":\"it's # not a comment\"}"},
      {"comments", "# head\na: 1 # trailing\n# between\nb: \"x # y\"\n", R"({"a":1,"b":"x # y"})"},
      {"sequences at the key's indent and indented, flow collections",
       "a:\n- 1\n- k: v\n  l: w\nb:\n  - x\nc: [1, \"2\", {d: e}]\nf: {}\ng: []\n",
       R"({"a":[1,{"k":"v","l":"w"}],"b":["x"],"c":[1,"2",{"d":"e"}],"f":{},"g":[]})"},
      {"JSON is YAML", R"({"a": [1, 2.5, true, null, {"b": "c\u00e9"}], "d": "8080"})",
       "{\"a\":[1,2.5,true,null,{\"b\":\"c\xc3\xa9\"}],\"d\":\"8080\"}"},
      {"anchors and aliases copy the anchored value",
       "base: &b {x: 1, y: [2]}\ncopy: *b\nlist: [&s str, *s]\n",
       R"({"base":{"x":1,"y":[2]},"copy":{"x":1,"y":[2]},"list":["str","str"]})"},
      {"<< merge keys: the mapping's own keys win, then the first merged mapping",
       "a: &a {x: 1, y: 1}\nb: &b {y: 2, z: 2}\nc:\n  <<: [*a, *b]\n  x: 0\nd:\n  <<: *b\n",
       R"({"a":{"x":1,"y":1},"b":{"y":2,"z":2},"c":{"x":0,"y":1,"z":2},"d":{"y":2,"z":2}})"},
      {"keys are the text of scalar keys", "8080: a\ntrue: b\n~: c\n1.50: d\n\"q\": e\n",
       R"({"8080":"a","true":"b","null":"c","1.50":"d","q":"e"})"},
      {"core tags",
       "a: !!str 12\nb: !!int \"7\"\nc: !!float 1\nd: !!bool true\ne: !!null ''\nf: !!map {g: !!seq [1]}\n",
       R"({"a":"12","b":7,"c":1.0,"d":true,"e":null,"f":{"g":[1]}})"},
      {"a top-level scalar", "hello\n", R"("hello")"},
      {"a document start and end", "--- # the document\na: 1\n...\n", R"({"a":1})"},
      {"an empty text is null", "", "null"},
      {"comments only are null", "# nothing\n", "null"},
      {"a trailing empty document is allowed", "a: 1\n---\n", R"({"a":1})"},
      {"a byte-order mark",
       "\xEF\xBB\xBF"
       "a: 'b'\n",
       R"({"a":"b"})"},
      {"quotes that close", "a: \"x \\\" y\"\nb: 'it''s'\nc: &q !!str \"z\"\nd: ''\n",
       R"({"a":"x \" y","b":"it's","c":"z","d":""})"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    try {
      EXPECT_EQ(to_text(to_json(c.yaml)), c.json);
    } catch (const YamlError& e) {
      ADD_FAILURE() << e.what();
    }
  }
}

TEST(YamlToJson, ErrorsCarryLineAndColumn) {
  const struct {
    const char* yaml;
    const char* error;
  } cases[] = {
      {"a: [1\nb: 2\n", "line 2, column 2: end of sequence flow not found"},
      {"a: 1\n b: 2\n", "line 2, column 3: illegal map value"},
      {"a: *nowhere\n", "line 1, column 4: the referenced anchor is not defined"},
      {"a: 1\nb:\n  c: 1\n  c: 2\n", "line 4, column 3: duplicate key \"c\""},
      {"a: .inf\n", "line 1, column 4: .inf has no JSON form (quote it to mean the string)"},
      {"a:\n  - -.Inf\n", "line 2, column 5: -.Inf has no JSON form (quote it to mean the string)"},
      {"a: .nan\n", "line 1, column 4: .nan has no JSON form (quote it to mean the string)"},
      {"a: 1e999\n", "line 1, column 4: number 1e999 is out of range"},
      {"a: 0x10000000000000000\n", "line 1, column 4: integer 0x10000000000000000 is out of range"},
      {"a: !Ref x\n", "line 1, column 4: unsupported tag !Ref"},
      {"a: !!set {x}\n", "line 1, column 4: unsupported tag tag:yaml.org,2002:set"},
      {"a: !!int x\n", "line 1, column 4: \"x\" is not a valid !!int"},
      {"a: !!bool yes\n", "line 1, column 4: \"yes\" is not a valid !!bool"},
      {"? [a]\n: b\n", "line 1, column 3: a mapping key must be a scalar"},
      {"k: &k [1]\n*k : b\n", "line 2, column 1: a mapping key must be a scalar"},
      {"a:\n  <<: 1\n", "line 2, column 7: << merges a mapping or a sequence of mappings"},
      {"a: 1\n---\nb: 2\n", "line 2, column 1: a second YAML document; expected one"},
      // yaml-cpp would read these wrong: the checks in yaml.cc make them errors.
      {"a: \"open\nb: 1\n", "line 1, column 4: a quoted scalar that does not end"},
      {"a: 'it''s\n", "line 1, column 4: a quoted scalar that does not end"},
      {"a: &x !!str \"open\\\"\n", "line 1, column 4: a quoted scalar that does not end"},
      {"- a\nb: c\n",
       "line 2, column 1: a mapping at the indentation of a top-level sequence (or a document without its "
       "--- "
       "line)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.yaml);
    EXPECT_EQ(message(c.yaml), c.error);
  }
  try {
    to_json("x: 1\ny: [\n");
    FAIL() << "expected an error";
  } catch (const YamlError& e) {
    EXPECT_EQ(e.line, 3);
    EXPECT_GE(e.column, 1);
  }
  // A DecodeError: a configuration loader catches one type for bad YAML and bad fields.
  EXPECT_THROW(to_json("a: [\n"), DecodeError);
}

// Ten lines of nested aliases are 10^9 values ("billion laughs"): an error, not gigabytes.
TEST(YamlToJson, AliasExpansionIsBounded) {
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) text += (j ? ", " : "") + prev;
    text += "]\n";
  }
  const std::string error = message(text);
  EXPECT_NE(error.find("aliases expand to more than 262144 values"), std::string::npos) << error;
  // The same shape three levels deep (1,000 values) reads.
  const std::string small = text.substr(0, text.find("a3:"));
  EXPECT_EQ(to_json(small)["a2"].Size(), 10u);
}

// yaml-cpp recurses, and stops at a depth of 2000 of its calls (about 500 nested flow collections);
// 100 levels read, deeper is an error with a line.
TEST(YamlToJson, DeepNestingIsAnErrorNotAStackOverflow) {
  const size_t levels = 20000;  // tests/fuzz/regressions/kubeconfig/kubeconfig-json-nested-20000.json
  const std::string deep = message("{\"a\":" + std::string(levels, '[') + std::string(levels, ']') + "}");
  EXPECT_TRUE(deep.starts_with("line 1, column ")) << deep;
  EXPECT_TRUE(deep.ends_with(": nested too deeply")) << deep;
  std::string indented;
  for (size_t i = 0; i < 1500; ++i) indented += std::string(i, ' ') + "k:\n";
  EXPECT_NE(message(indented).find("nested too deeply"), std::string::npos) << message(indented);
  EXPECT_NO_THROW(to_json("{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}"));
}

TEST(YamlToJsonAll, EveryDocumentOfAStreamEmptyOnesDropped) {
  auto docs = to_json_all("a: 1\n---\n---\n# only a comment\n---\nnull\n--- |\n  text\n---\n- b\n...\n");
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(to_text(docs[0]), R"({"a":1})");
  EXPECT_EQ(to_text(docs[1]), R"("text\n")");
  EXPECT_EQ(to_text(docs[2]), R"(["b"])");
  EXPECT_TRUE(to_json_all("").empty());
  // Anchors belong to their document.
  EXPECT_THROW(to_json_all("a: &x 1\n---\nb: *x\n"), YamlError);
  EXPECT_THROW(to_json_all("- a\nb: c\n"), YamlError);
  EXPECT_EQ(to_json_all("%YAML 1.2\n---\na: 1\n...\n%YAML 1.2\n---\nb: 2\n").size(), 2u);
  try {
    to_json_all("a: 1\n---\nb: [\n---\n");
    FAIL() << "expected an error";
  } catch (const YamlError& e) {
    EXPECT_EQ(e.line, 4) << e.what();
  }
}

}  // namespace
}  // namespace yaml_test
}  // namespace kext::yaml
