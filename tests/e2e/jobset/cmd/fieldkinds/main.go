// Command fieldkinds writes the field-kinds tables of the UPDATE immutability diff
// (src/validation/*-field-kinds.json) from the Go types upstream's webhook compares: it walks
// sigs.k8s.io/jobset's ReplicatedJob (api/jobset/v1alpha2, whose template is batch/v1's
// JobTemplateSpec) with reflect, as encoding/json sees it. Upstream's ValidateUpdate
// (pkg/webhooks/jobset_webhook.go, v0.12.0) passes the ReplicatedJobs to
// apivalidation.ValidateImmutableField, that is to equality.Semantic.DeepEqual, so what
// "unchanged" means for a field is decided by its Go kind: pointer or not, slice, map, struct,
// scalar, or one of the types with an equality of their own (resource.Quantity, metav1.Time).
//
// It is built in the module of upstream's manager (tests/e2e/jobset), so the types are those of
// the k8s.io/api upstream's release compiles against; the versions go into each file's _doc.
//
// Usage: fieldkinds DIR   writes DIR/jobtemplate-field-kinds.json, container-field-kinds.json
// and volume-field-kinds.json (`scripts/dev field-kinds` runs it on src/validation; the meson
// test 'field kinds drift' compares its output with the committed files).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	jobset "sigs.k8s.io/jobset/api/jobset/v1alpha2"
)

// The types Semantic.DeepEqual (or their JSON form) does not compare field by field, by the name
// the C++ table gives them (src/validation/field_kinds.cpp, scalar_kind_of). Quantity and Time
// have equality funcs in apimachinery's pkg/api/equality; IntOrString keeps its JSON type;
// FieldsV1, Duration and RawExtension are opaque to the diff.
var specials = map[reflect.Type]string{
	reflect.TypeOf(resource.Quantity{}):    "quantity",
	reflect.TypeOf(metav1.Time{}):          "time",
	reflect.TypeOf(metav1.MicroTime{}):     "time",
	reflect.TypeOf(intstr.IntOrString{}):   "int-or-string",
	reflect.TypeOf(metav1.FieldsV1{}):      "fieldsv1",
	reflect.TypeOf(metav1.Duration{}):      "duration",
	reflect.TypeOf(runtime.RawExtension{}): "raw",
}

// The elements of a list or map of scalars the C++ table reads (field_kinds.cpp, is_scalar_type).
var listElements = map[string]bool{"string": true, "int32": true, "int64": true, "bool": true, "quantity": true}

// One row: [path, pointer, kind, type]; or, in an element file, the name of another element
// type standing for its rows.
type row struct {
	path    string
	pointer bool
	kind    string // scalar, special, struct, slice, map
	goType  string // string, int32, int64, bool, a special's name, or a struct's name
	ref     string // when not empty, the row is this type name
}

func (r row) json() string {
	if r.ref != "" {
		return quote(r.ref)
	}
	return fmt.Sprintf("[%s,%t,%s,%s]", quote(r.path), r.pointer, quote(r.kind), quote(r.goType))
}

// quote writes a JSON string as the tables have it: no HTML escaping.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// A list of elements of one of these types is not walked where it occurs: their rows are in a file
// of their own, relative to an entry, and scripts/gen_field_kinds.py puts them after each such
// list. Each file is a list of (key, type); a file's types are walked in this order.
type elementFile struct {
	name  string
	doc   string
	types []reflect.Type
}

var (
	containerType          = reflect.TypeOf(corev1.Container{})
	ephemeralContainerType = reflect.TypeOf(corev1.EphemeralContainer{})
	volumeType             = reflect.TypeOf(corev1.Volume{})
)

type walker struct {
	elementTypes map[reflect.Type]bool
	onPath       map[reflect.Type]bool // struct types being walked: a cycle is cut
}

// name is what a row says of a type: the special's name, the struct's name, or the Go kind.
func name(t reflect.Type) string {
	if s, ok := specials[t]; ok {
		return s
	}
	switch t.Kind() {
	case reflect.Struct:
		return t.Name()
	case reflect.String, reflect.Int32, reflect.Int64, reflect.Bool:
		return t.Kind().String()
	}
	panic(fmt.Sprintf("fieldkinds: no row kind for Go type %s (%s)", t, t.Kind()))
}

