// Command yamlpin converts YAML files to JSON as kubectl reads a manifest, so that the C++ reader
// can be pinned to it (tests/cli/yaml_pin_test.cpp). kubectl's resource builder
// (k8s.io/cli-runtime pkg/resource/visitor.go, FileVisitor/StreamVisitor.Visit) decodes each
// document with apimachinery's YAMLOrJSONDecoder, whose YAMLToJSONDecoder.Decode calls
// sigs.k8s.io/yaml.Unmarshal: the conversion of sigs.k8s.io/yaml's YAMLToJSON, go-yaml v2's
// yaml.Unmarshal (not UnmarshalStrict) beneath.
//
// Usage: yamlpin FILE...   one line per file, "FILE\tJSON" or "FILE\terror: MESSAGE".
package main

import (
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/yaml"
)

func main() {
	for _, name := range os.Args[1:] {
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "yamlpin:", err)
			os.Exit(2)
		}
		converted, err := yaml.YAMLToJSON(data)
		if err != nil {
			fmt.Printf("%s\terror: %s\n", name, strings.ReplaceAll(err.Error(), "\n", " "))
			continue
		}
		fmt.Printf("%s\t%s\n", name, converted)
	}
}