// fields walks the JSON fields of struct type t, each path prefix + "." + its JSON name.
func (w *walker) fields(prefix string, t reflect.Type) []row {
	var rows []row
	for i := 0; i < t.NumField(); i++ {
		rows = append(rows, w.structField(prefix, t.Field(i))...)
	}
	return rows
}

// structField is the rows of one field of a struct as encoding/json reads it: none when
// unexported or tagged "-", those of the struct's fields when inlined (embedded without a name).
func (w *walker) structField(prefix string, f reflect.StructField) []row {
	jsonName, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch {
	case jsonName == "-":
		return nil
	case inlined(f):
		return w.fields(prefix, f.Type)
	case !f.IsExported():
		return nil
	case jsonName == "":
		jsonName = f.Name
	}
	return w.field(prefix+"."+jsonName, f.Type)
}

// inlined: an embedded struct without a JSON name, whose fields encoding/json reads as the
// outer struct's (VolumeSource in a Volume, EphemeralContainerCommon in an EphemeralContainer).
func inlined(f reflect.StructField) bool {
	jsonName, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if !f.Anonymous || jsonName != "" {
		return false
	}
	if f.Type.Kind() != reflect.Struct {
		panic(fmt.Sprintf("fieldkinds: embedded %s is not a struct", f.Type))
	}
	return true
}

// field is the row of one field of type t at path, then those of what it holds.
func (w *walker) field(path string, t reflect.Type) []row {
	pointer := t.Kind() == reflect.Pointer
	if pointer {
		t = t.Elem()
	}
	if s, ok := specials[t]; ok {
		return []row{{path: path, pointer: pointer, kind: "special", goType: s}}
	}
	switch t.Kind() {
	case reflect.Struct:
		rows := []row{{path: path, pointer: pointer, kind: "struct", goType: t.Name()}}
		if w.onPath[t] {
			return rows
		}
		w.onPath[t] = true
		rows = append(rows, w.fields(path, t)...)
		delete(w.onPath, t)
		return rows
	case reflect.Slice, reflect.Map:
		if pointer {
			panic(fmt.Sprintf("fieldkinds: %s: a pointer to a %s", path, t.Kind()))
		}
		kind := "slice"
		if t.Kind() == reflect.Map {
			kind = "map"
		}
		elem := t.Elem()
		rows := []row{{path: path, kind: kind, goType: name(elem)}}
		_, special := specials[elem]
		switch {
		case elem.Kind() == reflect.Struct && !special && kind == "slice":
			if !w.elementTypes[elem] {
				// The element's fields, as those of a struct field named "[]".
				rows = append(rows, w.field(path+"[]", elem)[1:]...)
			}
		case !listElements[rows[0].goType]:
			// field_kinds.cpp describes the element of a list or map of scalars from the row of
			// the list itself (is_scalar_type), and reads no "{}" in a path: a new kind of element
			// needs it taught first.
			panic(fmt.Sprintf("fieldkinds: %s: a %s of %s, which field_kinds.cpp cannot describe", path, kind, elem))
		}
		return rows
	}
	return []row{{path: path, pointer: pointer, kind: "scalar", goType: name(t)}}
}

// elementRows are the rows of one entry of a list of t, relative to the entry (".name"). An
// inlined struct whose rows are those of a type walked before (an EphemeralContainer's
// EphemeralContainerCommon is a Container's fields) is written as that type's name.
func (w *walker) elementRows(t reflect.Type, before map[reflect.Type][]row) []row {
	var rows []row
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		rows = append(rows, w.structField("", f)...)
		if inlined(f) {
			inlined := w.fields("", f.Type)
			if ref := sameAs(inlined, before); ref != "" {
				rows = append(rows[:len(rows)-len(inlined)], row{ref: ref})
			}
		}
	}
	return rows
}

func sameAs(rows []row, before map[reflect.Type][]row) string {
	for t, other := range before {
		if reflect.DeepEqual(rows, other) {
			return t.Name()
		}
	}
	return ""
}

// table writes {"_doc":…,"key":[rows…],…}: one row a line, as the committed files have them.
func table(doc string, keys []string, lists [][]row) string {
	var b strings.Builder
	b.WriteString(`{"_doc":` + quote(doc))
	for i, key := range keys {
		b.WriteString("," + quote(key) + ":[")
		for j, r := range lists[i] {
			if j > 0 {
				if lists[i][j-1].ref == "" {
					b.WriteString(",\n")
				} else {
					b.WriteString(",")
				}
			}
			b.WriteString(r.json())
		}
		b.WriteString("]")
	}
	b.WriteString("}\n")
	return b.String()
}

// versions says which modules the types come from, as this binary was built.
func versions() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		panic("fieldkinds: built without module information")
	}
	version := map[string]string{}
	for _, dep := range info.Deps {
		if dep.Replace != nil {
			dep = dep.Replace
		}
		version[dep.Path] = dep.Version
	}
	var out []string
	for _, path := range []string{"sigs.k8s.io/jobset", "k8s.io/api", "k8s.io/apimachinery"} {
		if version[path] == "" {
			panic("fieldkinds: no version for " + path)
		}
		out = append(out, path+" "+version[path])
	}
	return strings.Join(out, ", ")
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fieldkinds DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	from := versions()
	generated := "Generated by tests/e2e/jobset/cmd/fieldkinds from the Go types of " + from +
		" (Apache-2.0), walked with reflect as encoding/json sees them; do not edit: `scripts/dev field-kinds` rewrites it and the meson test 'field kinds drift' holds it to the types."
	files := []elementFile{
		{"container-field-kinds.json",
			"The fields of a Container (core/v1), each row relative to an entry of a list of Containers, in the format of jobtemplate-field-kinds.json. An EphemeralContainer has a Container's fields (the name of the type stands for its rows) and then its own. " + generated,
			[]reflect.Type{containerType, ephemeralContainerType}},
		{"volume-field-kinds.json",
			"The fields of a Volume (core/v1), each row relative to an entry of a list of Volumes, in the format of jobtemplate-field-kinds.json. " + generated,
			[]reflect.Type{volumeType}},
	}
	w := &walker{elementTypes: map[reflect.Type]bool{}, onPath: map[reflect.Type]bool{}}
	for _, file := range files {
		for _, t := range file.types {
			w.elementTypes[t] = true
		}
	}

	// A ReplicatedJob's own fields, then its template's rows apart.
	var own, rows []row
	var template row
	for _, r := range w.fields("", reflect.TypeOf(jobset.ReplicatedJob{})) {
		r.path = strings.TrimPrefix(r.path, ".")
		switch {
		case r.path == "template":
			template = r
		case strings.HasPrefix(r.path, "template."):
			rows = append(rows, r)
		default:
			own = append(own, r)
		}
	}
	own = append(own, template)
	doc := "Go field kinds for spec.replicatedJobs[].template (batch/v1 JobTemplateSpec) as used by apimachinery Semantic.DeepEqual in the upstream immutability check. Paths are relative to a ReplicatedJob; '[]' = list element, '{}' = map value. pointer=true: absent/null differs from an explicit zero value (false, 0, \"\", {}); pointer=false scalars/structs: absent == zero value. Slices and maps: nil == empty. special: quantity (compare numerically), time (compare instant), int-or-string (typed: 80 != \"80\"), fieldsv1/duration/raw. " +
		generated + " Recursion into a struct type already being walked is cut (no such cycle occurs here). Note the JobSet CRD prunes template.metadata to annotations/finalizers/labels/name/namespace and pod-template metadata likewise. The fields of a list's entries whose Go type has a file of its own (container-field-kinds.json: Container, EphemeralContainer; volume-field-kinds.json: Volume) are there, once, relative to an entry; scripts/gen_field_kinds.py puts them right after each list of that type."
	out := map[string]string{
		"jobtemplate-field-kinds.json": table(doc, []string{"replicatedJob", "rows"}, [][]row{own, rows}),
	}
	for _, file := range files {
		before := map[reflect.Type][]row{}
		var keys []string
		var lists [][]row
		for _, t := range file.types {
			keys = append(keys, t.Name())
			lists = append(lists, w.elementRows(t, before))
			before[t] = lists[len(lists)-1]
		}
		out[file.name] = table(file.doc, keys, lists)
	}
	for name, content := range out {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "fieldkinds:", err)
			os.Exit(1)
		}
	}
}
